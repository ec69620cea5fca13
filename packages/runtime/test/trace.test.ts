/** The shared StackStore and the trace builder. */
import type { RawFrame } from '../src/capture';
import { StackStore, buildTrace, defaultResolver } from '../src/trace';
import { expectValidTrace, stackNames } from './helpers';

function frame(name: string, url: string | null = 'https://app.example/main.js', line = 1, column = 1): RawFrame {
  return { name, url, line, column, native: url === null };
}

describe('StackStore', () => {
  test('interns frames and stacks; stacks share their prefixes', () => {
    const store = new StackStore();
    const main = frame('main', undefined, 1, 1);
    const a = frame('a', undefined, 10, 1);
    const b = frame('b', undefined, 20, 1);
    const ab = store.add([b, a, main]); // innermost first
    const again = store.add([{ ...b }, { ...a }, { ...main }]);
    const a2 = store.add([a, main]);
    expect(again).toBe(ab);
    expect(store.frames).toHaveLength(3);
    expect(store.stacks.length / 2).toBe(3); // main, main>a, main>a>b
    expect(store.stacks[2 * ab]).toBe(a2); // b's parent is main>a
    expect(store.add([])).toBe(-1);
  });

  test('stacks that share outer frames with the one before, or differ from it anywhere, get the ids a fresh store gives', () => {
    const main = frame('main', undefined, 1, 1);
    const f = (name: string, line: number, column = 1) => frame(name, undefined, line, column);
    const stacks = [
      [f('c', 30), f('b', 20), f('a', 10), main],
      [f('d', 40), f('b', 20), f('a', 10), main],
      [f('a', 10), main],
      [f('b', 20, 9), f('a', 10), main], // b at another position (another engine's call site)
      [f('c', 30), f('b', 20), f('a', 10), main],
      [f('x', 50), f('b', 20), f('a', 10), { ...main, url: 'https://other.example/main.js' }],
      [main],
      [],
      [f('d', 40), f('b', 20), f('a', 10), main],
    ];
    const shared = new StackStore();
    const ids = stacks.map((s) => shared.add(s));
    const names = (store: StackStore, id: number) => {
      const out: string[] = [];
      for (let at = id; at >= 0; at = store.stacks[2 * at]) {
        const raw = store.frames[store.stacks[2 * at + 1]];
        out.unshift(`${raw.name}@${raw.url}:${raw.line}:${raw.column}`);
      }
      return out;
    };
    stacks.forEach((s, i) => {
      const fresh = new StackStore();
      expect(names(shared, ids[i])).toEqual(names(fresh, fresh.add(s)));
    });
    expect(ids[4]).toBe(ids[0]);
    expect(ids[8]).toBe(ids[1]);
    expect(ids[7]).toBe(-1);
  });

  test('frames of one function at different call sites (engines other than V8) are different raw frames', () => {
    const store = new StackStore();
    store.add([frame('f', undefined, 6, 3)]);
    store.add([frame('f', undefined, 9, 3)]);
    expect(store.frames).toHaveLength(2);
  });

  test('frame objects shared between samples get the ids equal copies get', () => {
    const main = frame('main');
    const a = frame('a', undefined, 10, 1);
    const b = frame('b', undefined, 20, 1);
    const c = frame('c', undefined, 30, 1);
    const samples = [[b, a, main], [c, a, main], [a, main], [c, b, a, main], [b, a, main]];
    const shared = new StackStore();
    const copied = new StackStore();
    const sharedIds = samples.map((s) => shared.add(s));
    expect(samples.map((s) => copied.add(s.map((f) => ({ ...f }))))).toEqual(sharedIds);
    expect(shared.frames).toEqual(copied.frames);
    expect(shared.stacks).toEqual(copied.stacks);
    expect(sharedIds[4]).toBe(sharedIds[0]);
    // After clear(), a frame object seen before is interned afresh.
    shared.clear();
    expect(shared.add([c, main])).toBe(1);
    expect(shared.frames).toEqual([main, c]);
  });

  test('clear() forgets everything', () => {
    const store = new StackStore();
    store.add([frame('a'), frame('main')]);
    store.clear();
    expect(store.frames).toHaveLength(0);
    expect(store.stacks).toHaveLength(0);
    expect(store.add([frame('a')])).toBe(0);
  });
});

describe('buildTrace', () => {
  const url = 'https://app.example/main.js';
  const other = 'https://cdn.example/lib.js?v=2';

  function storeWith(...stacks: RawFrame[][]) {
    const store = new StackStore();
    const ids = stacks.map((s) => store.add(s));
    return { store, ids };
  }

  test('the spec shape: deduplicated, parent-first, builtins with only a name', () => {
    const main = frame('main', url, 1, 1);
    const work = frame('work', url, 10, 14, 12, 3);
    const workOtherCall = frame('work', url, 10, 14, 15, 7);
    const lib = frame('lib', other, 3, 9);
    const map = frame('map', null, 0, 0);
    const { store, ids } = storeWith([lib, work, main], [map, workOtherCall, main], [main], []);
    const trace = buildTrace(
      [
        { timestamp: 1, stack: ids[0] },
        { timestamp: 2, stack: ids[1] },
        { timestamp: 3, stack: -1 },
        { timestamp: 4, stack: ids[2] },
        { timestamp: 5, stack: ids[0] },
      ],
      store,
      defaultResolver,
    );
    expectValidTrace(trace);
    expect(trace.resources).toEqual([url, other]);
    expect(trace.frames).toEqual([
      { name: 'main', resourceId: 0, line: 1, column: 1 },
      { name: 'work', resourceId: 0, line: 10, column: 14 },
      { name: 'lib', resourceId: 1, line: 3, column: 9 },
      { name: 'map' },
    ]);
    expect(Object.keys(trace.frames[3])).toEqual(['name']);
    // `work` from two call sites is one frame, main>work one stack.
    expect(trace.stacks).toEqual([{ frameId: 0 }, { parentId: 0, frameId: 1 }, { parentId: 1, frameId: 2 }, { parentId: 1, frameId: 3 }]);
    expect(Object.keys(trace.stacks[0])).toEqual(['frameId']);
    expect(trace.samples).toEqual([
      { timestamp: 1, stackId: 2 },
      { timestamp: 2, stackId: 3 },
      { timestamp: 3 },
      { timestamp: 4, stackId: 0 },
      { timestamp: 5, stackId: 2 },
    ]);
    expect(Object.keys(trace.samples[2])).toEqual(['timestamp']);
  });

  test('only what the samples use is in the trace', () => {
    const { store, ids } = storeWith([frame('a', url), frame('main', url)], [frame('b', other), frame('main', url)]);
    const trace = buildTrace([{ timestamp: 1, stack: ids[1] }], store, defaultResolver);
    expect(trace.resources).toEqual([url, other]);
    expect(trace.frames.map((f) => f.name)).toEqual(['main', 'b']);
  });

  test('frames resolved to null are left out; their time goes to the caller', () => {
    const { store, ids } = storeWith([frame('inner', other), frame('hidden', other), frame('main', url)], [frame('hidden', other), frame('main', url)]);
    const hide = (f: RawFrame) => (f.url === other ? null : defaultResolver(f));
    const trace = buildTrace(
      [
        { timestamp: 1, stack: ids[0] },
        { timestamp: 2, stack: ids[1] },
      ],
      store,
      hide,
    );
    expectValidTrace(trace);
    expect(trace.resources).toEqual([url]);
    expect(trace.samples.map((s) => stackNames(trace, s.stackId))).toEqual([['main'], ['main']]);
    // A stack of hidden frames only: a sample without a stack.
    const { store: store2, ids: ids2 } = storeWith([frame('hidden', other)]);
    expect(buildTrace([{ timestamp: 1, stack: ids2[0] }], store2, hide).samples).toEqual([{ timestamp: 1 }]);
  });

  test('a sample taken at an entry check passes over the innermost functions known to have no checks', () => {
    // main (instrumented) > wrapper (no checks) > getNode (no checks): the entry check of the
    // function getNode called was where the sample was taken.
    const stack = [frame('getNode', url, 30), frame('wrapper', url, 20), frame('main', url, 1), frame('eval', null)];
    const { store, ids } = storeWith(stack, [frame('wrapper', url, 20), frame('eval', null)]);
    const withoutChecks = new Set(['getNode', 'wrapper']);
    const resolve = (f: RawFrame) => {
      const named = defaultResolver(f);
      return named && f.url ? { ...named, instrumented: !withoutChecks.has(f.name) } : named;
    };
    const trace = buildTrace(
      [
        { timestamp: 1, stack: ids[0], atEntry: true },
        { timestamp: 2, stack: ids[0] }, // at a loop or exit check: the stack as captured
        { timestamp: 3, stack: ids[1], atEntry: true }, // no instrumented function on it: as captured
      ],
      store,
      resolve,
    );
    expectValidTrace(trace);
    expect(trace.samples.map((s) => stackNames(trace, s.stackId))).toEqual([
      ['eval', 'main'],
      ['eval', 'main', 'wrapper', 'getNode'],
      ['eval', 'wrapper'],
    ]);
    // Where the resolver does not know (browsers' function tables), nothing is passed over.
    const unknown = buildTrace([{ timestamp: 1, stack: ids[0], atEntry: true }], store, defaultResolver);
    expect(stackNames(unknown, unknown.samples[0].stackId)).toEqual(['eval', 'main', 'wrapper', 'getNode']);
  });

  test('a sample at an entry check passes over built-ins too: a one-line callback of replace hands it to the caller of replace', () => {
    // parse (instrumented) > replace (built-in) > (m) => expand(m) (no checks): expand's entry check took the sample.
    const stack = [frame('', url, 7, 35), frame('replace', null), frame('parse', url, 2)];
    const { store, ids } = storeWith(stack);
    const resolve = (f: RawFrame) => {
      const named = defaultResolver(f);
      return named && f.url ? { ...named, instrumented: f.name === 'parse' } : named;
    };
    const trace = buildTrace([{ timestamp: 1, stack: ids[0], atEntry: true }], store, resolve);
    expectValidTrace(trace);
    expect(stackNames(trace, trace.samples[0].stackId)).toEqual(['parse']);
    // The callback's checks unknown (a page without function tables): as captured.
    const unknown = buildTrace([{ timestamp: 1, stack: ids[0], atEntry: true }], store, defaultResolver);
    expect(stackNames(unknown, unknown.samples[0].stackId)).toEqual(['parse', 'replace', '']);
  });

  test('different raw frames resolved to one frame are one frame and one stack', () => {
    const { store, ids } = storeWith([frame('f', url, 1, 1), frame('main', url)], [frame('f', url, 2, 2), frame('main', url)]);
    const trace = buildTrace(
      ids.map((stack, i) => ({ timestamp: i, stack })),
      store,
      (f) => ({ name: f.name, url: f.url!, line: 1, column: 1 }),
    );
    expect(trace.frames).toHaveLength(2);
    expect(trace.stacks).toHaveLength(2);
    expect(trace.samples[0].stackId).toBe(trace.samples[1].stackId);
  });

  test('a resolver that throws falls back to the default naming for that frame', () => {
    const { store, ids } = storeWith([frame('bad', url, 4, 4), frame('main', url)]);
    const trace = buildTrace([{ timestamp: 1, stack: ids[0] }], store, (f) => {
      if (f.name === 'bad') throw new Error('resolver bug');
      return { name: 'MAIN' };
    });
    expect(trace.frames).toEqual([{ name: 'MAIN' }, { name: 'bad', resourceId: 0, line: 4, column: 4 }]);
  });

  test('a deep stack stays parent-first', () => {
    const frames = Array.from({ length: 300 }, (_, i) => frame(`f${i}`, url, i + 1, 1));
    const { store, ids } = storeWith(frames, frames.slice(100));
    const trace = buildTrace(
      [
        { timestamp: 1, stack: ids[1] },
        { timestamp: 2, stack: ids[0] },
      ],
      store,
      defaultResolver,
    );
    expectValidTrace(trace);
    expect(stackNames(trace, trace.samples[1].stackId)).toEqual(frames.map((f) => f.name).reverse());
    expect(trace.stacks).toHaveLength(300);
  });
});
