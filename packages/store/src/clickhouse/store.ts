/** The store for scale: ClickHouse, through an executor (a server with @clickhouse/client, or chdb in-process). */
import type { FunctionRow, StackRow } from '../identity';
import type { Labels, TraceRows } from '../rows';
import { Filter, FunctionTotalsRow, GroupBy, LAYOUT_TABLE, StackTotalsRow, Store, ViewCountsRow, WrittenIds, storeLayout, filterSql, functionRowsFrom, idList, functionTotalsFrom, viewCountsFrom } from '../store';
import { ClickHouseExecutor } from './executor';
import { hashText } from '../hash';
import { ClickHouseSchemaOptions, DEFAULT_SCHEMA, SCHEMA_VERSION, layoutTableStatement, schemaStatements } from './schema';

/** A string literal as ClickHouse reads it: backslash and quote escaped. */
const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const labels = (r: Labels) => ({ day: r.day, release: r.release, page: r.page, browser: r.browser });

export class ClickHouseStore implements Store {
  readonly description: string;
  private readonly db: string;

  private constructor(
    private readonly executor: ClickHouseExecutor,
    options: ClickHouseSchemaOptions,
    private readonly writtenFunctions: WrittenIds,
    private readonly writtenStacks: WrittenIds,
  ) {
    this.db = options.database;
    this.description = `${executor.description}, database ${options.database}`;
  }

  /** Creates the schema if it is missing, and opens the store. */
  static async open(executor: ClickHouseExecutor, options: Partial<ClickHouseSchemaOptions> = {}): Promise<ClickHouseStore> {
    // Options given as undefined (a URL without ?database=) take the defaults.
    const schema = { ...DEFAULT_SCHEMA, ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) };
    // Made first: it refuses a database name or a retention it cannot write.
    const statements = schemaStatements(schema);
    const db = schema.database;
    const has = async (table: string) => Number((await executor.query(`EXISTS TABLE ${db}.${table}`))[0]?.result) === 1;
    const recorded = async () => Number((await executor.query(`SELECT max(schema_version) AS v FROM ${db}.${LAYOUT_TABLE}`))[0].v);
    // Layout 1 kept raw stacks as objects, and its tables have no deduplication windows.
    const version = await storeLayout(has, recorded, SCHEMA_VERSION, `${executor.description}, database ${db}`);
    // The layout's number first: a store whose making was cut short is finished by the next open.
    await executor.command(`CREATE DATABASE IF NOT EXISTS ${db}`);
    await executor.command(layoutTableStatement(db));
    if (version === null) await executor.insert(`${db}.${LAYOUT_TABLE}`, [{ schema_version: SCHEMA_VERSION }]);
    for (const statement of statements) await executor.command(statement);
    const column = async (sql: string) => (await executor.query(sql)).map((row) => String(Object.values(row)[0]));
    const functions = new WrittenIds(await column(`SELECT DISTINCT function_id FROM ${schema.database}.functions`));
    const stacks = new WrittenIds(await column(`SELECT DISTINCT stack_id FROM ${schema.database}.stacks`));
    return new ClickHouseStore(executor, schema, functions, stacks);
  }

  async storedTraces(traceIds: string[]): Promise<Set<string>> {
    const rows = await this.executor.query(`SELECT trace_id FROM ${this.db}.traces WHERE trace_id IN (${idList(traceIds)})`);
    return new Set(rows.map((row) => String(row.trace_id)));
  }

  async write(traces: TraceRows[]): Promise<void> {
    if (traces.length === 0) return;
    const functions = this.writtenFunctions.fresh(traces.flatMap((t) => t.functions), (f) => f.functionId);
    const stacks = this.writtenStacks.fresh(traces.flatMap((t) => t.stacks), (s) => s.stackId);
    try {
      await this.insert(traces, functions, stacks);
    } catch (error) {
      // Not written after all: a retry of these rows writes them again.
      this.writtenFunctions.forget(functions.map((f) => f.functionId));
      this.writtenStacks.forget(stacks.map((s) => s.stackId));
      throw error;
    }
  }

  private async insert(traces: TraceRows[], functions: FunctionRow[], stacks: StackRow[]): Promise<void> {
    // ClickHouse has no transaction across tables. Each insert of per-trace rows is named by the
    // batch's traces, so when a batch fails halfway and is written again, the inserts already taken
    // are skipped (with the rollups their views add) instead of counted twice. The dictionaries
    // need no name: they are ReplacingMergeTree, where a row written twice is one row.
    const batch = hashText(traces.map((t) => t.trace.traceId).join(','));
    // On a cluster, an insert returns once its rows are in the shards' tables, not queued for them.
    const inShards = { distributed_foreground_insert: 1 };
    const once = (table: string) => ({ ...inShards, insert_deduplication_token: `${batch}-${table}`, deduplicate_blocks_in_dependent_materialized_views: 1 });
    // Dictionaries first: a query never finds time for a function or stack it cannot name.
    await this.executor.insert(`${this.db}.functions`, functions.map((f: FunctionRow) => ({ function_id: f.functionId, file: f.file, name: f.name })), inShards);
    await this.executor.insert(`${this.db}.stacks`, stacks.map((s: StackRow) => ({ stack_id: s.stackId, parent_id: s.parentId, function_id: s.functionId, function_ids: s.functionIds })), inShards);
    await this.executor.insert(`${this.db}.raw_traces`, traces.map(({ raw }) => ({ trace_id: raw.traceId, day: raw.day, raw: raw.raw })), once('raw_traces'));
    await this.executor.insert(
      `${this.db}.trace_functions`,
      traces.flatMap(({ trace, functionTimes: f }) => f.functionIds.map((id, i) => ({ trace_id: trace.traceId, ...labels(trace), function_id: id, self_ms: f.selfMs[i], total_ms: f.totalMs[i] }))),
      once('trace_functions'),
    );
    await this.executor.insert(
      `${this.db}.trace_stacks`,
      traces.flatMap(({ trace, stackTimes: s }) => s.stackIds.map((id, i) => ({ trace_id: trace.traceId, ...labels(trace), stack_id: id, samples: s.samples[i], ms: s.ms[i] }))),
      once('trace_stacks'),
    );
    // The trace rows last: a trace is stored (storedTraces) once all of its rows are.
    await this.executor.insert(
      `${this.db}.traces`,
      traces.map(({ trace: r }) => ({
        trace_id: r.traceId,
        ...labels(r),
        meta: r.meta,
        interval_ms: r.intervalMs,
        samples: r.samples,
        busy_samples: r.busySamples,
        idle_samples: r.idleSamples,
        busy_ms: r.busyMs,
        idle_ms: r.idleMs,
      })),
      once('traces'),
    );
  }

  async viewCounts(filter: Filter, groupBy: GroupBy): Promise<ViewCountsRow[]> {
    const rows = await this.executor.query(`
      SELECT ${groupBy ?? "'all'"} AS grp, sum(traces) AS traces, sum(samples) AS samples, sum(busy_samples) AS busy_samples,
             sum(busy_ms) AS busy_ms, sum(idle_samples) AS idle_samples, sum(idle_ms) AS idle_ms
      FROM ${this.db}.traces_daily WHERE ${filterSql(filter, quote)} GROUP BY grp`);
    return viewCountsFrom(rows);
  }

  async functionTotals(filter: Filter, groupBy: GroupBy): Promise<FunctionTotalsRow[]> {
    const rows = await this.executor.query(`
      WITH totals AS (
        SELECT ${groupBy ?? "'all'"} AS grp, function_id, sum(traces) AS traces, sum(self_ms) AS self_ms, sum(total_ms) AS total_ms,
               sum(self_ms_squares) AS self_ms_squares, sum(total_ms_squares) AS total_ms_squares
        FROM ${this.db}.functions_daily WHERE ${filterSql(filter, quote)} GROUP BY grp, function_id)
      SELECT totals.*, names.name AS name, names.file AS file
      FROM totals
      JOIN (SELECT function_id, any(name) AS name, any(file) AS file FROM ${this.db}.functions
            WHERE function_id GLOBAL IN (SELECT function_id FROM totals) GROUP BY function_id) AS names USING (function_id)`);
    return functionTotalsFrom(rows);
  }

  async stackTotals(filter: Filter): Promise<StackTotalsRow[]> {
    const rows = await this.executor.query(`
      WITH totals AS (SELECT stack_id, sum(ms) AS ms FROM ${this.db}.stacks_daily WHERE ${filterSql(filter, quote)} GROUP BY stack_id)
      SELECT totals.stack_id AS stack_id, chains.function_ids AS function_ids, totals.ms AS ms
      FROM totals
      JOIN (SELECT stack_id, any(function_ids) AS function_ids FROM ${this.db}.stacks
            WHERE stack_id GLOBAL IN (SELECT stack_id FROM totals) GROUP BY stack_id) AS chains USING (stack_id)`);
    return rows.map((r) => ({ stackId: String(r.stack_id), functionIds: (r.function_ids as unknown[]).map(String), ms: Number(r.ms) }));
  }

  async functions(functionIds: string[]): Promise<FunctionRow[]> {
    const rows = await this.executor.query(`
      SELECT function_id, any(file) AS file, any(name) AS name FROM ${this.db}.functions
      WHERE function_id IN (${idList(functionIds)}) GROUP BY function_id`);
    return functionRowsFrom(rows);
  }

  async rawTraces(afterTraceId: string, limit: number): Promise<{ traceId: string; raw: string }[]> {
    const rows = await this.executor.query(`SELECT trace_id, raw FROM ${this.db}.raw_traces WHERE trace_id > ${BigInt(afterTraceId)} ORDER BY trace_id LIMIT ${Math.floor(limit)}`);
    return rows.map((r) => ({ traceId: String(r.trace_id), raw: String(r.raw) }));
  }

  close(): Promise<void> {
    return this.executor.close();
  }
}
