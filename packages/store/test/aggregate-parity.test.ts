/** Both stores give `jsprof aggregate`'s numbers, exactly, on the same traces. */
import * as path from 'node:path';
import { AggregateResult, AggregateView, aggregateFiles, readTraceFile } from '@jsprof/trace-tools';
import { functionId } from '../src/hash';
import { ingestFiles } from '../src/ingest';
import { TopResult, TopView, topFunctions } from '../src/queries';
import type { Store } from '../src/store';
import { ENGINES, removeTempDirs, tempDir } from './helpers';
import { writeFieldTraces } from './field-traces';

afterAll(removeTempDirs);

const TRACES = 300;
const dir = tempDir('parity');
const files = writeFieldTraces(path.join(dir, 'traces'), { releases: ['2026.11.1', '2026.11.2', '2026.11.3'], traces: TRACES });
const expected = aggregateFiles(files, { groupBy: 'release' });

function expectSameView(stored: TopView, aggregated: AggregateView): void {
  const { functions: storedFunctions, name, ...storedCounts } = stored;
  const { functions: aggregatedFunctions, name: aggregatedName, ...aggregatedCounts } = aggregated;
  expect(name).toBe(aggregatedName);
  expect(storedCounts).toEqual(aggregatedCounts);
  // Without source maps a function's file is its script's URL.
  const expectedRows = aggregatedFunctions.map((f) => ({ functionId: functionId(f.resource ?? '', f.name), name: f.name, file: f.resource, selfMs: f.selfMs, totalMs: f.totalMs, self: f.self, total: f.total, traces: f.traces }));
  const byId = (rows: { functionId: string }[]) => [...rows].sort((a, b) => (a.functionId < b.functionId ? -1 : 1));
  expect(byId(storedFunctions)).toEqual(byId(expectedRows));
}

function expectSameResult(stored: TopResult, aggregated: AggregateResult): void {
  expectSameView(stored.all, aggregated.all);
  expect(stored.groups.map((g) => g.name).sort()).toEqual(aggregated.groups.map((g) => g.name).sort());
  for (const group of aggregated.groups) expectSameView(stored.groups.find((g) => g.name === group.name)!, group);
}

describe.each(ENGINES)('%s store', (_name, open) => {
  let store: Store;
  beforeAll(async () => {
    store = await open(tempDir('parity-store'));
  });
  afterAll(() => store.close());

  test('ingests every trace once', async () => {
    const summary = await ingestFiles(store, files, { batchSize: 64 });
    expect(summary).toMatchObject({ ingested: TRACES, duplicates: 0, rejected: 0 });
    const again = await ingestFiles(store, files.slice(0, 10));
    expect(again).toMatchObject({ ingested: 0, duplicates: 10 });
  });

  test("gives jsprof aggregate's numbers, per release and in all", async () => {
    expect(expected.all.traces).toBe(TRACES);
    expect(expected.groups.length).toBe(4); // three releases and bare traces, "(none)"
    expectSameResult(await topFunctions(store, { groupBy: 'release' }), expected);
  });

  test("gives jsprof aggregate's numbers per page and per browser, and within a filter", async () => {
    expectSameResult(await topFunctions(store, { groupBy: 'page' }), aggregateFiles(files, { groupBy: 'page' }));
    expectSameResult(await topFunctions(store, { groupBy: 'browser' }), aggregateFiles(files, { groupBy: 'browser' }));
    const release = '2026.11.2';
    const ofRelease = files.filter((file) => aggregateFiles([file], { groupBy: 'release' }).groups[0].name === release);
    const stored = await topFunctions(store, { filter: { release }, groupBy: 'page' });
    expectSameResult(stored, aggregateFiles(ofRelease, { groupBy: 'page' }));
  });

  test('a range of days takes the traces received on those days (the day of ingest for the others)', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const dayOf = (file: string) => readTraceFile(file).receivedAt?.slice(0, 10) ?? today;
    const days = [...new Set(files.map(dayOf))].sort();
    expect(days.length).toBe(5);
    const [from, to] = [days[1], days[3]];
    const inRange = files.filter((file) => dayOf(file) >= from && dayOf(file) <= to);
    expectSameResult(await topFunctions(store, { filter: { from, to }, groupBy: 'browser' }), aggregateFiles(inRange, { groupBy: 'browser' }));
  });
});
