/**
 * Stack capture as the program sees it: `Error.stackTraceLimit` and `Error.prepareStackTrace` come
 * back exactly as they were, the runtime's own frames never reach a trace, and nothing the runtime
 * does throws into the program.
 */
import { Profiler, nodeResolver, setFrameResolver } from '../src/node';
import type { ProfilerTrace } from '../src';
import * as vm from 'node:vm';
import { captureStack, forgetCallSites } from '../src/capture';
import { expectValidTrace, loadWork, runChild, sleep, stackNames, withStack, WORK_FILE } from './helpers';

const work = loadWork();
const E = Error as any;
const KEYS = ['stackTraceLimit', 'prepareStackTrace'] as const;

type Snapshot = Record<(typeof KEYS)[number], PropertyDescriptor | undefined>;
function snapshot(): Snapshot {
  return {
    stackTraceLimit: Object.getOwnPropertyDescriptor(E, 'stackTraceLimit'),
    prepareStackTrace: Object.getOwnPropertyDescriptor(E, 'prepareStackTrace'),
  };
}
function put(saved: Snapshot) {
  for (const key of KEYS) {
    const descriptor = saved[key];
    if (descriptor) Object.defineProperty(E, key, { ...descriptor, configurable: true });
    else delete E[key];
  }
}

/** Profiles busy() under eight nested calls, so that stacks are deeper than small limits. */
async function profileDeep(): Promise<ProfilerTrace> {
  const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
  const nest = (n: number): number => (n === 0 ? work.busy(80) : work.callThrough(() => nest(n - 1)));
  nest(8);
  return profiler.stop();
}

function deepest(trace: ProfilerTrace): number {
  return Math.max(0, ...withStack(trace).map((s) => stackNames(trace, s.stackId).length));
}

/** Resources of the runtime's own sources (the tests themselves live in test/). */
function runtimeResources(trace: ProfilerTrace): string[] {
  return trace.resources.filter((r) => r.includes('/packages/runtime/src/'));
}

describe('a check at a function entry', () => {
  function inner(unstarted: number) {
    return captureStack(inner, unstarted);
  }
  function entered(unstarted: number) {
    return inner(unstarted);
  }
  function caller(unstarted: number) {
    return entered(unstarted);
  }

  test('leaves out the function just entered: its callers spent the time', () => {
    const full = caller(0).map((f) => f.name);
    const entry = caller(1).map((f) => f.name);
    expect(full.slice(0, 2)).toEqual(['entered', 'caller']);
    expect(entry[0]).toBe('caller');
    expect(entry).toEqual(full.slice(1));
  });

  test('keeps the function when it is the only frame', async () => {
    // A promise reaction V8 runs from its own microtask checkpoint has no caller frame.
    const names = await Promise.resolve().then(function lone() {
      return [captureStack(captureStack, 0).map((f) => f.name), captureStack(captureStack, 1).map((f) => f.name)];
    });
    expect(names).toEqual([['lone'], ['lone']]);
  });
});

describe('Error options are restored exactly', () => {
  let original: Snapshot;
  beforeEach(() => {
    original = snapshot();
  });
  afterEach(() => put(original));

  test('as Jest set them up', async () => {
    const trace = await profileDeep();
    expect(snapshot()).toEqual(original);
    if (original.prepareStackTrace) expect(E.prepareStackTrace).toBe(original.prepareStackTrace.value);
    expect(deepest(trace)).toBeGreaterThan(10);
  });

  test('a program\'s own prepareStackTrace (as source-map-support installs) and a small limit', async () => {
    const prepare = function prepareStackTrace(error: Error, sites: unknown[]) {
      return `${error.message} @ ${sites.length} sites`;
    };
    E.prepareStackTrace = prepare;
    E.stackTraceLimit = 3;
    const before = snapshot();
    const trace = await profileDeep();
    expect(snapshot()).toEqual(before);
    expect(E.prepareStackTrace).toBe(prepare);
    expect(E.stackTraceLimit).toBe(3);
    const nested = () => work.callThrough(() => work.callThrough(() => work.callThrough(() => new Error('mine').stack)));
    expect(nested()).toBe('mine @ 3 sites');
    // The runtime captured with its own limit.
    expect(deepest(trace)).toBeGreaterThan(10);
  });

  test('absent properties stay absent (and capture still works without a limit)', async () => {
    delete E.prepareStackTrace;
    delete E.stackTraceLimit;
    const trace = await profileDeep();
    expect(Object.prototype.hasOwnProperty.call(E, 'prepareStackTrace')).toBe(false);
    expect(Object.prototype.hasOwnProperty.call(E, 'stackTraceLimit')).toBe(false);
    expect(withStack(trace).length).toBeGreaterThan(3);
    expect(deepest(trace)).toBeGreaterThan(10);
  });

  test('accessors stay accessors and their setters are not called', async () => {
    const calls: string[] = [];
    let stored: unknown;
    Object.defineProperty(E, 'prepareStackTrace', {
      configurable: true,
      enumerable: true,
      get: () => stored,
      set: (value) => {
        calls.push('set');
        stored = value;
      },
    });
    Object.defineProperty(E, 'stackTraceLimit', { configurable: true, enumerable: false, writable: false, value: 7 });
    const before = snapshot();
    const trace = await profileDeep();
    expect(snapshot()).toEqual(before);
    expect(calls).toEqual([]);
    expect(deepest(trace)).toBeGreaterThan(10);
  });

  test('a non-numeric limit is kept as it was', async () => {
    E.stackTraceLimit = 'none';
    await profileDeep();
    expect(E.stackTraceLimit).toBe('none');
  });

  test('a prepareStackTrace that throws never runs for a capture', async () => {
    let calls = 0;
    E.prepareStackTrace = () => {
      calls++;
      throw new Error('formatter bug');
    };
    const trace = await profileDeep();
    expect(calls).toBe(0);
    expect(withStack(trace).length).toBeGreaterThan(3);
  });

  test('sampling inside the program\'s own prepareStackTrace (instrumented code formatting a stack)', async () => {
    const prepare = (error: Error, sites: unknown[]) => {
      work.busy(25);
      return `custom ${error.message} ${sites.length}`;
    };
    E.prepareStackTrace = prepare;
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    const formatted: string[] = [];
    for (let i = 0; i < 6; i++) formatted.push(new Error(`e${i}`).stack!);
    const trace = await profiler.stop();
    expect(E.prepareStackTrace).toBe(prepare);
    expect(formatted.every((s, i) => s.startsWith(`custom e${i} `))).toBe(true);
    const stacks = withStack(trace).map((s) => stackNames(trace, s.stackId));
    expect(stacks.length).toBeGreaterThan(5);
    expect(stacks.some((names) => names.includes('prepare') && names.includes('busy'))).toBe(true);
  });
});

describe('capture paths', () => {
  test('async callers are not on the stack (V8 call sites)', async () => {
    function probe() {
      return captureStack(probe);
    }
    async function resumed() {
      await null;
      return probe();
    }
    async function awaiting() {
      return await resumed();
    }
    const frames = await awaiting();
    expect(frames.map((f) => f.name)).toEqual(['resumed']);
  });

  test('without Error.captureStackTrace: new Error().stack, cut below the runtime\'s frames', () => {
    const saved = Object.getOwnPropertyDescriptor(E, 'captureStackTrace')!;
    let frames: ReturnType<typeof captureStack> = [];
    try {
      delete E.captureStackTrace;
      jest.isolateModules(() => {
        const isolated: typeof import('../src/capture') = require('../src/capture');
        function below() {
          return isolated.captureStack(below);
        }
        function caller() {
          return below();
        }
        frames = caller();
      });
    } finally {
      Object.defineProperty(E, 'captureStackTrace', saved);
    }
    expect(frames[0].name).toBe('caller');
    expect(frames[0].url).toBe(__filename);
    expect(frames.some((f) => f.url?.includes('/packages/runtime/src/'))).toBe(false);
  });
});

describe('call sites read before (V8)', () => {
  function probe() {
    return captureStack(probe);
  }
  function caller() {
    return probe();
  }
  function other() {
    return probe();
  }

  test('are one shared frame object, equal to a fresh read; forgetCallSites() reads them afresh', () => {
    const first = caller();
    const again = caller();
    expect(again[0]).toBe(first[0]);
    expect(first[0]).toMatchObject({ name: 'caller', url: __filename });
    expect(other()[0]).toMatchObject({ name: 'other', url: __filename });
    forgetCallSites();
    const fresh = caller();
    expect(fresh[0]).not.toBe(first[0]);
    expect(fresh[0]).toEqual(first[0]);
  });

  test('scripts sharing a name that locates no file are read each time: the same position may be another function', () => {
    const run = (name: string) =>
      vm.runInThisContext(`(function ${name}(probe) { return probe(); })`, { filename: 'evalmachine.<anonymous>' })(probe);
    expect(run('first')[0]).toMatchObject({ name: 'first', url: 'evalmachine.<anonymous>' });
    expect(run('other')[0]).toMatchObject({ name: 'other', url: 'evalmachine.<anonymous>' });
  });

  test('two calls in one function are one frame, placed where the function starts: a capture never asks V8 where the call is, which it answers by parsing the function again (Chromium: the whole file, for top-level code)', () => {
    const twoCalls = vm.runInThisContext('(function twoCalls(probe) {\n  const first = probe();\n  return [first, probe()];\n})', { filename: '/srv/bundle.js' });
    const [first, second] = twoCalls(probe);
    expect(first[0]).toEqual({ name: 'twoCalls', url: '/srv/bundle.js', line: 1, column: 2, native: false });
    expect(second[0]).toBe(first[0]);
  });
});

describe('the runtime\'s own frames never appear', () => {
  afterEach(() => setFrameResolver(nodeResolver));

  test('in a plain capture', () => {
    function caller() {
      return captureStack(caller);
    }
    function outer() {
      return caller();
    }
    const frames = outer();
    expect(frames[0].name).toBe('outer');
    expect(frames.some((f) => f.url?.includes('/packages/runtime/src/'))).toBe(false);
  });

  test('while a samplebufferfull listener runs the program\'s code', async () => {
    const watcher = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
    const small = new Profiler({ sampleInterval: 10, maxBufferSize: 2 });
    let ran = 0;
    small.addEventListener('samplebufferfull', function onFull() {
      work.busy(100);
      ran++;
    });
    work.busy(40);
    await sleep(150);
    const trace = await watcher.stop();
    await small.stop();
    expect(ran).toBe(1);
    expectValidTrace(trace);
    expect(runtimeResources(trace)).toEqual([]);
    // The listener's samples: the listener under Node's own event dispatch, nothing of ours.
    const inListener = withStack(trace)
      .map((s) => stackNames(trace, s.stackId))
      .filter((names) => names.includes('onFull'));
    expect(inListener.length).toBeGreaterThan(4);
  });

  test('while a frame resolver runs the program\'s code', async () => {
    const watcher = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
    const other = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
    work.busy(60);
    setFrameResolver((frame) => {
      work.busy(8);
      return nodeResolver(frame);
    });
    const started = performance.now();
    await other.stop();
    expect(performance.now() - started).toBeGreaterThan(20); // the resolver took ticks' worth of time
    setFrameResolver(nodeResolver);
    work.busy(30);
    const trace = await watcher.stop();
    expectValidTrace(trace);
    expect(runtimeResources(trace)).toEqual([]);
  });

  test('while an option getter runs the program\'s code', async () => {
    const watcher = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
    const options = {
      get sampleInterval() {
        work.busy(50);
        return 10;
      },
      maxBufferSize: 10,
    };
    const profiler = new Profiler(options);
    work.busy(20);
    await profiler.stop();
    const trace = await watcher.stop();
    expect(runtimeResources(trace)).toEqual([]);
    expect(withStack(trace).length).toBeGreaterThan(3);
  });
});

describe('nothing throws into the program', () => {
  test('a failing Error.captureStackTrace: samples without stacks, sampling goes on', async () => {
    const saved = E.captureStackTrace;
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    let thrown: unknown = null;
    E.captureStackTrace = () => {
      throw new Error('not today');
    };
    try {
      work.busy(80);
    } catch (error) {
      thrown = error;
    } finally {
      E.captureStackTrace = saved;
    }
    work.busy(50);
    const trace = await profiler.stop();
    expect(thrown).toBeNull();
    const broken = trace.samples.filter((s) => s.stackId === undefined).length;
    expect(broken).toBeGreaterThan(3);
    expect(withStack(trace).length).toBeGreaterThan(2);
  });

  test('a throwing samplebufferfull listener does not disturb sampling', () => {
    // In a child: Node reports a listener's exception as uncaught, which Jest would take as a failure.
    const out = runChild(`
      const rt = require(SRC + '/node.ts');
      const work = require(${JSON.stringify(WORK_FILE)});
      const errors = [];
      process.on('uncaughtException', (e) => errors.push(e.message));
      const watcher = new rt.Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
      const small = new rt.Profiler({ sampleInterval: 10, maxBufferSize: 1 });
      small.onsamplebufferfull = () => { throw new Error('listener bug'); };
      work.busy(30);
      setTimeout(async () => {
        work.busy(50);
        const trace = await watcher.stop();
        await small.stop();
        console.log(JSON.stringify({ errors, stacked: trace.samples.filter((s) => s.stackId !== undefined).length }));
      }, 40);`);
    // Reported as any listener's exception is, not thrown into the sampler.
    expect(out.errors).toEqual(['listener bug']);
    expect(out.stacked).toBeGreaterThan(4);
  });

  const frozenScript = (freezeFirst: boolean) => `
    ${freezeFirst ? 'Object.freeze(Error);' : ''}
    const rt = require(SRC + '/node.ts');
    ${freezeFirst ? '' : 'Object.freeze(Error);'}
    const work = require(${JSON.stringify(WORK_FILE)});
    const p = new rt.Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    let thrown = null;
    try { work.busy(150); } catch (e) { thrown = String(e); }
    p.stop().then((trace) => {
      const names = trace.samples.filter((s) => s.stackId !== undefined).map((s) => {
        const out = [];
        for (let id = s.stackId; id !== undefined; id = trace.stacks[id].parentId) out.unshift(trace.frames[trace.stacks[id].frameId].name);
        return out;
      });
      console.log(JSON.stringify({ thrown, samples: trace.samples.length, stacked: names.length, leaf: names.filter((n) => n.includes('busy')).length, limit: Error.stackTraceLimit }));
    });`;

  test.each([
    ['after the runtime loaded', false],
    ['before the runtime loaded', true],
  ])('a frozen Error (%s): stacks from the formatted string, nothing thrown', (_, freezeFirst) => {
    const out = runChild(frozenScript(freezeFirst));
    expect(out.thrown).toBeNull();
    expect(out.limit).toBe(10);
    expect(out.samples).toBeGreaterThan(5);
    expect(out.stacked).toBeGreaterThan(5);
    // every stack names busy(), but for ticks already due at its entry check, which charges them to its caller
    expect(out.leaf).toBeGreaterThan(5);
    expect(out.leaf).toBeGreaterThanOrEqual(0.8 * out.stacked);
  });
});
