'use strict';
/**
 * One process of bench/rounds.js: runs a library's workload (bench/instructions/workloads.js) for
 * `rounds` rounds, plain, with the default placement's checks, or with them and a profiler
 * sampling every 10 ms, and prints each round's wall time (ms) and the samples taken.
 *
 *   node child.js <program> plain|checks|profiled <rounds>
 */
const fs = require('node:fs');
const path = require('node:path');
const { compileLibrary } = require('../instructions/library');
const workloads = require('../instructions/workloads');

const [program, variant, rounds] = process.argv.slice(2);
const { library, work } = workloads[program];
const libraryFile = path.resolve(__dirname, '../../node_modules', library);
let code = fs.readFileSync(libraryFile, 'utf8');
let profiler = null;
if (variant !== 'plain') {
  const runtime = require('../../packages/runtime/dist/node.js');
  const { instrumentModule } = require('../../packages/cli/dist/instrument.js');
  const { instrumentOptions } = require('../measure');
  const { configsFrom } = require('../configs');
  code = instrumentModule(code, libraryFile, instrumentOptions(configsFrom(['--placements', 'default']).configs[0])).code;
  if (variant === 'profiled') profiler = new runtime.Profiler({ sampleInterval: 10, maxBufferSize: 1_000_000 });
}
const lib = compileLibrary(libraryFile, code);

const times = [];
let check = 0;
for (let i = 0; i < Number(rounds); i++) {
  const t0 = performance.now();
  check += work(lib);
  times.push(performance.now() - t0);
}
(async () => {
  const samples = profiler ? (await profiler.stop()).samples.length : 0;
  process.stdout.write(`${JSON.stringify({ times, check, samples })}\n`);
})();
