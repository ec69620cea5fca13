/** A store records its layout: a store of another layout is refused with a message, never misread. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDBStore } from '../src/duckdb/store';
import { ClickHouseStore } from '../src/clickhouse/store';
import { chdbExecutor } from '../src/clickhouse/executor';
import { ingestFiles } from '../src/ingest';
import { topFunctions } from '../src/queries';
import { writeFieldTraces } from './field-traces';
import { removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

test('a store opened again reads what it was given', async () => {
  const dir = tempDir('layout');
  const file = path.join(dir, 'traces.duckdb');
  const files = writeFieldTraces(path.join(dir, 'traces'), { releases: ['1'], traces: 20 });
  const first = await DuckDBStore.open(file);
  await ingestFiles(first, files);
  const before = await topFunctions(first);
  await first.close();
  const again = await DuckDBStore.open(file);
  expect(await topFunctions(again)).toEqual(before);
  expect(await ingestFiles(again, files)).toMatchObject({ ingested: 0, duplicates: 20 });
  // More traces of the same labels: they reuse the labels' numbers, so each trace counts once.
  const more = writeFieldTraces(path.join(dir, 'more'), { releases: ['1'], traces: 10, seed: 2 });
  expect(await ingestFiles(again, more)).toMatchObject({ ingested: 10 });
  const all = await topFunctions(again, { groupBy: 'browser' });
  expect(all.all.traces).toBe(30);
  await again.close();
  const atOnce = await DuckDBStore.open(path.join(dir, 'at-once.duckdb'));
  await ingestFiles(atOnce, [...files, ...more]);
  expect(all).toEqual(await topFunctions(atOnce, { groupBy: 'browser' }));
  await atOnce.close();
});

test('a store of the earlier layout (labels as columns of traces) is refused, and left as it was', async () => {
  const file = path.join(tempDir('old-layout'), 'old.duckdb');
  const old = await DuckDBInstance.create(file);
  const connection = await old.connect();
  await connection.run('CREATE TABLE traces (trace_id UBIGINT, day DATE, release VARCHAR, page VARCHAR, browser VARCHAR, meta VARCHAR)');
  connection.closeSync();
  old.closeSync();
  await expect(DuckDBStore.open(file)).rejects.toThrow(`${file}: a store written by another version of jsprof (layout 1; this one reads 2): ingest the trace files into a new store`);
  const reopened = await DuckDBInstance.create(file);
  const tables = (await (await reopened.connect()).runAndReadAll('SELECT table_name FROM duckdb_tables()')).getRowObjectsJson();
  expect(tables).toEqual([{ table_name: 'traces' }]);
  reopened.closeSync();
});

test('a ClickHouse store of the earlier layout is refused; a new one opens again', async () => {
  const dir = tempDir('ch-layout');
  const old = chdbExecutor(path.join(dir, 'old'));
  await old.command('CREATE DATABASE IF NOT EXISTS jsprof');
  await old.command('CREATE TABLE jsprof.traces (trace_id UInt64) ENGINE = MergeTree ORDER BY trace_id');
  await expect(ClickHouseStore.open(old)).rejects.toThrow(/database jsprof: a store written by another version of jsprof \(layout 1; this one reads 2\)/);
  await old.close();
  const fresh = chdbExecutor(path.join(dir, 'new'));
  await (await ClickHouseStore.open(fresh)).close();
  const again = chdbExecutor(path.join(dir, 'new'));
  const store = await ClickHouseStore.open(again);
  expect(await again.query('SELECT count() AS n, max(schema_version) AS v FROM jsprof.jsprof_store')).toEqual([{ n: '1', v: 2 }]);
  await store.close();
});

test('a file that is not a DuckDB database is refused and left as it was, not opened as an empty store in memory', async () => {
  const dir = tempDir('not-duckdb');
  const file = path.join(dir, 'traces.json');
  const text = '{"meta": {}, "trace": {"resources": [], "frames": [], "stacks": [], "samples": []}}\n';
  fs.writeFileSync(file, text);
  await expect(DuckDBStore.open(file)).rejects.toThrow(`${file}: not a DuckDB store (jsprof ingest makes one in a new file)`);
  await expect(DuckDBStore.open(dir)).rejects.toThrow(`${dir}: a directory, not a DuckDB store`);
  expect(fs.readFileSync(file, 'utf8')).toBe(text);
});

test('a store opened read-only (as queries open it) answers, beside another reader, and cannot be written; a database that is no store is refused', async () => {
  const file = path.join(tempDir('read-only'), 'traces.duckdb');
  const files = writeFieldTraces(path.join(path.dirname(file), 'traces'), { releases: ['1'], traces: 5 });
  const writer = await DuckDBStore.open(file);
  await ingestFiles(writer, files);
  await writer.close();
  const readers = await Promise.all([DuckDBStore.open(file, { readOnly: true }), DuckDBStore.open(file, { readOnly: true })]);
  for (const reader of readers) expect((await topFunctions(reader)).all.traces).toBe(5);
  await expect(ingestFiles(readers[0], writeFieldTraces(path.join(path.dirname(file), 'more'), { releases: ['1'], traces: 2, seed: 3 }))).rejects.toThrow(/read-?only/i);
  for (const reader of readers) await reader.close();
  const empty = path.join(path.dirname(file), 'empty.duckdb');
  const instance = await DuckDBInstance.create(empty);
  (await instance.connect()).closeSync();
  instance.closeSync();
  await expect(DuckDBStore.open(empty, { readOnly: true })).rejects.toThrow(`${empty}: a DuckDB database but no jsprof store (jsprof ingest makes one)`);
  const zero = path.join(path.dirname(file), 'zero.duckdb');
  fs.writeFileSync(zero, '');
  await expect(DuckDBStore.open(zero)).rejects.toThrow(`${zero}: not a DuckDB store (jsprof ingest makes one in a new file)`);
});
