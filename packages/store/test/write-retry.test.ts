/**
 * A write that fails (the ClickHouse server unreachable for a moment) can be written again with the
 * same rows, as the collector's retry buffer does: the functions and stacks it would have added are
 * not taken as written, so the retry writes them and queries can name them.
 */
import * as path from 'node:path';
import { ClickHouseStore } from '../src/clickhouse/store';
import { ClickHouseExecutor, chdbExecutor } from '../src/clickhouse/executor';
import { Ingester } from '../src/ingest';
import { topFunctions } from '../src/queries';
import { removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const document = {
  meta: { release: '1' },
  receivedAt: '2026-11-20T10:00:00.000Z',
  trace: {
    resources: ['https://app.example/app.js'],
    frames: [{ name: 'outer', resourceId: 0, line: 1, column: 1 }, { name: 'inner', resourceId: 0, line: 9, column: 3 }],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
    samples: [0, 1, 2, 3].map((i) => ({ timestamp: i * 10, stackId: 1 })),
  },
};

test('rows whose write failed at the first insert are written whole by the retry (ClickHouse, chdb)', async () => {
  const real = chdbExecutor(path.join(tempDir('retry'), 'clickhouse'));
  let down = false;
  const executor: ClickHouseExecutor = {
    description: real.description,
    command: (sql) => real.command(sql),
    query: (sql) => real.query(sql),
    insert: (table, rows) => (down ? Promise.reject(new Error('connect ECONNREFUSED')) : real.insert(table, rows)),
    close: () => real.close(),
  };
  const store = await ClickHouseStore.open(executor);
  try {
    const ingester = new Ingester(store);
    const rows = [ingester.rowsOf(document)];
    down = true;
    await expect(ingester.write(rows)).rejects.toThrow(/ECONNREFUSED/);
    expect(ingester.summary.ingested).toBe(0);
    down = false;
    await ingester.write(rows);
    expect(ingester.summary).toMatchObject({ ingested: 1, duplicates: 0 });
    const top = await topFunctions(store, {});
    expect(top.all.functions.map((f) => [f.name, f.selfMs, f.totalMs])).toEqual([
      ['inner', 40, 40],
      ['outer', 0, 40],
    ]);
    // Written once: a third write finds it stored.
    await ingester.write(rows);
    expect(ingester.summary).toMatchObject({ ingested: 1, duplicates: 1 });
  } finally {
    await store.close();
  }
});

test('a batch that failed halfway is written again without counting anything twice (ClickHouse, chdb)', async () => {
  const real = chdbExecutor(path.join(tempDir('retry-halfway'), 'clickhouse'));
  let failOn: string | null = null;
  const executor: ClickHouseExecutor = {
    description: real.description,
    command: (sql) => real.command(sql),
    query: (sql) => real.query(sql),
    // The per-trace function rows (and their rollup) get in; the stack rows do not.
    insert: (table, rows, settings) => (table.endsWith(failOn ?? '\0') ? Promise.reject(new Error('connection reset')) : real.insert(table, rows, settings)),
    close: () => real.close(),
  };
  const store = await ClickHouseStore.open(executor);
  try {
    const ingester = new Ingester(store);
    const rows = [ingester.rowsOf(document), ingester.rowsOf({ ...document, meta: { release: '2' } })];
    failOn = '.trace_stacks';
    await expect(ingester.write(rows)).rejects.toThrow(/connection reset/);
    failOn = null;
    await ingester.write(rows);
    const top = await topFunctions(store, {});
    expect(top.all).toMatchObject({ traces: 2, busyMs: 80 });
    expect(top.all.functions.map((f) => [f.name, f.selfMs, f.totalMs, f.traces])).toEqual([
      ['inner', 80, 80, 2],
      ['outer', 0, 80, 2],
    ]);
  } finally {
    await store.close();
  }
});
