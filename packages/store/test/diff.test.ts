/** A slowdown planted in one function of release B is the top row of `diff`, at its real size, on both stores. */
import * as path from 'node:path';
import { aggregateFiles } from '@jsprof/trace-tools';
import { ingestFiles } from '../src/ingest';
import { diffFunctions, flameGraph, topFunctions } from '../src/queries';
import type { Store } from '../src/store';
import { ENGINES, removeTempDirs, tempDir } from './helpers';
import { writeFieldTraces } from './field-traces';

afterAll(removeTempDirs);

const [A, B] = ['2026.11.1', '2026.11.2'];
const PLANTED = { release: B, functionName: 'slowFilter', samples: 15 };
const files = writeFieldTraces(path.join(tempDir('diff'), 'traces'), { releases: [A, B], traces: 400, stableUrls: true, seed: 7, slowdown: PLANTED });

/** slowFilter's self ms per trace in a release, as `jsprof aggregate` counts it. */
const byRelease = aggregateFiles(files, { groupBy: 'release' });
const viewOf = (release: string) => byRelease.groups.find((g) => g.name === release)!;

function selfMsPerTrace(release: string): number {
  const view = viewOf(release);
  return view.functions.find((f) => f.name === PLANTED.functionName)!.selfMs / view.traces;
}

describe.each(ENGINES)('%s store', (_name, open) => {
  let store: Store;
  beforeAll(async () => {
    store = await open(tempDir('diff-store'));
    await ingestFiles(store, files);
  });
  afterAll(() => store.close());

  test('the planted slowdown is the top row, at its real size, above the noise', async () => {
    const diff = await diffFunctions(store, { release: A }, { release: B });
    const [top, ...rest] = diff.functions;
    expect(top.name).toBe(PLANTED.functionName);
    const realSize = selfMsPerTrace(B) - selfMsPerTrace(A);
    expect(realSize).toBeGreaterThan(120); // 15 samples of 10 ms, fewer but longer in thinned traces
    expect(top.selfMsDelta).toBeCloseTo(realSize, 9);
    expect(top.selfChanged).toBe(true);
    expect(top.a.selfMsPerTrace).toBeCloseTo(selfMsPerTrace(A), 9);
    expect(top.b.self).toBeGreaterThan(top.a.self);
    // Unchanged functions differ by noise only, and most are not called changed.
    // (Busy functions vary by hundreds of ms between traces, so their changes can be as large in ms.)
    expect(rest.filter((row) => row.selfChanged)).toEqual([]);
    expect([diff.a.traces, diff.b.traces]).toEqual([viewOf(A).traces, viewOf(B).traces]);
  });

  test('the flame graph merges every stack: its root is the busy time, its leaves the self times', async () => {
    const flame = await flameGraph(store, { release: B });
    const top = await topFunctions(store, { filter: { release: B } });
    expect(flame.root.totalMs).toBe(top.all.busyMs);
    expect(flame.traces).toBe(top.all.traces);
    const selfByFunction = new Map<string, number>();
    const work = [flame.root];
    while (work.length) {
      const node = work.pop()!;
      if (node.functionId) selfByFunction.set(node.functionId, (selfByFunction.get(node.functionId) ?? 0) + node.selfMs);
      expect(node.children.reduce((sum, c) => sum + c.totalMs, node.selfMs)).toBeCloseTo(node.totalMs, 6);
      work.push(...node.children);
    }
    for (const f of top.all.functions) expect(selfByFunction.get(f.functionId)).toBeCloseTo(f.selfMs, 6);
    const [main] = flame.root.children;
    expect(flame.functions[main.functionId]).toEqual({ name: 'main', file: 'https://shop.example/static/app.js' });
  });
});
