import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { summarize } from '@jsprof/trace-tools';
import { FIXTURES, ROOT, expectWellFormed, jsprof, tempDir } from './helpers';

const phases = path.join(FIXTURES, 'phases.js');
const phasesUrl = pathToFileURL(phases).href;

describe('jsprof run', () => {
  const dir = tempDir();
  const cache = path.join(dir, 'cache');
  const out = path.join(dir, 'trace.json');
  let result: ReturnType<typeof jsprof>;
  let trace: any;

  beforeAll(() => {
    result = jsprof(['run', '--out', out, phases, '400', '7'], { env: { JSPROF_CACHE_DIR: cache } });
    trace = JSON.parse(fs.readFileSync(out, 'utf8'));
  });

  test('keeps the program output and its exit code', () => {
    expect(result.stdout).toContain('{"ok":true}');
    expect(result.status).toBe(7);
  });

  test('writes a well-formed trace of the whole run', () => {
    expectWellFormed(trace);
    expect(trace.resources).toContain(phasesUrl);
    // three phases of 400 ms at 10 ms: about 120 samples with a stack, with a wide margin
    const withStack = trace.samples.filter((s: any) => s.stackId !== undefined).length;
    expect(withStack).toBeGreaterThan(80);
  });

  test('names each phase at its V8 position and gives it about a third of the time', () => {
    const summary = summarize(trace);
    const at = (name: string) => summary.functions.find((f) => f.name === name && f.resource === phasesUrl);
    expect(at('scanPrimes')).toMatchObject({ line: 10, column: 20 });
    expect(at('build')).toMatchObject({ line: 30, column: 8 });
    expect(at('sortNumbers')).toMatchObject({ line: 44, column: 21 });
    for (const name of ['scanPrimes', 'build', 'sortNumbers']) {
      const share = at(name)!.total / summary.busy;
      expect(share).toBeGreaterThan(0.15);
      expect(share).toBeLessThan(0.5);
    }
  });

  test('time spent instrumenting modules (the cache was cold) is not charged to the program', () => {
    const summary = summarize(trace);
    const callers = summary.functions.filter((f) => f.resource === phasesUrl && f.line >= 60 && f.line <= 62);
    expect(callers.length).toBeGreaterThan(0);
    for (const caller of callers) expect(caller.self / summary.busy).toBeLessThan(0.06);
  });

  test('leaves jsprof’s own frames out', () => {
    expect(trace.resources.some((r: string) => r.includes('/packages/cli/') || r.includes('/packages/runtime/'))).toBe(false);
  });

  test('prints the hottest functions with self, total and file:line', () => {
    expect(result.stderr).toMatch(/self\s+total\s+function\s+location/);
    expect(result.stderr).toMatch(/scanPrimes\s+fixtures\/programs\/phases\.js:10/);
  });

  test('caches instrumented modules for the next run', () => {
    const entries = fs.readdirSync(cache);
    expect(entries.some((e) => e.endsWith('.meta.json'))).toBe(true);
    // A file written again (atomically, through a rename) would be a new inode.
    const files = () => fs.readdirSync(cache).map((e) => `${e} ${fs.statSync(path.join(cache, e)).ino}`);
    const before = files();
    const again = jsprof(['run', '-q', '--out', out, phases, '50'], { env: { JSPROF_CACHE_DIR: cache } });
    expect(again.status).toBe(0);
    expect(files()).toEqual(before);
  });

  test('with the cache warm, the program starts without loading jsprof\'s parser, source-map or report code (a cold start pays for what it loads)', () => {
    const dir = tempDir();
    const loaded = path.join(dir, 'loaded.txt');
    const tracer = path.join(dir, 'tracer.cjs');
    // In the program's process only (the one with jsprof's settings), each module jsprof's code loads.
    fs.writeFileSync(
      tracer,
      `const Module = require('module'); const load = Module._load;
      Module._load = function (request, parent) {
        if (process.env.JSPROF_RUN && parent && /packages\\/(cli|runtime|policy)\\/|@jsprof\\//.test(parent.filename)) require('fs').appendFileSync(${JSON.stringify(loaded)}, request + '\\n');
        return load.apply(this, arguments);
      };`,
    );
    const program = path.join(dir, 'program.js');
    fs.writeFileSync(program, `require('fs').appendFileSync(${JSON.stringify(loaded)}, 'the program starts\\n');\nfunction f(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }\nf(1e6);\n`);
    const env = { JSPROF_CACHE_DIR: path.join(dir, 'cache'), NODE_OPTIONS: `--require ${tracer}` };
    expect(jsprof(['run', '-q', '--out', path.join(dir, 'cold.json'), program], { env }).status).toBe(0);
    fs.rmSync(loaded);
    expect(jsprof(['run', '-q', '--out', path.join(dir, 'warm.json'), program], { env }).status).toBe(0);
    const lines = fs.readFileSync(loaded, 'utf8').split('\n');
    const atStart = lines.slice(0, lines.indexOf('the program starts'));
    expect(atStart).toContain('./register');
    expect(atStart.filter((r) => /acorn|magic-string|trace-mapping|remapping|estree-instrument|@jsprof\/trace-tools$|instrumenter/.test(r))).toEqual([]);
  });

  test('says how long instrumenting took when the cache was cold, as that time is in the idle samples; nothing when warm', () => {
    expect(result.stderr).toMatch(/^jsprof: instrumented 1 module in \d+ ms \(cached for the next run\); that time is in the idle samples$/m);
    const warm = jsprof(['run', '--out', out, phases, '50'], { env: { JSPROF_CACHE_DIR: cache } });
    expect(warm.stderr).toContain('jsprof: trace written to');
    expect(warm.stderr).not.toContain('jsprof: instrumented');
  });
});

describe('--sample-interval below 10 ms', () => {
  test('samples every 1 ms, as node --cpu-prof does, with the phases in the same proportions', () => {
    const dir = tempDir();
    const out = path.join(dir, 'trace.json');
    const run = jsprof(['run', '--out', out, '--sample-interval', '1', phases, '200', '0'], { env: { JSPROF_CACHE_DIR: path.join(dir, 'cache') } });
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/samples every 1 ms/);
    const trace = JSON.parse(fs.readFileSync(out, 'utf8'));
    const times = trace.samples.map((s: any) => s.timestamp);
    const gaps = times.slice(1).map((t: number, i: number) => t - times[i]).sort((a: number, b: number) => a - b);
    expect(gaps[gaps.length >> 1]).toBeGreaterThan(0.5);
    expect(gaps[gaps.length >> 1]).toBeLessThan(2);
    // three phases of 200 ms: several hundred samples with a stack (about 60 at 10 ms)
    expect(trace.samples.filter((s: any) => s.stackId !== undefined).length).toBeGreaterThan(250);
    // Each phase's function: about a third of the time the three took. (Samples taken where the
    // one-line arrows passed to spin call them go to spin, see "attribution"; a thread's zero that
    // comes a little late makes more of those at 1 ms than at 10.)
    const summary = summarize(trace);
    const totals = ['scanPrimes', 'build', 'sortNumbers'].map((name) => summary.functions.find((f) => f.name === name && f.resource === phasesUrl)!.total);
    const all = totals.reduce((a, b) => a + b, 0);
    expect(all / summary.busy).toBeGreaterThan(0.5);
    for (const total of totals) {
      expect(total / all).toBeGreaterThan(0.2);
      expect(total / all).toBeLessThan(0.5);
    }
  });
});

describe('code instrumented before it runs', () => {
  test('a file the Babel plugin built is left as it is, armed by the runtime jsprof run loaded, and profiled', () => {
    const dir = tempDir();
    const source = `function hot(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sqrt(i) * Math.sin(i);
  return s;
}
function main() { const end = Date.now() + 400; let t = 0; while (Date.now() < end) t += hot(20000); return t; }
console.log(Number.isFinite(main()));
`;
    const { transformSync } = require('@babel/core');
    const built = transformSync(source, { babelrc: false, configFile: false, sourceType: 'script', plugins: [[require('@jsprof/babel-plugin').default, { threshold: 10 }]] }).code;
    const file = path.join(dir, 'built.js');
    fs.writeFileSync(file, built);
    const out = path.join(dir, 'trace.json');
    const run = jsprof(['run', '-o', out, file], { env: { JSPROF_CACHE_DIR: path.join(dir, 'cache') } });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('true\n');
    // Not instrumented again: what ran is the file as built.
    const cached = fs.readdirSync(path.join(dir, 'cache')).filter((f) => f.endsWith('.js'));
    expect(cached.map((f) => fs.readFileSync(path.join(dir, 'cache', f), 'utf8'))).toEqual([built]);
    const summary = summarize(JSON.parse(fs.readFileSync(out, 'utf8')));
    expect(summary.busy).toBeGreaterThan(20); // it was "0 while JavaScript ran"
    const hot = summary.functions.find((f) => f.name === 'hot')!;
    expect(hot.total / summary.busy).toBeGreaterThan(0.5);
  });
});

test('code a tool compiled and ran itself (babel-jest through node:vm) keeps the names V8 gives, not those of the file on disk at its positions', () => {
  const dir = tempDir();
  const onDisk = `function fib(n) {
  let a = 0, b = 1;
  for (let i = 0; i < n; i++) [a, b] = [b, (a + b) % 1000003];
  return a;
}
function classify(n) {
  if (n < 0) return 'negative';
  if (n === 0) return 'zero';
  if (n < 10) return 'small';
  if (n < 100) return 'medium';
  if (n < 1000) return 'large';
  if (n < 10000) return 'huge';
  return 'positive';
}
module.exports = { classify, fib };
`;
  // What the tool ran instead: another text, where fib starts in what is classify's body on disk.
  const compiled = `"use strict";\nfunction fib(n) {\n  let a = 0, b = 1;\n  for (let i = 0; i < n; i++) [a, b] = [b, (a + b) % 1000003];\n  return a;\n}\nfunction classify(n) { return n < 0 ? 'negative' : n === 0 ? 'zero' : 'positive'; }\nmodule.exports = { classify, fib };\n`;
  const { transformSync } = require('@babel/core');
  const instrumented = transformSync(compiled, { babelrc: false, configFile: false, sourceType: 'script', plugins: [[require('@jsprof/babel-plugin').default, { threshold: 1 }]] }).code;
  fs.writeFileSync(path.join(dir, 'calc.js'), onDisk);
  fs.writeFileSync(path.join(dir, 'compiled.txt'), instrumented);
  fs.writeFileSync(
    path.join(dir, 'main.js'),
    `const vm = require('node:vm'); const fs = require('node:fs'); const path = require('node:path');
const m = { exports: {} };
vm.runInThisContext('(function (module) {' + fs.readFileSync(path.join(__dirname, 'compiled.txt'), 'utf8') + '\\n})', { filename: path.join(__dirname, 'calc.js') })(m);
const end = Date.now() + 400; let t = 0; while (Date.now() < end) t += m.exports.fib(5000);
console.log(Number.isFinite(t));
`,
  );
  const out = path.join(dir, 'trace.json');
  const run = jsprof(['run', '-q', '-o', out, 'main.js'], { cwd: dir, env: { JSPROF_CACHE_DIR: path.join(dir, 'cache') } });
  expect([run.status, run.stdout]).toEqual([0, 'true\n']);
  const summary = summarize(JSON.parse(fs.readFileSync(out, 'utf8')));
  const named = (name: string) => summary.functions.filter((f) => f.name === name && f.resource?.endsWith('calc.js')).reduce((n, f) => n + f.total, 0);
  expect(named('fib') / summary.busy).toBeGreaterThan(0.5);
  expect(named('classify')).toBe(0);
});

describe('attribution', () => {
  test('a sample taken at a function entry goes to the caller, which spent the time', () => {
    const dir = tempDir();
    const out = path.join(dir, 'trace.json');
    const program = path.join(FIXTURES, 'caller-work.js');
    // Without exit checks, the only check inside crunch()'s loop is at tally()'s entry.
    const run = jsprof(['run', '-q', '--no-exits', '--threshold', '8', '--out', out, program, '600']);
    expect(run.status).toBe(0);
    const summary = summarize(JSON.parse(fs.readFileSync(out, 'utf8')));
    const of = (name: string) => summary.functions.find((f) => f.name === name) ?? { self: 0, total: 0 };
    expect(of('crunch').self / summary.busy).toBeGreaterThan(0.7);
    expect(of('tally').total / summary.busy).toBeLessThan(0.2);
  });

  test('count-down: a function that loops for long between bursts of dense checks gets its share', () => {
    const dir = tempDir();
    const out = path.join(dir, 'trace.json');
    const run = jsprof(['run', '-q', '--threshold', '3', '--out', out, path.join(FIXTURES, 'long-and-dense.js'), '1200'], { env: { JSPROF_SAMPLER: 'count-down' } });
    expect(run.status).toBe(0);
    const { countPrimesShare } = JSON.parse(run.stdout);
    const summary = summarize(JSON.parse(fs.readFileSync(out, 'utf8')));
    const share = (summary.functions.find((f) => f.name === 'countPrimes')?.self ?? 0) / summary.busy;
    // Its exits read the clock every other call: before they read it at every call near the tick,
    // countPrimes got 6–29% of the samples against about 68% of the time.
    expect(share).toBeGreaterThan(countPrimesShare - 0.2);
    expect(share).toBeLessThan(countPrimesShare + 0.2);
  });

  test.each(['thread', 'count-down'])('%s: one call that loops for 1.5 s without a check is busy all along, in that function', (sampler) => {
    const dir = tempDir();
    const out = path.join(dir, 'trace.json');
    fs.writeFileSync(path.join(dir, 'one-call.js'), 'function hot(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1); return x; }\nhot(1500);\n');
    const env = sampler === 'count-down' ? { JSPROF_SAMPLER: 'count-down' } : {};
    expect(jsprof(['run', '-q', '--out', out, path.join(dir, 'one-call.js')], { env }).status).toBe(0);
    const summary = summarize(JSON.parse(fs.readFileSync(out, 'utf8')));
    // Before: only the last 500 ms of it had a stack, the rest was called idle.
    expect(summary.busy / summary.samples).toBeGreaterThan(0.8);
    expect(summary.functions.find((f) => f.name === 'hot')!.self / summary.busy).toBeGreaterThan(0.9);
  });

  test.each(['thread', 'count-down'])('%s: a one-line wrapper without checks, called over and over, takes no self time from its callers', (sampler) => {
    const dir = tempDir();
    const out = path.join(dir, 'trace.json');
    const env = sampler === 'count-down' ? { JSPROF_SAMPLER: 'count-down' } : {};
    const run = jsprof(['run', '-q', '--out', out, path.join(FIXTURES, 'wrapper-work.js'), '600'], { env });
    expect(run.status).toBe(0);
    const summary = summarize(JSON.parse(fs.readFileSync(out, 'utf8')));
    const of = (name: string) => summary.functions.find((f) => f.name === name) ?? { self: 0, total: 0 };
    // Samples at digits()'s entry check went to viaWrapper (a third to half of them before).
    expect(of('viaWrapper').self / summary.busy).toBeLessThan(0.05);
    expect((of('digits').self + of('drive').self) / summary.busy).toBeGreaterThan(0.9);
  });
});

describe('what is instrumented', () => {
  const BUSY = 'function busy(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) { for (let i = 0; i < 1000; i++) x += Math.sqrt(i); } return x; }\n';
  const busyShare = (out: string) => {
    const summary = summarize(JSON.parse(fs.readFileSync(out, 'utf8')));
    return (summary.functions.find((f) => f.name === 'busy')?.self ?? 0) / Math.max(1, summary.busy);
  };

  test('a process the program forks is instrumented, not profiled: it runs as under node, past the program\'s end too, and writes no trace', () => {
    const dir = tempDir();
    const done = path.join(dir, 'child-done.txt');
    // The program forks a child, and exits while the child still works (a daemon, a Jest worker left behind).
    fs.writeFileSync(
      path.join(dir, 'parent.js'),
      `${BUSY}const { fork } = require('child_process');
if (process.argv[2] === 'child') {
  function childWork() { return busy(300); }
  setTimeout(() => { childWork(); require('fs').writeFileSync(${JSON.stringify(done)}, String(typeof __jsprof$c)); }, 700);
} else {
  const child = fork(__filename, ['child'], { detached: true, stdio: 'ignore' });
  child.disconnect();
  child.unref();
  busy(200);
}
`,
    );
    const out = path.join(dir, 'trace.json');
    const run = jsprof(['run', '-q', '--out', out, path.join(dir, 'parent.js')]);
    expect(run.status).toBe(0);
    for (const end = Date.now() + 5000; !fs.existsSync(done) && Date.now() < end; ) spawnSync('sleep', ['0.1']);
    // The child finished its work (jsprof's end no longer ended it), instrumented, and said nothing of a trace.
    expect(fs.readFileSync(done, 'utf8')).toBe('object');
    expect(run.stderr).toBe('');
    expect(JSON.parse(fs.readFileSync(out, 'utf8')).frames.map((f: { name: string }) => f.name)).toContain('busy');
  });

  test('a script without an extension (a bin/ command), and a file a loader compiles from another language', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'tool'), `${BUSY}console.log(busy(300) > 0);\n`);
    const out = path.join(dir, 'tool.json');
    expect(jsprof(['run', '-q', '--out', out, path.join(dir, 'tool')]).stdout).toBe('true\n');
    expect(busyShare(out)).toBeGreaterThan(0.8);
    // A loader of its own (as ts-node and tsx register one): the JavaScript it compiles is instrumented.
    fs.writeFileSync(path.join(dir, 'work.typed'), `${BUSY.replace('(ms)', '(ms: number)')}module.exports = busy;\n`);
    fs.writeFileSync(
      path.join(dir, 'main.js'),
      "require.extensions['.typed'] = (module, file) => module._compile(require('fs').readFileSync(file, 'utf8').replace(': number', ''), file);\n" +
        "console.log(require('./work.typed')(300) > 0);\n",
    );
    const typed = path.join(dir, 'typed.json');
    expect(jsprof(['run', '-q', '--out', typed, path.join(dir, 'main.js')]).stdout).toBe('true\n');
    expect(busyShare(typed)).toBeGreaterThan(0.8);
  });

  test('TypeScript a loader compiles as tsx does (esbuild, an inline source map): each function named and placed in the .ts file', () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'work.ts'),
      `interface Point { x: number; y: number }
type Pair = [Point, Point];
function spinA(ms: number): number { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1); return x; }
function spinB(ms: number): number { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 2); return x; }
module.exports = (ms: number): number => spinA(ms) + spinB(ms);
`,
    );
    fs.writeFileSync(
      path.join(dir, 'main.js'),
      `const { transformSync } = require(${JSON.stringify(require.resolve('esbuild'))});
require.extensions['.ts'] = (module, file) => module._compile(transformSync(require('fs').readFileSync(file, 'utf8'), { loader: 'ts', format: 'cjs', sourcemap: 'inline', sourcefile: file }).code, file);
console.log(require('./work.ts')(300) > 0);
`,
    );
    const out = path.join(dir, 'trace.json');
    expect(jsprof(['run', '-q', '--out', out, path.join(dir, 'main.js')]).stdout).toBe('true\n');
    const work = pathToFileURL(path.join(dir, 'work.ts')).href;
    const summary = summarize(JSON.parse(fs.readFileSync(out, 'utf8')));
    const functions = summary.functions.filter((f) => f.resource === work);
    expect(functions.find((f) => f.name === 'spinA')).toMatchObject({ line: 3, column: 15 });
    expect(functions.find((f) => f.name === 'spinB')).toMatchObject({ line: 4, column: 15 });
    // each half of the time, with a wide margin
    for (const name of ['spinA', 'spinB']) expect(functions.find((f) => f.name === name)!.self / summary.busy).toBeGreaterThan(0.3);
  });

  test("the program sees what node would give it: its argv0, and no new enumerable globals (a test runner's leak check)", () => {
    const dir = tempDir();
    const script = path.join(dir, 'env.js');
    fs.writeFileSync(script, 'console.log(JSON.stringify([process.argv0, Object.keys(globalThis)]));\n');
    const plain = spawnSync(process.execPath, [script], { encoding: 'utf8' }).stdout;
    expect(jsprof(['run', '-q', '--out', path.join(dir, 't.json'), script]).stdout).toBe(plain);
  });

  test('a program whose work is all in a worker thread is told so, not left with an unexplained idle profile', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'worker.js'), `${BUSY}busy(300);\n`);
    fs.writeFileSync(path.join(dir, 'main.js'), "new (require('worker_threads').Worker)(require('path').join(__dirname, 'worker.js'));\n");
    const run = jsprof(['run', '--out', path.join(dir, 'trace.json'), path.join(dir, 'main.js')]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/no sample found JavaScript running in the program's main thread \(it waited the whole run, or its work was in worker threads or child processes, which are not profiled\)/);
  });
});

describe('attribution through built-ins', () => {
  test("a one-line callback of String.prototype.replace takes none of its caller's time", () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'callbacks.js'),
      "function expand(s) { let out = ''; for (const ch of s) out += ch === '\\t' ? '    ' : ch; return out; }\n" +
        'function parse(lines) {\n  let total = 0;\n  for (const line of lines) {\n' +
        "    total += line.split(/\\s+/).join('-').toUpperCase().length;\n" +
        "    total += line.replace(/^\\t+/, (m) => expand(m)).length;\n  }\n  return total;\n}\n" +
        "const lines = []; for (let i = 0; i < 2000; i++) lines.push('\\t' + ('word' + i + ' abc ').repeat(20));\n" +
        'const end = Date.now() + 600; let t = 0; while (Date.now() < end) t += parse(lines); console.log(t > 0);\n',
    );
    const out = path.join(dir, 'trace.json');
    expect(jsprof(['run', '-q', '--out', out, path.join(dir, 'callbacks.js')]).stdout).toBe('true\n');
    const summary = summarize(JSON.parse(fs.readFileSync(out, 'utf8')));
    const self = (name: string) => summary.functions.filter((f) => f.name === name).reduce((sum, f) => sum + f.self, 0) / summary.busy;
    // Before, the arrow (m) => expand(m) took nearly all of it; V8 gives parse most, the arrow about 0.
    expect(self('parse')).toBeGreaterThan(0.7);
    expect(self('(anonymous)') + self('')).toBeLessThan(0.1);
  });
});

describe('frame positions agree with V8', () => {
  test('every phase function is where node --cpu-prof puts it', () => {
    const dir = tempDir();
    const run = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, phases, '150'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    const profile = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0]), 'utf8'));
    const v8 = new Map<string, string>();
    for (const node of profile.nodes) {
      const f = node.callFrame;
      if (f.url === phasesUrl && f.functionName) v8.set(f.functionName, `${f.lineNumber + 1}:${f.columnNumber + 1}`);
    }
    const out = path.join(dir, 'trace.json');
    jsprof(['run', '-q', '--out', out, phases, '150']);
    const trace = JSON.parse(fs.readFileSync(out, 'utf8'));
    const ours = new Map<string, string>();
    for (const f of trace.frames) if (trace.resources[f.resourceId] === phasesUrl && f.name) ours.set(f.name, `${f.line}:${f.column}`);
    const common = [...v8.keys()].filter((name) => ours.has(name));
    expect(common).toEqual(expect.arrayContaining(['scanPrimes', 'build', 'sortNumbers', 'spin']));
    for (const name of common) expect(`${name} ${ours.get(name)}`).toBe(`${name} ${v8.get(name)}`);
  });
});

describe('node --import @jsprof/cli/register', () => {
  test('instruments an ES module and installs a working Profiler', () => {
    const run = spawnSync(process.execPath, ['--import', '@jsprof/cli/register', path.join(FIXTURES, 'esm.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, JSPROF_CACHE_DIR: path.join(tempDir(), 'cache') },
    });
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout);
    expect(report.withStack).toBeGreaterThan(0.8 * report.samples);
    expect(report.names).toContain('checksum');
    expect(report.resources).toContain(pathToFileURL(path.join(FIXTURES, 'esm.mjs')).href);
  });

  test('as a -r preload too (Node also runs it in its module hooks thread, where it must do nothing)', () => {
    // Before: status 1 and no output at all, from an unhandled rejection in the hooks thread.
    const run = spawnSync(process.execPath, ['-r', '@jsprof/cli/register', path.join(FIXTURES, 'esm.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, JSPROF_CACHE_DIR: path.join(tempDir(), 'cache') },
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).names).toContain('checksum');
  });

  test.each([
    ['{not json', /^jsprof: \$JSPROF_RUN is not JSON/],
    ['{"instrument":{"treshold":3}}', /^jsprof: \$JSPROF_RUN\.instrument: @jsprof: unknown option "treshold"/],
    ['{"sampleInterval":"fast"}', /^jsprof: \$JSPROF_RUN\.sampleInterval must be a number/],
  ])('settings it cannot use (%s) end the program at start, with one line, status 2', (settings, message) => {
    // Before: the settings were dropped silently and the program ran with the defaults.
    const run = spawnSync(process.execPath, ['--import', '@jsprof/cli/register', path.join(FIXTURES, 'esm.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, JSPROF_RUN: settings },
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });
});

describe('command line', () => {
  test('--help tells the truth about run', () => {
    const help = jsprof(['run', '--help']);
    expect(help.status).toBe(0);
    for (const flag of ['--out', '--sample-interval', '--max-buffer-size', '--threshold']) expect(help.stdout).toContain(flag);
  });

  test('a trace cut short by --max-buffer-size says so', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'app.js'), 'const end = Date.now() + 400; let x = 0; while (Date.now() < end) x++;\n');
    const run = jsprof(['run', '-q', '--max-buffer-size', '10', '--out', path.join(dir, 't.json'), path.join(dir, 'app.js')]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/^jsprof: the trace holds 10 samples, --max-buffer-size: sampling stopped 0\.\d s into the run \(raise --max-buffer-size for all of it\)\n$/);
    expect(jsprof(['run', '-q', '--out', path.join(dir, 't.json'), path.join(dir, 'app.js')]).stderr).toBe('');
  });

  test('a directory runs as node runs it (its package.json main, or index.js); one with no program is a clear error', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'app'));
    fs.writeFileSync(path.join(dir, 'app', 'index.js'), 'console.log("from index");\n');
    expect(jsprof(['run', '-q', '--out', path.join(dir, 't.json'), path.join(dir, 'app')]).stdout).toBe('from index\n');
    fs.mkdirSync(path.join(dir, 'empty'));
    const empty = jsprof(['run', '-q', '--out', path.join(dir, 't.json'), path.join(dir, 'empty')]);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/^jsprof: .*empty is a directory with no program in it \(no package\.json "main", no index\.js\)\n$/);
  });

  test('a missing script is a clear error', () => {
    const r = jsprof(['run', 'no/such/file.js']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe('jsprof: no such file: no/such/file.js');
  });

  test('a Node command on PATH named as a script (`jsprof run tsc`): the error says how to run it', () => {
    const bin = tempDir();
    fs.writeFileSync(path.join(bin, 'greet'), "#!/usr/bin/env node\nconsole.log('hi');\n", { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'native'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    const env = { PATH: `${bin}${path.delimiter}${process.env.PATH}` };
    const dir = tempDir();
    expect(jsprof(['run', 'greet'], { env, cwd: dir }).stderr.trim()).toBe(`jsprof: no such file: greet (to run the command greet: jsprof run ${fs.realpathSync(path.join(bin, 'greet'))})`);
    expect(jsprof(['run', 'native'], { env, cwd: dir }).stderr.trim()).toBe('jsprof: no such file: native');
  });

  test('the trace\'s path as a user would write it; no self-time note under a report without a function', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'idle.js'), 'setTimeout(() => {}, 50);\n');
    const run = jsprof(['run', '-o', '/dev/null', path.join(dir, 'idle.js')], { cwd: dir });
    expect(run.stderr).toContain('jsprof: trace written to /dev/null\n');
    expect(run.stderr).not.toContain('self includes');
  });

  test('a bad number is a clear error, not a stack trace', () => {
    const r = jsprof(['run', '--threshold', 'ten', path.join(FIXTURES, 'phases.js')]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('--threshold must be a whole number');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('a file jsprof refuses runs as it is, with a warning that says where and why', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'deep.js'), `console.log(${'['.repeat(600)}'deep'${']'.repeat(600)}.flat(Infinity)[0]);\n`);
    const r = jsprof(['run', '-q', '--out', path.join(dir, 't.json'), 'deep.js'], { cwd: dir, env: { JSPROF_CACHE_DIR: path.join(dir, 'cache') } });
    expect([r.status, r.stdout]).toEqual([0, 'deep\n']);
    expect(r.stderr).toMatch(/^jsprof: \S+deep\.js:1:\d+: brackets nest more than 500 deep here; jsprof leaves the file as it is\n$/);
  });

  test('the program’s own arguments pass through, flags included', () => {
    const out = path.join(tempDir(), 't.json');
    const r = jsprof(['run', '-q', '--out', out, path.join(FIXTURES, 'phases.js'), '20', '3', '--not-ours']);
    expect(r.status).toBe(3);
  });
});

