#!/usr/bin/env node
'use strict';
const { describeFsError } = require('../dist/files.js');
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    // A reader that stops early (`jsprof report trace.json | head`) closes the pipe: not an error, and
    // the command still ends with its own exit status.
    if (error.code === 'EPIPE') return;
    if (stream === process.stdout) process.stderr.write(`jsprof: cannot write to standard output: ${describeFsError(error)}\n`);
    process.exit(1);
  });
}
require('../dist/main.js')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
