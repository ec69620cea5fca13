/**
 * The interface every store implements: write the rows of traces, and answer the few aggregate
 * queries that `top`, `flame` and `diff` are built from (queries.ts). Both engines keep the same
 * row model (rows.ts); the README describes their tables.
 */
import type { AggregateCounts } from '@jsprof/trace-tools';
import type { FunctionRow } from './identity';
import type { Label, TraceRows } from './rows';

/** Which traces a query covers: equal labels, and days from `from` to `to` (YYYY-MM-DD, inclusive). */
export interface Filter {
  release?: string;
  page?: string;
  browser?: string;
  from?: string;
  to?: string;
}

/** One view per value of a label, or a single view of everything (null). */
export type GroupBy = Label | null;

/** A view's counts, as `jsprof aggregate` gives them. */
export interface ViewCountsRow extends AggregateCounts {
  group: string;
}

export interface FunctionTotalsRow {
  group: string;
  functionId: string;
  name: string;
  file: string;
  /** Traces in which the function ran. */
  traces: number;
  selfMs: number;
  totalMs: number;
  /** Sums over traces of the squares of each trace's self and total ms: the spread between traces. */
  selfMsSquares: number;
  totalMsSquares: number;
}

export interface StackTotalsRow {
  stackId: string;
  /** Outermost first. */
  functionIds: string[];
  ms: number;
}

export interface Store {
  /** What and where it is, for messages. */
  readonly description: string;
  /** Of these trace ids, those already stored. */
  storedTraces(traceIds: string[]): Promise<Set<string>>;
  write(rows: TraceRows[]): Promise<void>;
  viewCounts(filter: Filter, groupBy: GroupBy): Promise<ViewCountsRow[]>;
  functionTotals(filter: Filter, groupBy: GroupBy): Promise<FunctionTotalsRow[]>;
  /** Time per stack that is innermost in some sample. */
  stackTotals(filter: Filter): Promise<StackTotalsRow[]>;
  functions(functionIds: string[]): Promise<FunctionRow[]>;
  /** Up to `limit` raw traces (RawTrace as JSON) with ids above `afterTraceId`, by id. */
  rawTraces(afterTraceId: string, limit: number): Promise<{ traceId: string; raw: string }[]>;
  close(): Promise<void>;
}

/** The table where a store records the number of its layout. */
export const LAYOUT_TABLE = 'jsprof_store';

/**
 * The layout a store was made with, as both engines tell it: the number it records, 1 for a store
 * made before layouts were numbered (traces but no record), null for a new one. A store of another
 * layout than `reads` is refused, never misread; `where` names it in the message.
 */
export async function storeLayout(has: (table: string) => Promise<boolean>, recorded: () => Promise<number>, reads: number, where: string): Promise<number | null> {
  // An empty layout table is a store whose making was cut short, or a cluster's schema made before
  // the store first opened it: the layout is recorded now.
  const found = (await has(LAYOUT_TABLE)) ? (await recorded()) || null : (await has('traces')) ? 1 : null;
  if (found !== null && found !== reads) throw new Error(`${where}: a store written by another version of jsprof (layout ${found}; this one reads ${reads}): ingest the trace files into a new store`);
  return found;
}

/** A list of ids for SQL's `IN (…)`: numbers, checked as such (NULL for none). */
export const idList = (list: string[]): string => (list.length ? list.map((id) => `${BigInt(id)}`).join(', ') : 'NULL');

/** The SQL condition of a filter, with string literals quoted by the engine's rule. */
export function filterSql(filter: Filter, quote: (text: string) => string): string {
  const conditions = ['1 = 1'];
  for (const label of ['release', 'page', 'browser'] as const) {
    if (filter[label] !== undefined) conditions.push(`${label} = ${quote(filter[label]!)}`);
  }
  if (filter.from !== undefined) conditions.push(`day >= ${quote(filter.from)}`);
  if (filter.to !== undefined) conditions.push(`day <= ${quote(filter.to)}`);
  return conditions.join(' AND ');
}

/** The ids not yet written by this process (or found stored when it opened): functions and stacks are written once. */
export class WrittenIds {
  private readonly ids = new Set<string>();

  constructor(known: Iterable<string> = []) {
    for (const id of known) this.ids.add(id);
  }

  /** The rows whose id is new, marking them written. */
  fresh<T>(rows: T[], idOf: (row: T) => string): T[] {
    return rows.filter((row) => {
      const id = idOf(row);
      if (this.ids.has(id)) return false;
      this.ids.add(id);
      return true;
    });
  }

  /** Ids marked by `fresh` whose rows were not written after all. */
  forget(ids: Iterable<string>): void {
    for (const id of ids) this.ids.delete(id);
  }
}

type SqlRow = Record<string, unknown>;

/** `viewCounts` rows from SQL rows with the columns both stores select. */
export function viewCountsFrom(rows: SqlRow[]): ViewCountsRow[] {
  return rows.map((r) => ({
    group: String(r.grp),
    traces: Number(r.traces),
    samples: Number(r.samples),
    busySamples: Number(r.busy_samples),
    busyMs: Number(r.busy_ms),
    idleSamples: Number(r.idle_samples),
    idleMs: Number(r.idle_ms),
  }));
}

/** `functionTotals` rows from SQL rows with the columns both stores select. */
export function functionTotalsFrom(rows: SqlRow[]): FunctionTotalsRow[] {
  return rows.map((r) => ({
    group: String(r.grp),
    functionId: String(r.function_id),
    name: String(r.name),
    file: String(r.file),
    traces: Number(r.traces),
    selfMs: Number(r.self_ms),
    totalMs: Number(r.total_ms),
    selfMsSquares: Number(r.self_ms_squares),
    totalMsSquares: Number(r.total_ms_squares),
  }));
}

export function functionRowsFrom(rows: SqlRow[]): FunctionRow[] {
  return rows.map((r) => ({ functionId: String(r.function_id), file: String(r.file), name: String(r.name) }));
}
