/**
 * The Profiler API as native Chromium behaves (docs/design.md, "What native Chromium does"), on a Node
 * runtime with the sampler thread.
 */
import { BASE_INTERVAL, Profiler, effectiveInterval, install, profile, setBaseInterval } from '../src/node';
import type { ProfilerTrace } from '../src';
import { getEngine } from '../src/hook';
import { expectValidTrace, loadWork, sleep, stackNames, withStack } from './helpers';

const work = loadWork();

async function stopAll(profilers: Profiler[]) {
  await Promise.all(profilers.filter((p) => !p.stopped).map((p) => p.stop()));
}

describe('construction', () => {
  test('Profiler is an EventTarget with the spec attributes', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 10 });
    expect(profiler).toBeInstanceOf(EventTarget);
    expect(profiler.sampleInterval).toBe(10);
    expect(profiler.stopped).toBe(false);
    await profiler.stop();
  });

  test('a negative sampleInterval is a RangeError, and so is one over INT_MAX microseconds, as native Chromium', () => {
    expect(() => new Profiler({ sampleInterval: -1, maxBufferSize: 10 })).toThrow(RangeError);
    expect(() => new Profiler({ sampleInterval: -0.001, maxBufferSize: 10 })).toThrow(RangeError);
    expect(() => new Profiler({ sampleInterval: 2147483.648, maxBufferSize: 10 })).toThrow(new RangeError("Failed to construct 'Profiler': Invalid sample interval."));
    expect(() => new Profiler({ sampleInterval: 1e300, maxBufferSize: 10 })).toThrow(RangeError);
  });

  test("options are read as native Chromium's bindings read them: maxBufferSize first, each once, BigInt and Symbol refused", () => {
    const read: string[] = [];
    const options = {
      get sampleInterval() {
        read.push('sampleInterval');
        return 10;
      },
      get maxBufferSize() {
        read.push('maxBufferSize');
        return 10;
      },
    };
    const profiler = new Profiler(options);
    expect(read).toEqual(['maxBufferSize', 'sampleInterval']);
    profiler.stopSync();
    expect(() => new Profiler({} as any)).toThrow("Failed to read the 'maxBufferSize' property from 'ProfilerInitOptions': Required member is undefined.");
    expect(() => new Profiler({ sampleInterval: 10n, maxBufferSize: 10 } as any)).toThrow(new TypeError("Failed to construct 'Profiler': Failed to read the 'sampleInterval' property from 'ProfilerInitOptions': Cannot convert a BigInt value to a number"));
    expect(() => new Profiler({ sampleInterval: 10, maxBufferSize: Symbol('n') } as any)).toThrow("Cannot convert a Symbol value to a number");
    expect(() => (new (Profiler as any)())).toThrow("Failed to construct 'Profiler': 1 argument required, but only 0 present.");
    // Chromium says "The provided value is not of type 'ProfilerInitOptions'" here (differences-from-chromium.md).
    expect(() => new Profiler(5 as any)).toThrow(TypeError);
  });

  test.each([
    ['no options', undefined],
    ['null', null],
    ['no sampleInterval', { maxBufferSize: 10 }],
    ['no maxBufferSize', { sampleInterval: 10 }],
    ['neither', {}],
    ['NaN', { sampleInterval: NaN, maxBufferSize: 10 }],
    ['Infinity', { sampleInterval: Infinity, maxBufferSize: 10 }],
    ['-Infinity', { sampleInterval: -Infinity, maxBufferSize: 10 }],
    ['a non-numeric string', { sampleInterval: 'soon', maxBufferSize: 10 }],
    ['negative but no maxBufferSize', { sampleInterval: -1 }],
  ])('%s is a TypeError', (_, options) => {
    expect(() => new Profiler(options as any)).toThrow(TypeError);
  });

  test.each([
    [0, 10],
    [1, 10],
    [5, 10],
    [9, 10],
    [10, 10],
    [10.5, 10],
    [10.9, 10],
    [20.5, 20],
    [11, 20],
    [15, 20],
    [16, 20],
    [20, 20],
    [25, 30],
    [100, 100],
    [1001, 1010],
  ])('sampleInterval %p is rounded up to %p', async (requested, effective) => {
    expect(effectiveInterval(requested)).toBe(effective);
    const profiler = new Profiler({ sampleInterval: requested, maxBufferSize: 10 });
    expect(profiler.sampleInterval).toBe(effective);
    await profiler.stop();
  });

  test('the base interval is 10 ms', () => {
    expect(BASE_INTERVAL).toBe(10);
  });

  test('a tool may set a finer grid while no profiler samples (setBaseInterval); intervals then round to it', async () => {
    expect(setBaseInterval(1)).toBe(true);
    try {
      const profiler = new Profiler({ sampleInterval: 2.5, maxBufferSize: 10 });
      expect(profiler.sampleInterval).toBe(2);
      expect(setBaseInterval(10)).toBe(false);
      await profiler.stop();
    } finally {
      expect(setBaseInterval(BASE_INTERVAL)).toBe(true);
    }
    const profiler = new Profiler({ sampleInterval: 1, maxBufferSize: 10 });
    expect(profiler.sampleInterval).toBe(10);
    await profiler.stop();
  });

  test('more than 100 concurrent profilers is a TypeError, full ones included', async () => {
    const profilers: Profiler[] = [];
    try {
      // One of them fills up at once: it still counts until stopped, as in V8.
      profilers.push(new Profiler({ sampleInterval: 10, maxBufferSize: 0 }));
      for (let i = 1; i < 100; i++) profilers.push(new Profiler({ sampleInterval: 10, maxBufferSize: 1000 }));
      work.busy(30);
      await sleep(20);
      expect(() => new Profiler({ sampleInterval: 10, maxBufferSize: 10 })).toThrow(TypeError);
      await profilers[0].stop();
      const another = new Profiler({ sampleInterval: 10, maxBufferSize: 10 });
      profilers.push(another);
      expect(() => new Profiler({ sampleInterval: 10, maxBufferSize: 10 })).toThrow(TypeError);
    } finally {
      await stopAll(profilers);
    }
    // All stopped: the limit is free again.
    await new Profiler({ sampleInterval: 10, maxBufferSize: 10 }).stop();
  });
});

describe('stop', () => {
  test('stop() resolves the trace and sets stopped', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    work.busy(50);
    const promise = profiler.stop();
    expect(promise).toBeInstanceOf(Promise);
    expect(profiler.stopped).toBe(true);
    const trace = await promise;
    expectValidTrace(trace);
    expect(withStack(trace).length).toBeGreaterThan(0);
    // A plain, serialisable dictionary.
    expect(JSON.parse(JSON.stringify(trace))).toEqual(trace);
  });

  test('a second stop() rejects with an InvalidStateError DOMException', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 10 });
    await profiler.stop();
    const error = await profiler.stop().then(
      () => null,
      (e) => e,
    );
    expect(error).toBeInstanceOf(DOMException);
    expect(error.name).toBe('InvalidStateError');
    expect(profiler.stopped).toBe(true);
  });

  test("a page's replaced Promise (zone.js's) is not what a second stop() and profile() return: native promises, as native Chromium's", async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 10 });
    await profiler.stop();
    const NativePromise = Promise;
    class PagePromise<T> extends Promise<T> {}
    (globalThis as any).Promise = PagePromise;
    let second: Promise<unknown>;
    let started: Promise<Profiler>;
    let refused: Promise<Profiler>;
    try {
      second = profiler.stop();
      started = profile({ sampleInterval: 10, maxBufferSize: 10 });
      refused = profile({ sampleInterval: -1, maxBufferSize: 10 });
    } finally {
      (globalThis as any).Promise = NativePromise;
    }
    for (const promise of [second, started, refused]) expect(Object.getPrototypeOf(promise)).toBe(NativePromise.prototype);
    await expect(second).rejects.toMatchObject({ name: 'InvalidStateError' });
    await expect(refused).rejects.toBeInstanceOf(RangeError);
    await (await started).stop();
  });

  test('stopSync() returns the trace at once; stop() after it rejects', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    work.busy(40);
    const trace = profiler.stopSync();
    expectValidTrace(trace);
    expect(trace.samples.length).toBeGreaterThan(0);
    expect(profiler.stopped).toBe(true);
    await expect(profiler.stop()).rejects.toMatchObject({ name: 'InvalidStateError' });
    expect(() => profiler.stopSync()).toThrow(expect.objectContaining({ name: 'InvalidStateError' }));
  });

  test('no samples are taken after stop()', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    work.busy(30);
    const trace = await profiler.stop();
    const end = performance.now();
    work.busy(50);
    await sleep(30);
    expect(trace.samples.every((s) => s.timestamp <= end)).toBe(true);
  });
});

describe('samplebufferfull', () => {
  test('exactly maxBufferSize samples, one Event in a later task, stopped stays false', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 5 });
    const events: Event[] = [];
    profiler.addEventListener('samplebufferfull', (event) => events.push(event));
    work.busy(150); // ~15 ticks: the buffer fills during this task
    expect(events).toHaveLength(0);
    await Promise.resolve();
    expect(events).toHaveLength(0); // not a microtask either
    await sleep(30);
    expect(events).toHaveLength(1);
    expect(events[0]).toBeInstanceOf(Event);
    expect(events[0].type).toBe('samplebufferfull');
    expect(events[0].target).toBe(profiler);
    expect(profiler.stopped).toBe(false);
    work.busy(60);
    await sleep(60);
    expect(events).toHaveLength(1);
    expect(profiler.stopped).toBe(false);
    const trace = await profiler.stop();
    expect(profiler.stopped).toBe(true);
    expect(trace.samples).toHaveLength(5);
    expectValidTrace(trace);
  });

  test('stopped in the task the buffer filled in, it fires no samplebufferfull, as native Chromium', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 2 });
    const events: boolean[] = [];
    profiler.addEventListener('samplebufferfull', () => events.push(profiler.stopped));
    work.busy(80);
    const trace = await profiler.stop();
    await sleep(40);
    expect(events).toEqual([]);
    expect(trace.samples).toHaveLength(2);
  });

  test('filled by the ticks stop() takes for code without checks, it fires no samplebufferfull either', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 2 });
    const events: boolean[] = [];
    profiler.addEventListener('samplebufferfull', () => events.push(profiler.stopped));
    // This test file has no checks: the ticks of this loop are taken by stop(), which fills the buffer.
    const end = performance.now() + 100;
    while (performance.now() < end);
    const trace = await profiler.stop();
    await sleep(40);
    expect(trace.samples).toHaveLength(2);
    expect(events).toEqual([]);
  });

  test('the onsamplebufferfull attribute', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 2 });
    expect(profiler.onsamplebufferfull).toBeNull();
    const calls: Array<{ self: unknown; event: Event }> = [];
    const handler = function (this: unknown, event: Event) {
      calls.push({ self: this, event });
    };
    profiler.onsamplebufferfull = handler;
    expect(profiler.onsamplebufferfull).toBe(handler);
    work.busy(50);
    await sleep(30);
    expect(calls).toHaveLength(1);
    expect(calls[0].self).toBe(profiler);
    expect(calls[0].event).toBeInstanceOf(Event);
    expect((await profiler.stop()).samples).toHaveLength(2);
  });

  test('onsamplebufferfull = null removes the handler; replacing it keeps one', async () => {
    const removed = new Profiler({ sampleInterval: 10, maxBufferSize: 1 });
    const replaced = new Profiler({ sampleInterval: 10, maxBufferSize: 1 });
    const calls: string[] = [];
    removed.onsamplebufferfull = () => calls.push('removed');
    removed.onsamplebufferfull = null;
    expect(removed.onsamplebufferfull).toBeNull();
    replaced.onsamplebufferfull = () => calls.push('first');
    replaced.onsamplebufferfull = () => calls.push('second');
    work.busy(40);
    await sleep(30);
    expect(calls).toEqual(['second']);
    await stopAll([removed, replaced]);
  });

  test('maxBufferSize 0 gives an empty trace', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 0 });
    work.busy(50);
    await sleep(30);
    const trace = await profiler.stop();
    expect(trace).toEqual({ resources: [], frames: [], stacks: [], samples: [] });
  });

  test('a full profiler does not stop the others', async () => {
    const small = new Profiler({ sampleInterval: 10, maxBufferSize: 2 });
    const large = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    work.busy(200);
    const [a, b] = await Promise.all([small.stop(), large.stop()]);
    expect(a.samples).toHaveLength(2);
    expect(b.samples.length).toBeGreaterThan(10);
  });
});

describe('samples', () => {
  test('timestamps are performance.now() values, ascending', async () => {
    const before = performance.now();
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    work.busy(80);
    await sleep(40);
    work.busy(40);
    const trace = await profiler.stop();
    const after = performance.now();
    expect(trace.samples.length).toBeGreaterThan(5);
    for (const s of trace.samples) {
      expect(s.timestamp).toBeGreaterThanOrEqual(before);
      expect(s.timestamp).toBeLessThanOrEqual(after);
    }
    expectValidTrace(trace);
  });

  test('code without checks that ran up to stop() leaves its samples, charged to the caller of stop()', async () => {
    // This test file has no checks: no sample can be taken while the loop runs, and no idle timer fires.
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    const end = performance.now() + 200;
    while (performance.now() < end);
    const trace = await profiler.stop();
    // Native Chromium gives about 20; before, none.
    expect(trace.samples.length).toBeGreaterThanOrEqual(10);
    expect(trace.samples.filter((s) => s.stackId !== undefined).length).toBeGreaterThanOrEqual(10);
    expectValidTrace(trace);
  });

  test('idle time gives samples without a stack', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    const start = performance.now();
    await sleep(250);
    const elapsed = performance.now() - start;
    const trace = await profiler.stop();
    expect(trace.samples.length).toBeGreaterThanOrEqual(Math.floor((elapsed / 10) * 0.5));
    expect(trace.samples.every((s) => s.stackId === undefined)).toBe(true);
    expect(trace.stacks).toEqual([]);
  });

  test('idle and busy phases: stacks only while code runs', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    await sleep(100);
    const busyFrom = performance.now();
    work.busy(100);
    const busyTo = performance.now();
    await sleep(100);
    const trace = await profiler.stop();
    // Away from the edges: a tick that falls due while idle is taken by the idle timer, or, when that
    // timer is late (a loaded machine), by the first check after, with that check's stack.
    const busySamples = trace.samples.filter((s) => s.timestamp > busyFrom + 10 && s.timestamp < busyTo);
    const idleSamples = trace.samples.filter((s) => s.timestamp < busyFrom - 30 || s.timestamp > busyTo + 30);
    expect(busySamples.length).toBeGreaterThan(4);
    expect(busySamples.every((s) => s.stackId !== undefined)).toBe(true);
    expect(idleSamples.length).toBeGreaterThan(6);
    expect(idleSamples.every((s) => s.stackId === undefined)).toBe(true);
  });

  test('stacks name the running functions, parent-first and deduplicated', async () => {
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    new work.Shape(60);
    work.busy(60);
    const trace = await profiler.stop();
    expectValidTrace(trace);
    const names = withStack(trace).map((s) => stackNames(trace, s.stackId));
    expect(names.some((n) => n.join('>').endsWith('Shape>busy>leaf') || n.join('>').endsWith('Shape>busy'))).toBe(true);
    expect(names.some((n) => !n.includes('Shape') && n.includes('busy'))).toBe(true);
    // Each function is one frame however often it was sampled.
    expect(trace.frames.filter((f) => f.name === 'busy')).toHaveLength(1);
    expect(trace.frames.filter((f) => f.name === 'leaf')).toHaveLength(1);
  });

  test('two concurrent profilers (10 and 30 ms) share one sampler', async () => {
    const fine = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    const coarse = new Profiler({ sampleInterval: 25, maxBufferSize: 1000 });
    expect(coarse.sampleInterval).toBe(30);
    work.busy(400);
    await sleep(100);
    work.busy(100);
    const [a, b] = await Promise.all([fine.stop(), coarse.stop()]);
    expect(b.samples.length).toBeGreaterThan(5);
    const fineByTime = new Map(a.samples.map((s) => [s.timestamp, s]));
    for (const s of b.samples) {
      expect(fineByTime.has(s.timestamp)).toBe(true);
      // The same sample: the same stack, in each trace's own ids.
      expect(stackNames(b, s.stackId)).toEqual(stackNames(a, fineByTime.get(s.timestamp)!.stackId));
    }
    const ratio = a.samples.length / b.samples.length;
    expect(ratio).toBeGreaterThan(2.5);
    expect(ratio).toBeLessThan(3.6);
  });

  test('a profiler started later joins the running grid', async () => {
    const first = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    work.busy(55);
    const second = new Profiler({ sampleInterval: 20, maxBufferSize: 1000 });
    work.busy(200);
    const [a, b] = await Promise.all([first.stop(), second.stop()]);
    const times = new Set(a.samples.map((s) => s.timestamp));
    expect(b.samples.length).toBeGreaterThan(4);
    expect(b.samples.every((s) => times.has(s.timestamp))).toBe(true);
  });
});

describe('memory', () => {
  test('the shared stack store is emptied when no profiler holds samples', async () => {
    const store = getEngine().store;
    const full = new Profiler({ sampleInterval: 10, maxBufferSize: 3 });
    const running = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
    new work.Shape(80);
    await running.stop();
    // The full profiler's samples still point into the store.
    expect(store.frames.length).toBeGreaterThan(0);
    const trace = await full.stop();
    expect(trace.samples).toHaveLength(3);
    expect(stackNames(trace, trace.samples[2].stackId)).toContain('busy');
    expect(store.frames).toHaveLength(0);
    expect(store.stacks).toHaveLength(0);
  });
});

describe('performance.profile and install()', () => {
  const realm = globalThis as any;
  let saved: { Profiler?: PropertyDescriptor; profile?: PropertyDescriptor };
  beforeEach(() => {
    saved = {
      Profiler: Object.getOwnPropertyDescriptor(realm, 'Profiler'),
      profile: Object.getOwnPropertyDescriptor(performance, 'profile'),
    };
  });
  afterEach(() => {
    for (const [target, key, descriptor] of [
      [realm, 'Profiler', saved.Profiler],
      [performance, 'profile', saved.profile],
    ] as const) {
      if (descriptor) Object.defineProperty(target, key, descriptor);
      else delete (target as any)[key];
    }
  });

  test('install() puts Profiler and performance.profile in place', async () => {
    expect(install()).toBe(Profiler);
    expect(realm.Profiler).toBe(Profiler);
    const profiler = await (performance as any).profile({ sampleInterval: 15, maxBufferSize: 100 });
    expect(profiler).toBeInstanceOf(Profiler);
    expect(profiler.sampleInterval).toBe(20);
    work.busy(30);
    const trace: ProfilerTrace = await profiler.stop();
    expectValidTrace(trace);
  });

  test('profile() rejects as the constructor throws', async () => {
    await expect(profile({ sampleInterval: -5, maxBufferSize: 1 })).rejects.toBeInstanceOf(RangeError);
    await expect(profile({ sampleInterval: 10 } as any)).rejects.toBeInstanceOf(TypeError);
  });

  test('install() replaces a native Profiler; with preferNative it keeps one that can be constructed', () => {
    let constructed = 0;
    class Working {
      constructor(_options: unknown) {
        constructed++;
      }
      stop() {
        return Promise.resolve({ resources: [], frames: [], stacks: [], samples: [] });
      }
    }
    realm.Profiler = Working;
    expect(install({ preferNative: true })).toBe(Working);
    expect(realm.Profiler).toBe(Working);
    expect(constructed).toBe(1);
    expect(install()).toBe(Profiler);
    expect(constructed).toBe(1);
    expect(install({ preferNative: true })).toBe(Working);

    realm.Profiler = class {
      constructor() {
        throw new DOMException('Document policy', 'NotAllowedError');
      }
    };
    expect(install({ preferNative: true })).toBe(Profiler);
    expect(realm.Profiler).toBe(Profiler);
  });

});
