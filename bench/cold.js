'use strict';
/**
 * Cold cost (issue 25): a page load is cold code. Real libraries, each loaded and run once in a
 * fresh Node process, load and compile included: plain, instrumented by `jsprof instrument` at the
 * default threshold with the runtime loaded but not profiling, and the same profiled at 10 ms.
 * Medians of alternating runs; each way against the plain library's median in the same run.
 *
 *   node bench/cold.js [--runs N]
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { coldRows, columnsOf, table } = require('./report');

const ROOT = path.resolve(__dirname, '..');
const JSPROF = path.join(ROOT, 'packages/cli/bin/jsprof.js');
const RUNTIME = path.join(ROOT, 'packages/runtime/dist/node.js');
const RUNS = process.argv.includes('--runs') ? Number(process.argv[process.argv.indexOf('--runs') + 1]) : 9;

/** Each library's file and one small task with it (`lib` is the module; `SAMPLE` the text of acorn.js, 240 KB). */
const LIBRARIES = [
  { name: 'marked', file: 'marked/lib/marked.umd.js', task: `lib.marked.parse('# T\\n\\n' + '* item **bold** [link](x)\\n'.repeat(200))` },
  { name: 'acorn', file: 'acorn/dist/acorn.js', task: `lib.parse(SAMPLE, { ecmaVersion: 'latest' }).body.length` },
  { name: 'esprima', file: 'esprima/dist/esprima.js', task: `lib.parseScript(SAMPLE).body.length` },
  { name: 'js-yaml', file: 'js-yaml/dist/js-yaml.js', task: `lib.load(lib.dump({ list: Array.from({ length: 300 }, (_, i) => ({ i, s: 'x' + i })) })).list.length` },
  { name: 'terser', file: 'terser/dist/bundle.min.js', task: `lib.minify_sync(SAMPLE).code.length` },
  { name: 'typescript', file: 'typescript/lib/typescript.js', task: `lib.transpileModule('export class C<T> { constructor(private x: T) {} get y(): number { return 1; } }'.repeat(20), { compilerOptions: { target: lib.ScriptTarget.ES2015 } }).outputText.length` },
];

const WAYS = ['plain', 'checks', 'profiled'];

/** A driver: loads the runtime (not for plain), the library, runs the task once, prints the time since the process started. */
function driver(dir, lib, way) {
  const file = path.join(dir, way === 'plain' ? 'plain' : 'instrumented', path.basename(lib.file));
  return `
    ${way === 'plain' ? '' : `const rt = require(${JSON.stringify(RUNTIME)});`}
    ${way === 'profiled' ? `const profiler = new rt.Profiler({ sampleInterval: 10, maxBufferSize: 100000 });` : ''}
    const SAMPLE = require('fs').readFileSync(${JSON.stringify(path.join(ROOT, 'node_modules/acorn/dist/acorn.js'))}, 'utf8');
    const lib = require(${JSON.stringify(file)});
    const value = ${lib.task};
    const ms = performance.now();
    ${way === 'profiled' ? `profiler.stop().then(() => console.log(JSON.stringify({ ms, value })));` : `console.log(JSON.stringify({ ms, value }));`}`;
}

function runOnce(script) {
  // The copies find their dependencies (terser's) where the originals do.
  const env = { ...process.env, NODE_PATH: path.join(ROOT, 'node_modules') };
  const run = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 << 20, env });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').pop()).ms;
}

function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-cold-'));
  fs.mkdirSync(path.join(dir, 'plain'));
  for (const lib of LIBRARIES) fs.copyFileSync(path.join(ROOT, 'node_modules', lib.file), path.join(dir, 'plain', path.basename(lib.file)));
  const instrumented = spawnSync(process.execPath, [JSPROF, 'instrument', path.join(dir, 'plain'), '--out-dir', path.join(dir, 'instrumented')], { encoding: 'utf8' });
  if (instrumented.status !== 0) throw new Error(instrumented.stderr);

  const times = Object.fromEntries(LIBRARIES.map((l) => [l.name, Object.fromEntries(WAYS.map((w) => [w, []]))]));
  for (let round = 0; round < RUNS; round++) {
    for (const lib of LIBRARIES) {
      // Alternating, in an order that turns each round, so that a machine slowing down slows every way.
      for (let k = 0; k < WAYS.length; k++) {
        const way = WAYS[(k + round) % WAYS.length];
        times[lib.name][way].push(runOnce(driver(dir, lib, way)));
      }
    }
    process.stderr.write(`  cold: round ${round + 1}/${RUNS}\n`);
  }
  fs.rmSync(dir, { recursive: true, force: true });

  const rows = coldRows(LIBRARIES.map((l) => l.name), times, ['checks', 'profiled']);
  const cpu = os.cpus()[0]?.model.replace(/\s+/g, ' ').trim();
  console.log(`jsprof cold-start bench — ${cpu}, ${os.cpus().length} cores, node ${process.version}, median of ${RUNS} fresh processes per way, alternating`);
  console.log('');
  console.log(table(columnsOf(['library (loaded and run once)', 'plain', 'checks, runtime loaded', 'profiling at 10 ms']), rows));
  console.log('');
  console.log('Each process: node start, (runtime load), the library loaded and compiled, one task; time is performance.now() at its end.');
  console.log('Instrumented by `jsprof instrument` at the default threshold; profiling uses the sampler thread.');
}

main();
