/**
 * The DuckDB tables: the row model as it is (rows.ts), one table per kind of row. DuckDB scans
 * columns fast enough that the queries read the per-trace rows directly; there are no rollups.
 */
import type { DuckDBAppender } from '@duckdb/node-api';
import type { FunctionRow, StackRow } from '../identity';
import type { Labels, TraceFunctionRow, TraceRow, TraceRows, TraceStackRow } from '../rows';

type Append = (appender: DuckDBAppender, value: any) => void;

interface Column<Row> {
  name: string;
  type: string;
  value: (row: Row) => unknown;
}

export interface Table<Row> {
  name: string;
  columns: Column<Row>[];
  rows: (trace: TraceRows) => Row[];
}

const LABEL_COLUMNS: Column<Labels>[] = [
  { name: 'day', type: 'DATE', value: (r) => r.day },
  { name: 'release', type: 'VARCHAR', value: (r) => r.release },
  { name: 'page', type: 'VARCHAR', value: (r) => r.page },
  { name: 'browser', type: 'VARCHAR', value: (r) => r.browser },
];

export const TABLES: Table<any>[] = [
  {
    name: 'traces',
    rows: (t) => [t.trace],
    columns: [
      { name: 'trace_id', type: 'UBIGINT', value: (r: TraceRow) => r.traceId },
      ...LABEL_COLUMNS,
      { name: 'meta', type: 'VARCHAR', value: (r: TraceRow) => r.meta },
      { name: 'interval_ms', type: 'DOUBLE', value: (r: TraceRow) => r.intervalMs },
      { name: 'samples', type: 'INTEGER', value: (r: TraceRow) => r.samples },
      { name: 'busy_samples', type: 'INTEGER', value: (r: TraceRow) => r.busySamples },
      { name: 'idle_samples', type: 'INTEGER', value: (r: TraceRow) => r.idleSamples },
      { name: 'busy_ms', type: 'DOUBLE', value: (r: TraceRow) => r.busyMs },
      { name: 'idle_ms', type: 'DOUBLE', value: (r: TraceRow) => r.idleMs },
    ],
  } satisfies Table<TraceRow>,
  {
    name: 'trace_functions',
    rows: (t) => t.traceFunctions,
    columns: [
      { name: 'trace_id', type: 'UBIGINT', value: (r: TraceFunctionRow) => r.traceId },
      ...LABEL_COLUMNS,
      { name: 'function_id', type: 'UBIGINT', value: (r: TraceFunctionRow) => r.functionId },
      { name: 'self_ms', type: 'DOUBLE', value: (r: TraceFunctionRow) => r.selfMs },
      { name: 'total_ms', type: 'DOUBLE', value: (r: TraceFunctionRow) => r.totalMs },
    ],
  } satisfies Table<TraceFunctionRow>,
  {
    name: 'trace_stacks',
    rows: (t) => t.traceStacks,
    columns: [
      { name: 'trace_id', type: 'UBIGINT', value: (r: TraceStackRow) => r.traceId },
      ...LABEL_COLUMNS,
      { name: 'stack_id', type: 'UBIGINT', value: (r: TraceStackRow) => r.stackId },
      { name: 'samples', type: 'INTEGER', value: (r: TraceStackRow) => r.samples },
      { name: 'ms', type: 'DOUBLE', value: (r: TraceStackRow) => r.ms },
    ],
  } satisfies Table<TraceStackRow>,
  {
    name: 'raw_traces',
    rows: (t) => [t.raw],
    columns: [
      { name: 'trace_id', type: 'UBIGINT', value: (r: TraceRows['raw']) => r.traceId },
      { name: 'day', type: 'DATE', value: (r: TraceRows['raw']) => r.day },
      { name: 'raw', type: 'VARCHAR', value: (r: TraceRows['raw']) => r.raw },
    ],
  } satisfies Table<TraceRows['raw']>,
];

/** Functions and stacks are written once each, not per trace: the store filters them (WrittenIds). */
export const FUNCTIONS: Table<FunctionRow> = {
  name: 'functions',
  rows: (t) => t.functions,
  columns: [
    { name: 'function_id', type: 'UBIGINT', value: (r) => r.functionId },
    { name: 'file', type: 'VARCHAR', value: (r) => r.file },
    { name: 'name', type: 'VARCHAR', value: (r) => r.name },
  ],
};

export const STACKS: Table<StackRow> = {
  name: 'stacks',
  rows: (t) => t.stacks,
  columns: [
    { name: 'stack_id', type: 'UBIGINT', value: (r) => r.stackId },
    { name: 'parent_id', type: 'UBIGINT', value: (r) => r.parentId },
    { name: 'function_id', type: 'UBIGINT', value: (r) => r.functionId },
    { name: 'function_ids', type: 'UBIGINT[]', value: (r) => r.functionIds },
  ],
};

export function createTableSql(table: Table<any>): string {
  return `CREATE TABLE IF NOT EXISTS ${table.name} (${table.columns.map((c) => `${c.name} ${c.type}`).join(', ')})`;
}

function appenderFor(type: string, api: typeof import('@duckdb/node-api')): Append {
  switch (type) {
    case 'UBIGINT':
      return (a, v: string) => a.appendUBigInt(BigInt(v));
    case 'UBIGINT[]':
      return (a, v: string[]) => a.appendList(v.map((id) => BigInt(id)), api.LIST(api.UBIGINT));
    case 'DATE': {
      const days = new Map<string, import('@duckdb/node-api').DuckDBDateValue>();
      const dateOf = (v: string) => api.DuckDBDateValue.fromParts({ year: Number(v.slice(0, 4)), month: Number(v.slice(5, 7)), day: Number(v.slice(8, 10)) });
      return (a, v: string) => {
        let date = days.get(v);
        if (!date) days.set(v, (date = dateOf(v)));
        a.appendDate(date);
      };
    }
    case 'VARCHAR':
      return (a, v: string) => a.appendVarchar(v);
    case 'DOUBLE':
      return (a, v: number) => a.appendDouble(v);
    case 'INTEGER':
      return (a, v: number) => a.appendInteger(v);
    default:
      throw new Error(`no appender for ${type}`);
  }
}

/** Appends rows to a table through DuckDB's appender, a column at a time per row. */
export function appendRows<Row>(appender: DuckDBAppender, table: Table<Row>, rows: Row[], api: typeof import('@duckdb/node-api')): void {
  const appends = table.columns.map((column) => ({ value: column.value, append: appenderFor(column.type, api) }));
  for (const row of rows) {
    for (const { value, append } of appends) append(appender, value(row));
    appender.endRow();
  }
}
