#!/usr/bin/env node
'use strict';
// A reader that stops early (`jsprof report trace.json | head`) closes the pipe: not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}
require('../dist/main.js')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
