/** The embedded store: one DuckDB file, no server. `@duckdb/node-api` is an optional dependency, loaded on open. */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { FunctionRow } from '../identity';
import type { TraceRows } from '../rows';
import { Filter, FunctionTotalsRow, GroupBy, StackTotalsRow, Store, ViewCountsRow, WrittenIds, filterSql, functionRowsFrom, idList, functionTotalsFrom, viewCountsFrom } from '../store';
import { FUNCTIONS, STACKS, TABLES, Table, appendRows, createTableSql } from './schema';

type DuckDBApi = typeof import('@duckdb/node-api');

function loadDuckDB(): DuckDBApi {
  try {
    return require('@duckdb/node-api');
  } catch (error) {
    throw new Error(`the DuckDB store needs the package @duckdb/node-api, which is not installed (npm i @duckdb/node-api): ${(error as Error).message}`);
  }
}

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

export class DuckDBStore implements Store {
  readonly description: string;
  private constructor(
    private readonly api: DuckDBApi,
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
    private readonly writtenFunctions: WrittenIds,
    private readonly writtenStacks: WrittenIds,
    file: string,
  ) {
    this.description = `DuckDB ${file}`;
  }

  /** Opens (or creates) the store in `file` (':memory:' for one in memory). */
  static async open(file: string): Promise<DuckDBStore> {
    const api = loadDuckDB();
    const instance = await api.DuckDBInstance.create(file);
    const connection = await instance.connect();
    for (const table of [...TABLES, FUNCTIONS, STACKS]) await connection.run(createTableSql(table));
    const column = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson().map((row) => String(Object.values(row)[0]));
    const functions = new WrittenIds(await column('SELECT function_id FROM functions'));
    const stacks = new WrittenIds(await column('SELECT stack_id FROM stacks'));
    return new DuckDBStore(api, instance, connection, functions, stacks, file);
  }

  async storedTraces(traceIds: string[]): Promise<Set<string>> {
    const rows = await this.rows(`SELECT trace_id FROM traces WHERE trace_id IN (${idList(traceIds)})`);
    return new Set(rows.map((row) => String(row.trace_id)));
  }

  async write(traces: TraceRows[]): Promise<void> {
    await this.connection.run('BEGIN TRANSACTION');
    let functions: string[] = [];
    let stacks: string[] = [];
    try {
      for (const table of TABLES) await this.append(table, traces.flatMap(table.rows));
      const freshFunctions = this.writtenFunctions.fresh(traces.flatMap(FUNCTIONS.rows), (f) => f.functionId);
      functions = freshFunctions.map((f) => f.functionId);
      await this.append(FUNCTIONS, freshFunctions);
      const freshStacks = this.writtenStacks.fresh(traces.flatMap(STACKS.rows), (s) => s.stackId);
      stacks = freshStacks.map((s) => s.stackId);
      await this.append(STACKS, freshStacks);
      await this.connection.run('COMMIT');
    } catch (error) {
      await this.connection.run('ROLLBACK');
      // Rolled back: a retry of these rows writes them again.
      this.writtenFunctions.forget(functions);
      this.writtenStacks.forget(stacks);
      throw error;
    }
  }

  async viewCounts(filter: Filter, groupBy: GroupBy): Promise<ViewCountsRow[]> {
    const rows = await this.rows(`
      SELECT ${groupBy ?? "'all'"} AS grp, count(*) AS traces, sum(samples) AS samples, sum(busy_samples) AS busy_samples,
             sum(busy_ms) AS busy_ms, sum(idle_samples) AS idle_samples, sum(idle_ms) AS idle_ms
      FROM traces WHERE ${filterSql(filter, quote)} GROUP BY grp`);
    return viewCountsFrom(rows);
  }

  async functionTotals(filter: Filter, groupBy: GroupBy): Promise<FunctionTotalsRow[]> {
    const rows = await this.rows(`
      SELECT t.grp, t.function_id, f.name, f.file, t.traces, t.self_ms, t.total_ms, t.self_ms_squares, t.total_ms_squares
      FROM (SELECT ${groupBy ?? "'all'"} AS grp, function_id, count(*) AS traces, sum(self_ms) AS self_ms, sum(total_ms) AS total_ms,
                   sum(self_ms * self_ms) AS self_ms_squares, sum(total_ms * total_ms) AS total_ms_squares
            FROM trace_functions WHERE ${filterSql(filter, quote)} GROUP BY grp, function_id) t
      JOIN functions f USING (function_id)`);
    return functionTotalsFrom(rows);
  }

  async stackTotals(filter: Filter): Promise<StackTotalsRow[]> {
    const rows = await this.rows(`
      SELECT t.stack_id, s.function_ids, t.ms
      FROM (SELECT stack_id, sum(ms) AS ms FROM trace_stacks WHERE ${filterSql(filter, quote)} GROUP BY stack_id) t
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

  private async append<Row>(table: Table<Row>, rows: Row[]): Promise<void> {
    if (rows.length === 0) return;
    const appender = await this.connection.createAppender(table.name);
    try {
      appendRows(appender, table, rows, this.api);
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }
}
