/**
 * The Node entry (`@jsprof/runtime/node`): resources as URLs, the sampler switch, and the runtime's
 * promises about itself (no dependencies, instrumented code runs without it).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as index from '../src';
import * as node from '../src/node';
import { Profiler, nodeResolver, setFrameResolver } from '../src/node';
import { getEngine } from '../src/hook';
import { COUNTER_GLOBAL, RUNTIME_GLOBAL, SLOW_PATH_GLOBAL } from '../src/names';
import * as policy from '../../policy/src/check';
import { CHECK, ENTRY_CHECK, EXIT_SLOTS, LOOPING_EXIT_CHECK } from '../src/engine';
import { WORK_FILE, expectValidTrace, loadWork, runChild, sleep, stackFrames, withStack } from './helpers';

const work = loadWork();
const SRC = path.resolve(__dirname, '../src');

describe('resources under Node', () => {
  test('a CommonJS file is a file: URL, node internals keep their node: names', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    work.busy(60);
    // From a timer: node:internal/timers is under the callback.
    await new Promise<void>((resolve) => setTimeout(() => resolve(void work.busy(60)), 0));
    const trace = await profiler.stop();
    expectValidTrace(trace);
    expect(trace.resources).toContain(pathToFileURL(WORK_FILE).href);
    expect(trace.resources).toContain(pathToFileURL(__filename).href);
    expect(trace.resources.some((r) => r.startsWith('node:internal/timers'))).toBe(true);
    for (const resource of trace.resources) expect(resource).toMatch(/^(file:\/\/\/|node:)/);
    // Positions stay those of the file.
    const busy = trace.frames.find((f) => f.name === 'busy')!;
    expect(trace.resources[busy.resourceId!]).toBe(pathToFileURL(WORK_FILE).href);
    const source = fs.readFileSync(WORK_FILE, 'utf8').split('\n');
    expect(source[busy.line! - 1]).toContain('function busy(ms)');
  });

  test('nodeResolver converts absolute paths only', () => {
    const frame = { url: '/srv/app/a b.js', line: 3, column: 4, name: 'f', native: false };
    expect(nodeResolver(frame)).toEqual({ name: 'f', url: 'file:///srv/app/a%20b.js', line: 3, column: 4 });
    expect(nodeResolver({ ...frame, url: 'node:internal/timers' })).toEqual({ name: 'f', url: 'node:internal/timers', line: 3, column: 4 });
    expect(nodeResolver({ ...frame, url: 'file:///srv/app/m.mjs' })?.url).toBe('file:///srv/app/m.mjs');
    expect(nodeResolver({ ...frame, url: 'https://example.com/x.js' })?.url).toBe('https://example.com/x.js');
    expect(nodeResolver({ ...frame, url: null, native: true, name: 'map' })).toEqual({ name: 'map' });
  });

  test('the Node entry makes nodeResolver the default', () => {
    expect(getEngine().resolver).toBe(nodeResolver);
  });
});

describe('setFrameResolver', () => {
  afterEach(() => setFrameResolver(nodeResolver));

  async function profileBusy() {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    work.callThrough(() => work.busy(80));
    return profiler.stop();
  }

  test('names and places frames', async () => {
    setFrameResolver((frame) => (frame.native || !frame.url ? { name: frame.name } : { name: `<${frame.name}>`, url: 'app://x', line: 1, column: 1 }));
    const trace = await profileBusy();
    expect(trace.resources).toEqual(['app://x']);
    expect(trace.frames.some((f) => f.name === '<busy>')).toBe(true);
    expectValidTrace(trace);
  });

  test('a frame resolved to null is left out, its time charged to its caller', async () => {
    setFrameResolver((frame) => (frame.name === 'leaf' ? null : nodeResolver(frame)));
    const trace = await profileBusy();
    expectValidTrace(trace);
    expect(trace.frames.some((f) => f.name === 'leaf')).toBe(false);
    const leaves = withStack(trace).map((s) => stackFrames(trace, s.stackId).pop()!.name);
    expect(leaves.length).toBeGreaterThan(3);
    expect(leaves.every((name) => name === 'busy')).toBe(true);
  });

  test('a resolver that throws does not lose the trace', async () => {
    setFrameResolver(() => {
      throw new Error('resolver bug');
    });
    const trace = await profileBusy();
    expectValidTrace(trace);
    expect(trace.frames.some((f) => f.name === 'busy')).toBe(true);
  });
});

describe('the package', () => {
  test('@jsprof/runtime/node re-exports the index', () => {
    for (const key of Object.keys(index)) expect((node as any)[key]).toBe((index as any)[key]);
    expect(typeof node.useSamplerThread).toBe('function');
    for (const name of ['Profiler', 'profile', 'install', 'setFrameResolver', 'samplerStats', 'checkCounter', 'checkTrap', 'effectiveInterval', 'BASE_INTERVAL', 'parseStack', 'parseV8Stack', 'parseAtStack']) {
      expect(index).toHaveProperty(name);
    }
    expect(typeof index.Profiler.prototype.stopSync).toBe('function');
  });

  // snippet.ts is for build tools, in Node: no other file imports it, so no browser build has it.
  test('has no dependencies; node: builtins only in node.ts and snippet.ts', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(SRC, '../package.json'), 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
    for (const file of fs.readdirSync(SRC).filter((f) => f.endsWith('.ts'))) {
      const source = fs.readFileSync(path.join(SRC, file), 'utf8');
      const specifiers = [
        ...source.matchAll(/^(?:import|export)\b[^;]*?from\s*['"]([^'"]+)['"]/gm),
        ...source.matchAll(/\brequire\(\s*['"]([^'"]+)['"]/g),
      ].map((m) => m[1]);
      for (const specifier of specifiers) {
        if (specifier.startsWith('node:')) expect(['node.ts', 'snippet.ts']).toContain(file);
        else expect(specifier).toMatch(/^\.\//);
        expect(specifier).not.toBe('./snippet');
      }
    }
  });

  test('the checks reach the runtime through the global and the names the policy gives, with its kinds', () => {
    expect([RUNTIME_GLOBAL, COUNTER_GLOBAL, SLOW_PATH_GLOBAL]).toEqual([policy.RUNTIME_GLOBAL, policy.COUNTER_ID, policy.SLOW_PATH_ID]);
    const hook = (globalThis as any)[RUNTIME_GLOBAL];
    expect([hook[policy.HOOK_COUNTER], hook[policy.HOOK_SLOW_PATH]]).toEqual([index.checkCounter, index.checkTrap]);
    // ES modules' checks read the two as globals.
    expect([(globalThis as any)[COUNTER_GLOBAL], (globalThis as any)[SLOW_PATH_GLOBAL]]).toEqual([hook.c, hook.s]);
    expect(Object.keys(globalThis)).not.toEqual(expect.arrayContaining([COUNTER_GLOBAL]));
    expect(index).toHaveProperty(policy.IMPORTED_COUNTER, hook.c);
    expect(index).toHaveProperty(policy.IMPORTED_SLOW_PATH, hook.s);
    expect([CHECK, ENTRY_CHECK, LOOPING_EXIT_CHECK, EXIT_SLOTS]).toEqual([policy.CHECK_KIND, policy.ENTRY_CHECK_KIND, policy.LOOPING_EXIT_CHECK_KIND, policy.EXIT_SLOTS]);
    expect(hook.c).toHaveLength(1 + EXIT_SLOTS);
    // The hand-instrumented fixture carries exactly what the transform inserts.
    const fixture = fs.readFileSync(WORK_FILE, 'utf8');
    expect(fixture).toContain(policy.GLOBAL_PRELUDE_SOURCE);
    expect(fixture.split(policy.ENTRY_CHECK_SOURCE).length - 1).toBe(5);
    expect(fixture.split(policy.CHECK_SOURCE).length - 1).toBe(2);
  });

  test('a second copy of the runtime in the realm shares the sampler', async () => {
    let copy: typeof import('../src/node') | undefined;
    jest.isolateModules(() => {
      copy = require('../src/node');
    });
    expect(copy!.Profiler).not.toBe(Profiler);
    expect(copy!.checkCounter).toBe(index.checkCounter);
    expect(copy!.checkTrap).toBe(index.checkTrap);
    const mine = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    const theirs = new copy!.Profiler({ sampleInterval: 30, maxBufferSize: 1000 });
    work.busy(200);
    const [a, b] = await Promise.all([mine.stop(), theirs.stop()]);
    const times = new Set(a.samples.map((s) => s.timestamp));
    expect(b.samples.length).toBeGreaterThan(2);
    expect(b.samples.every((s) => times.has(s.timestamp))).toBe(true);
  });
});

describe('in a fresh process', () => {
  const profileScript = `
    const rt = require(SRC + '/node.ts');
    const work = require(${JSON.stringify(WORK_FILE)});
    (async () => {
      const p = new rt.Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
      // The thread takes a moment to come up (longer on a loaded machine).
      const until = performance.now() + 5000;
      while (rt.samplerStats().mode !== 'thread' && performance.now() < until) { work.busy(5); await new Promise((r) => setTimeout(r, 10)); }
      work.busy(100);
      const trace = await p.stop();
      console.log(JSON.stringify({ mode: rt.samplerStats().mode, stacked: trace.samples.filter((s) => s.stackId !== undefined).length }));
    })();`;

  test('samples from a thread by default', () => {
    const out = runChild(profileScript);
    expect(out.mode).toBe('thread');
    expect(out.stacked).toBeGreaterThan(5);
  });

  test('JSPROF_SAMPLER=count-down keeps sampling on the main thread', () => {
    const out = runChild(profileScript, { JSPROF_SAMPLER: 'count-down' });
    expect(out.mode).toBe('count-down');
    expect(out.stacked).toBeGreaterThan(5);
  });

  test('instrumented code runs unchanged without the runtime', () => {
    const out = runChild(`
      const work = require(${JSON.stringify(WORK_FILE)});
      const area = new work.Shape(20).area;
      console.log(JSON.stringify({ area: area > 0, leaf: work.leaf(100), hook: typeof globalThis.${RUNTIME_GLOBAL} }));`);
    expect(out).toEqual({ area: true, leaf: work.leaf(100), hook: 'undefined' });
  });

  /** Runs a script file (not `-e`, whose wrapper writes to the global) that freezes the global; its stdout's JSON and its stderr. */
  function runFrozen(script: string, env: Record<string, string> = {}) {
    const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
    const file = path.join(fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'jsprof-frozen-')), 'frozen.js');
    fs.writeFileSync(file, `const SRC = ${JSON.stringify(SRC)};\n${script}`);
    const run = spawnSync(process.execPath, ['-r', require.resolve('./support/register-ts.js'), file], { encoding: 'utf8', timeout: 30000, env: { ...process.env, ...env } });
    if (run.status !== 0) throw new Error(`child failed (${run.status}): ${run.stderr}`);
    return { out: JSON.parse(run.stdout), stderr: run.stderr };
  }
  const profileBusy = `
      const work = require(${JSON.stringify(WORK_FILE)});
      const p = new rt.Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
      work.busy(100);
      p.stop().then((trace) => console.log(JSON.stringify({ stacked: trace.samples.filter((s) => s.stackId !== undefined).length, profiler: typeof globalThis.Profiler })));`;

  test('a frozen global: the runtime loads without throwing and says once what is lost', () => {
    const { out, stderr } = runFrozen(`Object.freeze(globalThis);\nconst rt = require(SRC + '/node.ts');\nrt.install();${profileBusy}`);
    expect(out.profiler).toBe('undefined');
    expect(stderr.match(/jsprof: the global object is frozen/g)).toHaveLength(1);
  });

  test('loaded before the global is frozen, the runtime takes samples with stacks', () => {
    const { out, stderr } = runFrozen(`const rt = require(SRC + '/node.ts');\nObject.freeze(globalThis);${profileBusy}`, { JSPROF_SAMPLER: 'count-down' });
    expect(out.stacked).toBeGreaterThan(3);
    expect(stderr).toBe('');
  });

  test('the process exits while the sampler thread runs and no profiler was stopped', () => {
    const out = runChild(`
      const rt = require(SRC + '/node.ts');
      const work = require(${JSON.stringify(WORK_FILE)});
      const p = new rt.Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
      work.busy(50);
      process.on('exit', () => console.log(JSON.stringify({ samples: p.stopSync().samples.length })));`);
    expect(out.samples).toBeGreaterThan(0);
  });
});

describe('a preload that starts a profiler', () => {
  /** Runs a program whose preload (a -r module, loading the built runtime) starts a profiler; returns the threads the preload ran in and how many samples had a stack. */
  function runWithPreload(via: 'command line' | 'NODE_OPTIONS') {
    const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
    const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'jsprof-preload-'));
    const log = path.join(dir, 'threads.log');
    const preload = path.join(dir, 'start-profiling.js');
    fs.writeFileSync(
      preload,
      `require('node:fs').appendFileSync(${JSON.stringify(log)}, require('node:worker_threads').threadId + '\\n');
      globalThis.profiler = new (require(${JSON.stringify(require.resolve('@jsprof/runtime/node'))}).Profiler)({ sampleInterval: 10, maxBufferSize: 1000 });`,
    );
    const program = `const work = require(${JSON.stringify(WORK_FILE)});
      work.busy(400);
      globalThis.profiler.stop().then((t) => console.log(JSON.stringify({ stacked: t.samples.filter((s) => s.stackId !== undefined).length })));`;
    const preloads = ['--require', preload];
    const result = spawnSync(process.execPath, via === 'command line' ? [...preloads, '-e', program] : ['-e', program], {
      encoding: 'utf8',
      env: { ...process.env, ...(via === 'NODE_OPTIONS' ? { NODE_OPTIONS: preloads.join(' ') } : {}) },
      timeout: 30000,
    });
    expect([result.status, result.stderr]).toEqual([0, '']);
    const threads = new Set(fs.readFileSync(log, 'utf8').trim().split('\n'));
    fs.rmSync(dir, { recursive: true, force: true });
    return { threads, stacked: JSON.parse(result.stdout.trim().split('\n').pop()!).stacked };
  }

  test('on the command line, it does not run in the sampler thread', () => {
    const { threads, stacked } = runWithPreload('command line');
    expect([...threads]).toEqual(['0']);
    expect(stacked).toBeGreaterThan(10);
  });

  test('in NODE_OPTIONS it runs in the sampler thread too, which starts no thread in turn', () => {
    const { threads, stacked } = runWithPreload('NODE_OPTIONS');
    expect(threads.size).toBeLessThanOrEqual(2);
    expect(stacked).toBeGreaterThan(10);
  });
});

test('sleep helper is real time', async () => {
  const t = performance.now();
  await sleep(20);
  expect(performance.now() - t).toBeGreaterThanOrEqual(15);
});
