/**
 * ClickHouse's cluster form (clusterSchemaStatements): the statements a cluster runs, and the store
 * on top of them in chdb, where the cluster is one shard of the engine itself. The store's numbers
 * in this form are checked against `jsprof aggregate` with the other engines (aggregate-parity,
 * diff); here, that its rows go through the Distributed tables into the local ones.
 */
import * as path from 'node:path';
import { ClickHouseStore } from '../src/clickhouse/store';
import { clusterSchemaStatements, DEFAULT_SCHEMA, schemaStatements } from '../src/clickhouse/schema';
import { ingestFiles } from '../src/ingest';
import { topFunctions } from '../src/queries';
import { writeFieldTraces } from './field-traces';
import { clusterFormExecutor, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const CLUSTER = { ...DEFAULT_SCHEMA, cluster: '{cluster}', replicated: true, onCluster: true };

test('each table is a replicated local table on every shard behind a Distributed table of the name the queries use', () => {
  const statements = clusterSchemaStatements(CLUSTER);
  const single = schemaStatements(DEFAULT_SCHEMA);
  const tableNames = (list: string[]) => list.map((s) => /^CREATE (?:TABLE|MATERIALIZED VIEW) IF NOT EXISTS jsprof\.(\w+)/.exec(s)?.[1]).filter(Boolean);
  // Every table and view the store creates on one server exists under its name, so the store adds none.
  expect(tableNames(statements)).toEqual(expect.arrayContaining(tableNames(single)));
  for (const statement of statements) expect(statement).toContain("ON CLUSTER '{cluster}'");
  const distributed = statements.filter((s) => s.includes('ENGINE = Distributed'));
  expect(distributed.map((s) => /Distributed\('\{cluster\}', jsprof, (\w+)(?:, (\w+))?\)/.exec(s)!.slice(1))).toEqual([
    ['traces_local', 'trace_id'],
    ['trace_functions_local', 'trace_id'],
    ['trace_stacks_local', 'trace_id'],
    ['raw_traces_local', 'trace_id'],
    ['functions_local', 'function_id'],
    ['stacks_local', 'stack_id'],
    ['traces_daily_local', undefined],
    ['functions_daily_local', undefined],
    ['stacks_daily_local', undefined],
  ]);
  const locals = statements.filter((s) => /IF NOT EXISTS jsprof\.\w+_local /.test(s));
  expect(locals).toHaveLength(9);
  for (const statement of locals) expect(statement).toMatch(/ENGINE = Replicated(Summing|Replacing)?MergeTree\('\/clickhouse\/tables\/\{shard\}\/jsprof\/\w+', '\{replica\}'\)/);
  // The views read each shard's own rows and fill its own rollups.
  const views = statements.filter((s) => s.includes('MATERIALIZED VIEW'));
  expect(views).toHaveLength(3);
  for (const view of views) expect(view).toMatch(/TO jsprof\.\w+_daily_local AS[\s\S]*FROM \(?(SELECT \*.* FROM )?jsprof\.\w+_local/);
  expect(() => clusterSchemaStatements({ ...CLUSTER, cluster: "x'; DROP TABLE y" })).toThrow('not a plain cluster name');
  expect(() => clusterSchemaStatements({ ...CLUSTER, rawDays: 0 })).toThrow('rawDays: 0 is not a whole number of days of 1 or more');
});

test('in the cluster form, the store writes through the Distributed tables into the local ones, once', async () => {
  const dir = tempDir('cluster');
  const files = writeFieldTraces(path.join(dir, 'traces'), { releases: ['1', '2'], traces: 40 });
  const executor = await clusterFormExecutor(path.join(dir, 'store'));
  const store = await ClickHouseStore.open(executor);
  expect(await ingestFiles(store, files, { batchSize: 16 })).toMatchObject({ ingested: 40, rejected: 0 });
  const engines = await executor.query("SELECT name, engine FROM system.tables WHERE database = 'jsprof' AND name IN ('traces', 'traces_local', 'functions_daily')");
  expect(Object.fromEntries(engines.map((r) => [r.name, r.engine]))).toEqual({ traces: 'Distributed', traces_local: 'MergeTree', functions_daily: 'Distributed' });
  const count = async (table: string) => Number((await executor.query(`SELECT sum(traces) AS n FROM jsprof.${table}`))[0].n);
  expect(await count('traces_daily_local')).toBe(40);
  expect(Number((await executor.query('SELECT count() AS n FROM jsprof.traces_local'))[0].n)).toBe(40);
  const top = await topFunctions(store, { groupBy: 'release' });
  await store.close();

  // Opened again (the layout recorded once, in the store's own table), the same traces are already there.
  const again = await ClickHouseStore.open(await clusterFormExecutor(path.join(dir, 'store')));
  expect(await ingestFiles(again, files)).toMatchObject({ ingested: 0, duplicates: 40 });
  expect(await topFunctions(again, { groupBy: 'release' })).toEqual(top);
  await again.close();
});
