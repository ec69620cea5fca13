/**
 * The DuckDB tables: the row model (rows.ts) with each trace's labels (day, release, page,
 * browser) kept once in `labels` and named by a number in the per-trace rows, so the large tables
 * hold numbers only. DuckDB scans columns fast enough that the queries read the per-trace rows
 * directly; there are no rollups.
 */
import type { DuckDBAppender, DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import { LAYOUT_TABLE } from '../store';

type DuckDBApi = typeof import('@duckdb/node-api');

export interface Table {
  name: string;
  columns: [name: string, type: (api: DuckDBApi) => DuckDBType][];
}

const UBIGINT = (api: DuckDBApi) => api.UBIGINT;
const UINTEGER = (api: DuckDBApi) => api.UINTEGER;
const INTEGER = (api: DuckDBApi) => api.INTEGER;
const DOUBLE = (api: DuckDBApi) => api.DOUBLE;
const VARCHAR = (api: DuckDBApi) => api.VARCHAR;
const DATE = (api: DuckDBApi) => api.DATE;
const ID_LIST = (api: DuckDBApi) => api.LIST(api.UBIGINT);

export const LABELS: Table = { name: 'labels', columns: [['label_id', UINTEGER], ['day', DATE], ['release', VARCHAR], ['page', VARCHAR], ['browser', VARCHAR]] };
export const TRACES: Table = {
  name: 'traces',
  columns: [['trace_id', UBIGINT], ['label_id', UINTEGER], ['meta', VARCHAR], ['interval_ms', DOUBLE], ['samples', INTEGER], ['busy_samples', INTEGER], ['idle_samples', INTEGER], ['busy_ms', DOUBLE], ['idle_ms', DOUBLE]],
};
export const TRACE_FUNCTIONS: Table = { name: 'trace_functions', columns: [['trace_id', UBIGINT], ['label_id', UINTEGER], ['function_id', UBIGINT], ['self_ms', DOUBLE], ['total_ms', DOUBLE]] };
export const TRACE_STACKS: Table = { name: 'trace_stacks', columns: [['trace_id', UBIGINT], ['label_id', UINTEGER], ['stack_id', UBIGINT], ['samples', INTEGER], ['ms', DOUBLE]] };
export const RAW_TRACES: Table = { name: 'raw_traces', columns: [['trace_id', UBIGINT], ['day', DATE], ['raw', VARCHAR]] };
/** Functions and stacks are written once each, not per trace: the store filters them (WrittenIds). */
export const FUNCTIONS: Table = { name: 'functions', columns: [['function_id', UBIGINT], ['file', VARCHAR], ['name', VARCHAR]] };
export const STACKS: Table = { name: 'stacks', columns: [['stack_id', UBIGINT], ['parent_id', UBIGINT], ['function_id', UBIGINT], ['function_ids', ID_LIST]] };

/** The layout of these tables; a store records it, and one of another layout is refused rather than misread. */
export const SCHEMA_VERSION = 2;
const VERSION_TABLE: Table = { name: LAYOUT_TABLE, columns: [['schema_version', INTEGER]] };

export const TABLES = [LABELS, TRACES, TRACE_FUNCTIONS, TRACE_STACKS, RAW_TRACES, FUNCTIONS, STACKS, VERSION_TABLE];

export function createTableSql(table: Table, api: DuckDBApi): string {
  return `CREATE TABLE IF NOT EXISTS ${table.name} (${table.columns.map(([name, type]) => `${name} ${type(api).toString()}`).join(', ')})`;
}

/** Rows of a table, a column at a time: values of the types DuckDB's vectors take (bigint for UBIGINT, DuckDBDateValue for DATE, …). */
export class Columns {
  readonly values: unknown[][];

  constructor(readonly table: Table) {
    this.values = table.columns.map(() => []);
  }

  get rows(): number {
    return this.values[0].length;
  }
}

/** DuckDB's most rows in one data chunk. */
const CHUNK_ROWS = 2048;

/** Appends the rows through one appender, a data chunk (up to 2,048 rows, a column at a time) after another. */
export async function appendColumns(connection: DuckDBConnection, api: DuckDBApi, columns: Columns): Promise<void> {
  const rows = columns.rows;
  if (rows === 0) return;
  const types = columns.table.columns.map(([, type]) => type(api));
  const appender: DuckDBAppender = await connection.createAppender(columns.table.name);
  try {
    for (let start = 0; start < rows; start += CHUNK_ROWS) {
      const count = Math.min(CHUNK_ROWS, rows - start);
      const chunk = api.DuckDBDataChunk.create(types, count);
      columns.values.forEach((values, i) => chunk.setColumnValues(i, (values as any[]).slice(start, start + count)));
      appender.appendDataChunk(chunk);
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}
