'use strict';
/**
 * Bundled builds of the runtime, with esbuild. `dist/node.js` (`@jsprof/runtime/node`), the one file
 * in place of the twenty tsc wrote: Node loads it in 4–5 ms rather than 7–9 (a cold start pays it);
 * its types stay tsc's. Browser builds: `dist/browser/jsprof.global.js` (a classic script,
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
const nodeBuild = path.join(__dirname, 'dist', 'node.js');
esbuild.buildSync({ entryPoints: [path.join(__dirname, 'src/node.ts')], outfile: nodeBuild, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning' });
fs.rmSync(`${nodeBuild}.map`, { force: true }); // tsc's, of the file this one replaced
if (!process.argv.includes('-q')) {
  for (const { outfile } of builds) {
    const code = fs.readFileSync(outfile);
    process.stdout.write(`${path.relative(process.cwd(), outfile)}: ${code.length} bytes, ${zlib.gzipSync(code, { level: 9 }).length} gzipped\n`);
  }
}
