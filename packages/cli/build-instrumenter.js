'use strict';
/**
 * Bundles src/instrumenter.ts with @jsprof/estree-instrument, @jsprof/policy, acorn, magic-string
 * and @jridgewell/* into dist/instrumenter.bundle.js: the one self-contained file the module hooks
 * load inside a profiled program, so that they share no module with it (see src/instrumenter.ts).
 * Runs after tsc (the workspace packages are bundled from their dist).
 */
const esbuild = require('esbuild');
const path = require('node:path');

esbuild.buildSync({
  entryPoints: [path.join(__dirname, 'src/instrumenter.ts')],
  outfile: path.join(__dirname, 'dist/instrumenter.bundle.js'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  legalComments: 'inline',
  logLevel: 'warning',
});
