import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import type { ProfilerTrace } from '@jsprof/runtime';
import { Aggregator, AggregateFunction, AggregateView, OTHER_FUNCTIONS, OTHER_GROUPS, aggregateFiles, findTraceFiles } from '../src';

/** Trace A, every 10 ms: main → work → helper; 40 ms busy (work 20 self, helper 10, main 10), 10 ms idle. */
const traceA: ProfilerTrace = {
  resources: ['https://app.example/app.js'],
  frames: [
    { name: 'main', resourceId: 0, line: 1, column: 1 },
    { name: 'work', resourceId: 0, line: 5, column: 3 },
    { name: 'helper', resourceId: 0, line: 10, column: 1 },
  ],
  stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }, { frameId: 2, parentId: 1 }],
  samples: [
    { timestamp: 100, stackId: 1 },
    { timestamp: 110, stackId: 1 },
    { timestamp: 120, stackId: 2 },
    { timestamp: 130 },
    { timestamp: 140, stackId: 0 },
  ],
};

/** Trace B, every 20 ms, the same functions listed otherwise: 60 ms busy (helper 40 self, main 20). */
const traceB: ProfilerTrace = {
  resources: ['https://cdn.example/lib.js', 'https://app.example/app.js'],
  frames: [
    { name: 'helper', resourceId: 1, line: 10, column: 1 },
    { name: 'main', resourceId: 1, line: 1, column: 1 },
  ],
  stacks: [{ frameId: 1 }, { frameId: 0, parentId: 0 }],
  samples: [
    { timestamp: 5000, stackId: 1 },
    { timestamp: 5020, stackId: 1 },
    { timestamp: 5040, stackId: 0 },
  ],
};

function row(view: AggregateView, name: string): AggregateFunction {
  const found = view.functions.find((f) => f.name === name);
  if (!found) throw new Error(`no ${name} in ${view.name}`);
  return found;
}

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-aggregate-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

describe('Aggregator', () => {
  test('merges traces into known self and total shares, each sample weighing its trace interval', () => {
    const aggregator = new Aggregator();
    aggregator.add({ trace: traceA, meta: {} });
    aggregator.add({ trace: traceB, meta: {} });
    const { all, groups } = aggregator.result();

    expect(groups).toEqual([]);
    expect(all).toMatchObject({ traces: 2, samples: 8, busySamples: 7, busyMs: 100, idleSamples: 1, idleMs: 10 });
    expect(all.functions.map((f) => [f.name, f.selfMs, f.totalMs, f.traces])).toEqual([
      ['helper', 50, 50, 2],
      ['main', 30, 100, 2],
      ['work', 20, 30, 1],
    ]);
    expect(row(all, 'main')).toMatchObject({ resource: 'https://app.example/app.js', line: 1, column: 1, self: 0.3, total: 1 });
    expect(row(all, 'helper')).toMatchObject({ self: 0.5, total: 0.5 });
  });

  test('a function is its name, resource, line and column', () => {
    const elsewhere: ProfilerTrace = {
      resources: ['https://app.example/app.js', 'https://app.example/other.js'],
      frames: [
        { name: 'main', resourceId: 0, line: 1, column: 2 },
        { name: 'main', resourceId: 1, line: 1, column: 1 },
        { name: 'main' },
      ],
      stacks: [{ frameId: 0 }, { frameId: 1 }, { frameId: 2 }],
      samples: [
        { timestamp: 0, stackId: 0 },
        { timestamp: 10, stackId: 1 },
        { timestamp: 20, stackId: 2 },
      ],
    };
    const aggregator = new Aggregator();
    aggregator.add({ trace: traceA, meta: {} });
    aggregator.add({ trace: elsewhere, meta: {} });
    const mains = aggregator.result().all.functions.filter((f) => f.name === 'main');
    expect(mains.map((f) => [f.resource, f.line, f.column, f.selfMs])).toEqual([
      ['https://app.example/app.js', 1, 1, 10],
      ['https://app.example/app.js', 1, 2, 10],
      ['https://app.example/other.js', 1, 1, 10],
      [null, null, null, 10],
    ]);
  });

  test('a recursive function counts once per sample in total', () => {
    const recursive: ProfilerTrace = {
      resources: [],
      frames: [{ name: 'walk' }, { name: 'visit' }],
      stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }, { frameId: 0, parentId: 1 }],
      samples: [
        { timestamp: 0, stackId: 2 },
        { timestamp: 10, stackId: 1 },
      ],
    };
    const aggregator = new Aggregator();
    aggregator.add({ trace: recursive, meta: {} });
    const { all } = aggregator.result();
    expect(row(all, 'walk')).toMatchObject({ selfMs: 10, totalMs: 20, total: 1 });
    expect(row(all, 'visit')).toMatchObject({ selfMs: 10, totalMs: 20 });
  });

  test('a trace thousands of frames deep, sampled at every depth (a hostile field trace), costs work in proportion to its size', () => {
    // 3,000 stacks, each the one before called again: walking up from every sampled stack reads 4.5 million of them.
    const depth = 3000;
    const deep: ProfilerTrace = {
      resources: ['https://app.example/app.js'],
      frames: [0, 1, 2].map((i) => ({ name: `r${i}`, resourceId: 0, line: i + 1, column: 1 })),
      stacks: Array.from({ length: depth }, (_, i) => (i ? { frameId: i % 3, parentId: i - 1 } : { frameId: 0 })),
      samples: Array.from({ length: depth }, (_, i) => ({ timestamp: i * 10, stackId: i })),
    };
    let reads = 0;
    const stacks = new Proxy(deep.stacks, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const aggregator = new Aggregator();
    aggregator.add({ trace: { ...deep, stacks }, meta: {} });
    expect(reads).toBeLessThan(10 * depth);
    // r0 is on every stack, r1 and r2 on all but the shallowest: totals once per sample.
    const shares = Object.fromEntries(aggregator.result().all.functions.map((f) => [f.name, [f.self, f.total]]));
    expect(shares).toEqual({ r0: [1 / 3, 1], r1: [1 / 3, (depth - 1) / depth], r2: [1 / 3, (depth - 2) / depth] });
  });

  test('groups by a meta key; traces without it go to "(none)"', () => {
    const aggregator = new Aggregator({ groupBy: 'page' });
    aggregator.add({ trace: traceA, meta: { page: '/search', release: '1.0' } });
    aggregator.add({ trace: traceB, meta: { page: '/cart' } });
    aggregator.add({ trace: traceB, meta: { release: '1.0' } });
    aggregator.add({ trace: traceA, meta: { page: 7 } });
    const result = aggregator.result();

    expect(result.groupBy).toBe('page');
    expect(result.groups.map((g) => [g.name, g.traces, g.busyMs])).toEqual([
      ['/cart', 1, 60],
      ['(none)', 1, 60],
      ['/search', 1, 40],
      ['7', 1, 40],
    ]);
    const search = result.groups.find((g) => g.name === '/search')!;
    expect(row(search, 'work')).toMatchObject({ self: 0.5, total: 0.75, traces: 1 });
    expect(result.groups.find((g) => g.name === '/cart')!.functions.map((f) => f.name)).toEqual(['helper', 'main']);
    expect(result.all).toMatchObject({ traces: 4, busyMs: 200 });
    expect(row(result.all, 'main')).toMatchObject({ selfMs: 60, totalMs: 200, traces: 4 });
  });

  test('memory is bounded: past the cap, new functions are one row and new groups one group', () => {
    const wide = (n: number): ProfilerTrace => ({
      resources: [],
      frames: Array.from({ length: n }, (_, i) => ({ name: `f${i}` })),
      stacks: Array.from({ length: n }, (_, i) => (i === 0 ? { frameId: 0 } : { frameId: i, parentId: i - 1 })),
      samples: Array.from({ length: n }, (_, i) => ({ timestamp: i * 10, stackId: i })),
    });
    const aggregator = new Aggregator({ groupBy: 'user', maxFunctions: 3, maxGroups: 2 });
    for (let user = 0; user < 5; user++) aggregator.add({ trace: wide(10), meta: { user } });
    const result = aggregator.result();

    expect(result).toMatchObject({ functionsCapped: true, maxFunctions: 3, groupsCapped: true, maxGroups: 2 });
    expect(result.all.functions.map((f) => f.name)).toEqual([OTHER_FUNCTIONS, 'f0', 'f1', 'f2']);
    // Seven functions became one row; their self time is all there, their total counted once per sample.
    expect(row(result.all, OTHER_FUNCTIONS)).toMatchObject({ selfMs: 5 * 70, totalMs: 5 * 70, traces: 5 });
    expect(result.all.busyMs).toBe(5 * 100);
    expect(result.groups.map((g) => [g.name, g.traces])).toEqual([
      [OTHER_GROUPS, 3],
      ['0', 1],
      ['1', 1],
    ]);
  });

  test('a trace thinned to every other sample, or paused while hidden, still weighs the time it covered', () => {
    const at = (timestamps: number[]): ProfilerTrace => ({ ...traceA, samples: timestamps.map((timestamp) => ({ timestamp, stackId: 1 })) });
    const aggregator = new Aggregator({ groupBy: 'form' });
    aggregator.add({ trace: at([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]), meta: { form: 'whole' } });
    aggregator.add({ trace: at([0, 20, 40, 60, 80]), meta: { form: 'thinned' } });
    aggregator.add({ trace: at([0, 10, 20, 30, 40, 60_050, 60_060, 60_070, 60_080, 60_090]), meta: { form: 'paused' } });
    aggregator.add({ trace: at([0, 30, 60]), meta: { form: 'every 30 ms' } });
    const busy = Object.fromEntries(aggregator.result().groups.map((g) => [g.name, [g.samples, g.busyMs]]));
    expect(busy).toEqual({ whole: [10, 100], thinned: [5, 100], paused: [10, 100], 'every 30 ms': [3, 90] });
  });

  test('a trace with no samples or no stacks is counted, with no share', () => {
    const aggregator = new Aggregator();
    aggregator.add({ trace: { resources: [], frames: [], stacks: [], samples: [] }, meta: {} });
    aggregator.add({ trace: { resources: [], frames: [], stacks: [], samples: [{ timestamp: 0 }, { timestamp: 10 }] }, meta: {} });
    expect(aggregator.result().all).toMatchObject({ traces: 2, samples: 2, busyMs: 0, idleMs: 20, functions: [] });
  });
});

describe('trace files', () => {
  test('a directory walk finds plain, gzip and receiver files; a malformed trace is reported and skipped', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'day-1/late'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'a.json'), JSON.stringify(traceA));
    fs.writeFileSync(path.join(dir, 'day-1/b.json.gz'), zlib.gzipSync(JSON.stringify({ meta: { page: '/cart' }, trace: traceB })));
    fs.writeFileSync(path.join(dir, 'day-1/late/c.gz'), zlib.gzipSync(JSON.stringify({ receivedAt: '2026-11-21T09:00:00Z', meta: { page: '/search' }, trace: traceA })));
    fs.writeFileSync(path.join(dir, 'day-1/broken.json'), JSON.stringify({ ...traceB, samples: [{ timestamp: 0, stackId: 9 }] }));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a trace');
    fs.writeFileSync(path.join(dir, 'day-1/x.json.12.tmp'), '{');
    fs.writeFileSync(path.join(dir, 'a.symbolicated.json'), JSON.stringify(traceA));
    fs.writeFileSync(path.join(dir, 'a.speedscope.json'), '{"$schema": "https://www.speedscope.app/file-format-schema.json"}');

    const files = findTraceFiles([dir]);
    expect(files.map((f) => path.relative(dir, f))).toEqual(['a.json', 'day-1/b.json.gz', 'day-1/broken.json', 'day-1/late/c.gz']);
    expect(findTraceFiles([dir, path.join(dir, 'a.json')])).toEqual(files);

    const rejected: string[] = [];
    const progress: number[] = [];
    const result = aggregateFiles(files, { groupBy: 'page', onRejected: (m) => rejected.push(m), onFile: (done) => progress.push(done) });
    expect(rejected).toEqual([`${path.join(dir, 'day-1/broken.json')}: samples[0].stackId 9 is not an index into stacks (2 of them)`]);
    expect(progress).toEqual([1, 2, 3, 4]);
    expect(result.rejected).toBe(1);
    expect(result.all).toMatchObject({ traces: 3, busyMs: 140 });
    expect(result.groups.map((g) => [g.name, g.traces])).toEqual([
      ['/cart', 1],
      ['(none)', 1],
      ['/search', 1],
    ]);
  });

  test('a path that does not exist is an error before anything is read', () => {
    expect(() => findTraceFiles(['/nonexistent/traces'])).toThrow('no such file or directory: /nonexistent/traces');
  });
});
