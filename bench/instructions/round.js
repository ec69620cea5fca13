'use strict';
/**
 * One process of bench/instructions.js: loads a library file (plain, or as instrumented) as a
 * CommonJS module with the real runtime's checks in place (no profiler), and runs its workload
 * `rounds` times. With `sample every`, a stand-in for the runtime takes a sample every that many
 * checks instead: a clock would not do under valgrind, where time runs about 50 times slower.
 *
 *   node round.js <program> <library file> <code file> <rounds> [<sample every>]
 */
const fs = require('node:fs');
const { compileLibrary } = require('./library');

const [program, libraryFile, codeFile, rounds, sampleEvery] = process.argv.slice(2);
const samples = sampleEvery ? sampleEveryChecks(Number(sampleEvery)) : (require('../../packages/runtime/dist/node.js'), null);
const library = compileLibrary(libraryFile, fs.readFileSync(codeFile, 'utf8'));
const { work } = require('./workloads')[program];
let check = 0;
for (let i = 0; i < Number(rounds); i++) check += work(library);
process.stdout.write(samples ? `${check} ${samples.taken}\n` : `${check}\n`);

/**
 * Installs the hook the checks reach (see @jsprof/policy's check.ts) with a trap that, every
 * `every` checks, captures and stores the stack as the runtime's slow path does.
 */
function sampleEveryChecks(every) {
  const { captureStack } = require('../../packages/runtime/dist/capture.js');
  const { StackStore } = require('../../packages/runtime/dist/trace.js');
  const { REARM, ENTRY_CHECK, EXIT_SLOTS } = require('../../packages/runtime/dist/engine.js');
  const store = new StackStore();
  const counter = new Int32Array(new SharedArrayBuffer(4 * (1 + EXIT_SLOTS)));
  const samples = { taken: 0 };
  const arm = () => {
    counter.fill(REARM, 1);
    counter[0] = every;
  };
  const trap = (_target, key) => {
    store.add(captureStack(trap, Number(key) === ENTRY_CHECK ? 1 : 0));
    samples.taken++;
    arm();
    return true;
  };
  arm();
  globalThis.__jsprof = { c: counter, s: new Proxy({}, { deleteProperty: trap }) };
  return samples;
}
