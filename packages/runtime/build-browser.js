'use strict';
/**
 * Browser builds of the runtime, with esbuild: `dist/browser/jsprof.global.js` (a classic script,
 * `@jsprof/runtime/global`), `dist/browser/jsprof.mjs` (an ES module, `@jsprof/runtime/browser`),
 * `dist/browser/jsprof-send.mjs` (`@jsprof/runtime/send`, kept out of the others) and
 * `dist/browser/jsprof.page-load.js` (`@jsprof/runtime/page-load`: the global build, sending, and a profile of the page load).
 * Prints their gzip sizes.
 */
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const dir = path.join(__dirname, 'dist', 'browser');
const common = { bundle: true, minify: true, target: 'es2022', platform: 'browser', legalComments: 'none', logLevel: 'warning' };
const builds = [
  { entryPoints: [path.join(__dirname, 'src/global.ts')], outfile: path.join(dir, 'jsprof.global.js'), format: 'iife' },
  { entryPoints: [path.join(__dirname, 'src/browser.ts')], outfile: path.join(dir, 'jsprof.mjs'), format: 'esm' },
  { entryPoints: [path.join(__dirname, 'src/send.ts')], outfile: path.join(dir, 'jsprof-send.mjs'), format: 'esm' },
  { entryPoints: [path.join(__dirname, 'src/page-load.ts')], outfile: path.join(dir, 'jsprof.page-load.js'), format: 'iife' },
];
for (const build of builds) esbuild.buildSync({ ...common, ...build });
if (!process.argv.includes('-q')) {
  for (const { outfile } of builds) {
    const code = fs.readFileSync(outfile);
    process.stdout.write(`${path.relative(process.cwd(), outfile)}: ${code.length} bytes, ${zlib.gzipSync(code, { level: 9 }).length} gzipped\n`);
  }
}
