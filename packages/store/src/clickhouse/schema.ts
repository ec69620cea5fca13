/**
 * The ClickHouse tables. Per-trace rows (`traces`, `trace_functions`, `trace_stacks`, `raw_traces`)
 * are kept for `rawDays` (TTL); materialized views fill day rollups (`*_daily`, SummingMergeTree)
 * as rows arrive, kept for `rollupDays`. The queries read the rollups. Every sorting key starts
 * with the labels the queries filter on (release, page, browser), then the day, so a release's rows
 * are one range of the primary index; functions and stacks are dictionaries keyed by their ids.
 *
 * One list of tables, written out two ways: for one server (what the store creates when it opens),
 * and for a cluster (`clusterSchemaStatements`), where each table is a local table on every shard
 * behind a `Distributed` table of the name the queries use.
 */

import { LAYOUT_TABLE } from '../store';

export interface ClickHouseSchemaOptions {
  /** The database the tables live in. */
  database: string;
  /** Days per-trace rows are kept. */
  rawDays: number;
  /** Days the day rollups are kept. */
  rollupDays: number;
}

export interface ClusterSchemaOptions extends ClickHouseSchemaOptions {
  /** The cluster's name in the servers' `remote_servers`. */
  cluster: string;
  /** Replicated local tables (the `{shard}` and `{replica}` macros set on each server); false for shards without replicas. */
  replicated: boolean;
  /** `ON CLUSTER` on every statement; false to run the statements on each server yourself. */
  onCluster: boolean;
}

export const DEFAULT_SCHEMA: ClickHouseSchemaOptions = { database: 'jsprof', rawDays: 30, rollupDays: 400 };

/** The layout of these tables, recorded in `jsprof_store`; a store of another layout is refused rather than misread. */
export const SCHEMA_VERSION = 2;

const LABELS = 'day Date, release LowCardinality(String), page LowCardinality(String), browser LowCardinality(String)';
const LABEL_KEY = 'release, page, browser, day';
/** Inserts per table whose tokens ClickHouse remembers. */
const DEDUPLICATION_WINDOW = 1000;

/** The table a store records its layout in (the store's own, on each server of a cluster). */
export function layoutTableStatement(db: string, onCluster = ''): string {
  return `CREATE TABLE IF NOT EXISTS ${db}.${LAYOUT_TABLE}${onCluster} (schema_version UInt32) ENGINE = ReplacingMergeTree ORDER BY schema_version`;
}

/** What a table keeps, and for how long: per-trace rows, a dictionary, or a day rollup. */
type Kind = 'raw' | 'dictionary' | 'rollup';

interface Table {
  name: string;
  columns: string;
  kind: Kind;
  orderBy: string;
  /** The cluster form's sharding key; a rollup has none, being filled on each shard by its view. */
  shardBy?: string;
  /** A rollup's view: its SELECT, with `{source}` for the table it reads. */
  view?: { source: string; select: string };
}

const TABLES: Table[] = [
  {
    name: 'traces',
    columns: `trace_id UInt64, ${LABELS}, meta String, interval_ms Float64, samples UInt32, busy_samples UInt32, idle_samples UInt32, busy_ms Float64, idle_ms Float64`,
    kind: 'raw',
    orderBy: `${LABEL_KEY}, trace_id`,
    shardBy: 'trace_id',
  },
  {
    name: 'trace_functions',
    columns: `trace_id UInt64, ${LABELS}, function_id UInt64, self_ms Float64, total_ms Float64`,
    kind: 'raw',
    orderBy: `${LABEL_KEY}, function_id, trace_id`,
    shardBy: 'trace_id',
  },
  {
    name: 'trace_stacks',
    columns: `trace_id UInt64, ${LABELS}, stack_id UInt64, samples UInt32, ms Float64`,
    kind: 'raw',
    orderBy: `${LABEL_KEY}, stack_id, trace_id`,
    shardBy: 'trace_id',
  },
  { name: 'raw_traces', columns: 'trace_id UInt64, day Date, raw String CODEC(ZSTD(3))', kind: 'raw', orderBy: 'day, trace_id', shardBy: 'trace_id' },
  { name: 'functions', columns: 'function_id UInt64, file String, name String', kind: 'dictionary', orderBy: 'function_id', shardBy: 'function_id' },
  { name: 'stacks', columns: 'stack_id UInt64, parent_id UInt64, function_id UInt64, function_ids Array(UInt64)', kind: 'dictionary', orderBy: 'stack_id', shardBy: 'stack_id' },
  {
    name: 'traces_daily',
    columns: `${LABELS}, traces UInt64, samples UInt64, busy_samples UInt64, busy_ms Float64, idle_samples UInt64, idle_ms Float64`,
    kind: 'rollup',
    orderBy: LABEL_KEY,
    view: {
      source: 'traces',
      select: `SELECT day, release, page, browser, count() AS traces, sum(samples) AS samples, sum(busy_samples) AS busy_samples,
            sum(busy_ms) AS busy_ms, sum(idle_samples) AS idle_samples, sum(idle_ms) AS idle_ms
     FROM {source} GROUP BY day, release, page, browser`,
    },
  },
  {
    name: 'functions_daily',
    columns: `${LABELS}, function_id UInt64, traces UInt64, self_ms Float64, total_ms Float64, self_ms_squares Float64, total_ms_squares Float64`,
    kind: 'rollup',
    orderBy: `${LABEL_KEY}, function_id`,
    view: {
      source: 'trace_functions',
      select: `SELECT day, release, page, browser, function_id, count() AS traces, sum(self_ms) AS self_ms, sum(total_ms) AS total_ms,
            sum(self_ms_square) AS self_ms_squares, sum(total_ms_square) AS total_ms_squares
     FROM (SELECT *, self_ms * self_ms AS self_ms_square, total_ms * total_ms AS total_ms_square FROM {source})
     GROUP BY day, release, page, browser, function_id`,
    },
  },
  {
    name: 'stacks_daily',
    columns: `${LABELS}, stack_id UInt64, samples UInt64, ms Float64`,
    kind: 'rollup',
    orderBy: `${LABEL_KEY}, stack_id`,
    view: { source: 'trace_stacks', select: 'SELECT day, release, page, browser, stack_id, sum(samples) AS samples, sum(ms) AS ms\n     FROM {source} GROUP BY day, release, page, browser, stack_id' },
  },
];

const ENGINE: Record<Kind, string> = { raw: 'MergeTree', dictionary: 'ReplacingMergeTree', rollup: 'SummingMergeTree' };

/**
 * ENGINE and what follows it. Deduplication windows make a batch written again after a failure
 * idempotent: the store names each insert (insert_deduplication_token), an insert already taken
 * is skipped, and the rows its materialized views add carry the name on, so the rollups skip them
 * too (they need a window of their own for that: ClickHouse 26 runs the views even for a skipped
 * insert). The dictionaries need none: a row written twice is one row of a ReplacingMergeTree.
 */
function engineClause(table: Table, { rawDays, rollupDays }: ClickHouseSchemaOptions, replicatedAt?: string): string {
  const engine = replicatedAt ? `Replicated${ENGINE[table.kind]}('${replicatedAt}', '{replica}')` : ENGINE[table.kind];
  if (table.kind === 'dictionary') return `ENGINE = ${engine} ORDER BY ${table.orderBy}`;
  const days = table.kind === 'raw' ? rawDays : rollupDays;
  const window = `${replicatedAt ? '' : 'non_'}replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`;
  return `ENGINE = ${engine} PARTITION BY toYYYYMM(day) ORDER BY (${table.orderBy}) TTL day + INTERVAL ${Math.floor(days)} DAY SETTINGS ${window}`;
}

/** A name SQL takes without quoting: letters, digits and _, not starting with a digit. */
export const isPlainName = (name: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);

function checkOptions(options: ClickHouseSchemaOptions): void {
  if (!isPlainName(options.database)) throw new Error(`${options.database}: not a plain database name`);
  for (const [name, days] of [['rawDays', options.rawDays], ['rollupDays', options.rollupDays]] as const) {
    if (!Number.isInteger(days) || days < 1) throw new Error(`${name}: ${days} is not a whole number of days of 1 or more`);
  }
}

/** The statements that create the schema on one server, in order; each can run again (the store runs them as it opens). */
export function schemaStatements(options: ClickHouseSchemaOptions): string[] {
  checkOptions(options);
  const db = options.database;
  const statements = [`CREATE DATABASE IF NOT EXISTS ${db}`, layoutTableStatement(db)];
  for (const table of TABLES) {
    statements.push(`CREATE TABLE IF NOT EXISTS ${db}.${table.name} (${table.columns})\n     ${engineClause(table, options)}`);
    if (table.view) {
      const select = table.view.select.replace('{source}', `${db}.${table.view.source}`);
      statements.push(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${table.name}_mv TO ${db}.${table.name} AS\n     ${select}`);
    }
  }
  return statements;
}

/**
 * The statements that create the schema on a cluster, to run once before the store first opens it
 * (the store then finds every table and view by name and adds none). Each table is `<name>_local`
 * on every shard, with a `Distributed` table named as the queries name it, sharded by `trace_id`
 * for the per-trace rows (a trace's rows stay on one shard) and by their ids for the dictionaries
 * (a ReplacingMergeTree replaces only within a shard). Views fill each shard's rollups from its own
 * rows; the queries' sums through the `Distributed` rollups add up the shards' partial sums. The
 * store's own layout table is a local table on each server: the store records its layout in it
 * through whichever server it reaches.
 */
export function clusterSchemaStatements(options: ClusterSchemaOptions): string[] {
  checkOptions(options);
  const { database: db, cluster } = options;
  if (!/^[A-Za-z0-9_{}.-]+$/.test(cluster)) throw new Error(`${cluster}: not a plain cluster name`);
  const on = options.onCluster ? ` ON CLUSTER '${cluster}'` : '';
  const statements = [`CREATE DATABASE IF NOT EXISTS ${db}${on}`, layoutTableStatement(db, on)];
  for (const table of TABLES) {
    const local = `${db}.${table.name}_local`;
    const replicatedAt = options.replicated ? `/clickhouse/tables/{shard}/${db}/${table.name}` : undefined;
    statements.push(`CREATE TABLE IF NOT EXISTS ${local}${on} (${table.columns})\n     ${engineClause(table, options, replicatedAt)}`);
    if (table.view) {
      // Named as the single-server view, so that the store's CREATE … IF NOT EXISTS finds it and adds none.
      const select = table.view.select.replace('{source}', `${db}.${table.view.source}_local`);
      statements.push(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${table.name}_mv${on} TO ${local} AS\n     ${select}`);
    }
    const shardBy = table.shardBy ? `, ${table.shardBy}` : '';
    statements.push(`CREATE TABLE IF NOT EXISTS ${db}.${table.name}${on} AS ${local}\n     ENGINE = Distributed('${cluster}', ${db}, ${table.name}_local${shardBy})`);
  }
  return statements;
}
