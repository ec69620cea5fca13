/** The embedded store: one DuckDB file, no server. `@duckdb/node-api` is an optional dependency, loaded on open. */
import * as fs from 'node:fs';
import type { DuckDBConnection, DuckDBDateValue, DuckDBInstance } from '@duckdb/node-api';
import type { FunctionRow } from '../identity';
import type { Labels, TraceRows } from '../rows';
import { Filter, FunctionTotalsRow, GroupBy, LAYOUT_TABLE, StackTotalsRow, Store, ViewCountsRow, WrittenIds, storeLayout, filterSql, functionRowsFrom, idList, functionTotalsFrom, viewCountsFrom } from '../store';
import { Columns, FUNCTIONS, LABELS, RAW_TRACES, SCHEMA_VERSION, STACKS, TABLES, TRACES, TRACE_FUNCTIONS, TRACE_STACKS, appendColumns, createTableSql } from './schema';

type DuckDBApi = typeof import('@duckdb/node-api');

function loadDuckDB(): DuckDBApi {
  try {
    return require('@duckdb/node-api');
  } catch (error) {
    throw new Error(`the DuckDB store needs the package @duckdb/node-api, which is not installed (npm i @duckdb/node-api): ${(error as Error).message}`);
  }
}

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

const MAX_CACHED_IDS = 1_000_000;

// Labels are a stranger's text: joined by JSON, no two sets of them make one key.
const labelsKey = (labels: Labels) => JSON.stringify([labels.day, labels.release, labels.page, labels.browser]);

/** Adds a row's values to columns. */
function push(columns: unknown[][], ...values: unknown[]): void {
  for (let i = 0; i < values.length; i++) columns[i].push(values[i]);
}

/**
 * Refuses a file that is there and is not a DuckDB database (DuckDB would open a JSON or CSV file as
 * an empty database in memory, and every trace written to it would be lost).
 */
function checkDuckDBFile(file: string): void {
  if (file === ':memory:') return;
  let head: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      head = Buffer.alloc(12);
      head = head.subarray(0, fs.readSync(fd, head, 0, 12, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') throw new Error(`${file}: a directory, not a DuckDB store`);
    throw error;
  }
  // A DuckDB file: a checksum, then "DUCK".
  if (head.subarray(8, 12).toString('latin1') !== 'DUCK') throw new Error(`${file}: not a DuckDB store (jsprof ingest makes one in a new file)`);
}

export class DuckDBStore implements Store {
  readonly description: string;
  private constructor(
    private readonly api: DuckDBApi,
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
    private readonly writtenFunctions: WrittenIds,
    private readonly writtenStacks: WrittenIds,
    /** The number of each set of labels written, by labelsKey, and the next number. */
    private readonly labelIds: Map<string, number>,
    private nextLabelId: number,
    file: string,
  ) {
    this.description = `DuckDB ${file}`;
  }

  /** Ids as DuckDB takes them; the same ids come back in trace after trace. */
  private bigints = new Map<string, bigint>();
  private readonly days = new Map<string, DuckDBDateValue>();

  /**
   * Opens (or creates) the store in `file` (':memory:' for one in memory); `readOnly` for queries,
   * which then run beside each other and on a store the user may only read.
   */
  static async open(file: string, { readOnly = false } = {}): Promise<DuckDBStore> {
    const api = loadDuckDB();
    checkDuckDBFile(file);
    // The newest storage format: it compresses long strings (the raw traces) with zstd, ten times smaller here.
    const instance = await api.DuckDBInstance.create(file, readOnly ? { access_mode: 'READ_ONLY' } : { storage_compatibility_version: 'latest' });
    const connection = await instance.connect();
    try {
      const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson();
      const tables = new Set((await rows('SELECT table_name FROM duckdb_tables()')).map((r) => String(r.table_name)));
      // Layout 1 kept the labels as columns of traces.
      const version = await storeLayout(async (table) => tables.has(table), async () => Number((await rows(`SELECT max(schema_version) AS v FROM ${LAYOUT_TABLE}`))[0].v), SCHEMA_VERSION, file);
      if (version === null && readOnly) throw new Error(`${file}: a DuckDB database but no jsprof store (jsprof ingest makes one)`);
      if (version === null) {
        // One transaction: a store is made whole, with its layout's number, or not at all.
        await connection.run('BEGIN TRANSACTION');
        for (const table of TABLES) await connection.run(createTableSql(table, api));
        await connection.run(`INSERT INTO ${LAYOUT_TABLE} VALUES (${SCHEMA_VERSION})`);
        await connection.run('COMMIT');
      }
      const column = async (sql: string) => (await rows(sql)).map((row) => String(Object.values(row)[0]));
      const functions = new WrittenIds(await column('SELECT function_id FROM functions'));
      const stacks = new WrittenIds(await column('SELECT stack_id FROM stacks'));
      const labelRows = await rows('SELECT label_id, day, release, page, browser FROM labels');
      const labels = new Map(labelRows.map((r) => [labelsKey({ day: String(r.day), release: String(r.release), page: String(r.page), browser: String(r.browser) }), Number(r.label_id)]));
      const nextLabelId = 1 + labelRows.reduce((max, r) => Math.max(max, Number(r.label_id)), 0);
      return new DuckDBStore(api, instance, connection, functions, stacks, labels, nextLabelId, file);
    } catch (error) {
      connection.closeSync();
      instance.closeSync();
      throw error;
    }
  }

  async storedTraces(traceIds: string[]): Promise<Set<string>> {
    const rows = await this.rows(`SELECT trace_id FROM traces WHERE trace_id IN (${idList(traceIds)})`);
    return new Set(rows.map((row) => String(row.trace_id)));
  }

  async write(traces: TraceRows[]): Promise<void> {
    const newLabels: string[] = [];
    let functions: string[] = [];
    let stacks: string[] = [];
    await this.connection.run('BEGIN TRANSACTION');
    try {
      const labels = new Columns(LABELS);
      const rows = [TRACES, TRACE_FUNCTIONS, TRACE_STACKS, RAW_TRACES].map((table) => new Columns(table));
      const [traceRows, functionRows, stackRows, rawRows] = rows.map((c) => c.values);
      for (const { trace, functionTimes, stackTimes, raw } of traces) {
        const key = labelsKey(trace);
        let labelId = this.labelIds.get(key);
        if (labelId === undefined) {
          labelId = this.nextLabelId++;
          this.labelIds.set(key, labelId);
          newLabels.push(key);
          push(labels.values, labelId, this.day(trace.day), trace.release, trace.page, trace.browser);
        }
        const traceId = BigInt(trace.traceId);
        push(traceRows, traceId, labelId, trace.meta, trace.intervalMs, trace.samples, trace.busySamples, trace.idleSamples, trace.busyMs, trace.idleMs);
        functionTimes.functionIds.forEach((id, i) => push(functionRows, traceId, labelId, this.bigint(id), functionTimes.selfMs[i], functionTimes.totalMs[i]));
        stackTimes.stackIds.forEach((id, i) => push(stackRows, traceId, labelId, this.bigint(id), stackTimes.samples[i], stackTimes.ms[i]));
        push(rawRows, traceId, this.day(raw.day), raw.raw);
      }
      for (const columns of [labels, ...rows]) await appendColumns(this.connection, this.api, columns);

      const freshFunctions = this.writtenFunctions.fresh(traces.flatMap((t) => t.functions), (f) => f.functionId);
      functions = freshFunctions.map((f) => f.functionId);
      const functionColumns = new Columns(FUNCTIONS);
      for (const f of freshFunctions) push(functionColumns.values, this.bigint(f.functionId), f.file, f.name);
      await appendColumns(this.connection, this.api, functionColumns);

      const freshStacks = this.writtenStacks.fresh(traces.flatMap((t) => t.stacks), (s) => s.stackId);
      stacks = freshStacks.map((s) => s.stackId);
      const stackColumns = new Columns(STACKS);
      for (const s of freshStacks) push(stackColumns.values, this.bigint(s.stackId), this.bigint(s.parentId), this.bigint(s.functionId), this.api.listValue(s.functionIds.map((id) => this.bigint(id))));
      await appendColumns(this.connection, this.api, stackColumns);
      await this.connection.run('COMMIT');
    } catch (error) {
      // Not written: a retry of these rows writes them again (forgotten first, in case the rollback fails too).
      for (const key of newLabels) this.labelIds.delete(key);
      this.writtenFunctions.forget(functions);
      this.writtenStacks.forget(stacks);
      await this.connection.run('ROLLBACK').catch(() => {});
      throw error;
    }
  }

  async viewCounts(filter: Filter, groupBy: GroupBy): Promise<ViewCountsRow[]> {
    const rows = await this.rows(`
      SELECT ${groupBy ?? "'all'"} AS grp, count(*) AS traces, sum(samples) AS samples, sum(busy_samples) AS busy_samples,
             sum(busy_ms) AS busy_ms, sum(idle_samples) AS idle_samples, sum(idle_ms) AS idle_ms
      FROM traces JOIN labels USING (label_id) WHERE ${filterSql(filter, quote)} GROUP BY grp`);
    return viewCountsFrom(rows);
  }

  async functionTotals(filter: Filter, groupBy: GroupBy): Promise<FunctionTotalsRow[]> {
    const rows = await this.rows(`
      SELECT t.grp, t.function_id, f.name, f.file, t.traces, t.self_ms, t.total_ms, t.self_ms_squares, t.total_ms_squares
      FROM (SELECT ${groupBy ?? "'all'"} AS grp, function_id, count(*) AS traces, sum(self_ms) AS self_ms, sum(total_ms) AS total_ms,
                   sum(self_ms * self_ms) AS self_ms_squares, sum(total_ms * total_ms) AS total_ms_squares
            FROM trace_functions JOIN labels USING (label_id) WHERE ${filterSql(filter, quote)} GROUP BY grp, function_id) t
      JOIN functions f USING (function_id)`);
    return functionTotalsFrom(rows);
  }

  async stackTotals(filter: Filter): Promise<StackTotalsRow[]> {
    const rows = await this.rows(`
      SELECT t.stack_id, s.function_ids, t.ms
      FROM (SELECT stack_id, sum(ms) AS ms FROM trace_stacks JOIN labels USING (label_id) WHERE ${filterSql(filter, quote)} GROUP BY stack_id) t
      JOIN stacks s USING (stack_id)`);
    return rows.map((r) => ({ stackId: String(r.stack_id), functionIds: (r.function_ids as string[]).map(String), ms: Number(r.ms) }));
  }

  async functions(functionIds: string[]): Promise<FunctionRow[]> {
    const rows = await this.rows(`SELECT function_id, file, name FROM functions WHERE function_id IN (${idList(functionIds)})`);
    return functionRowsFrom(rows);
  }

  async rawTraces(afterTraceId: string, limit: number): Promise<{ traceId: string; raw: string }[]> {
    const rows = await this.rows(`SELECT trace_id, raw FROM raw_traces WHERE trace_id > ${BigInt(afterTraceId)} ORDER BY trace_id LIMIT ${Math.floor(limit)}`);
    return rows.map((r) => ({ traceId: String(r.trace_id), raw: String(r.raw) }));
  }

  async close(): Promise<void> {
    this.connection.closeSync();
    this.instance.closeSync();
  }

  private async rows(sql: string) {
    return (await this.connection.runAndReadAll(sql)).getRowObjectsJson();
  }

  private bigint(id: string): bigint {
    let value = this.bigints.get(id);
    if (value === undefined) {
      if (this.bigints.size >= MAX_CACHED_IDS) this.bigints = new Map();
      this.bigints.set(id, (value = BigInt(id)));
    }
    return value;
  }

  private day(day: string): DuckDBDateValue {
    let value = this.days.get(day);
    if (!value) this.days.set(day, (value = this.api.DuckDBDateValue.fromParts({ year: Number(day.slice(0, 4)), month: Number(day.slice(5, 7)), day: Number(day.slice(8, 10)) })));
    return value;
  }
}
