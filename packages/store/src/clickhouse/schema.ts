/**
 * The ClickHouse tables. Per-trace rows (`traces`, `trace_functions`, `trace_stacks`, `raw_traces`)
 * are kept for `rawDays` (TTL); materialized views fill day rollups (`*_daily`, SummingMergeTree)
 * as rows arrive, kept for `rollupDays`. The queries read the rollups. Every sorting key starts
 * with the labels the queries filter on (release, page, browser), then the day, so a release's rows
 * are one range of the primary index; functions and stacks are dictionaries keyed by their ids.
 */

export interface ClickHouseSchemaOptions {
  /** The database the tables live in. */
  database: string;
  /** Days per-trace rows are kept. */
  rawDays: number;
  /** Days the day rollups are kept. */
  rollupDays: number;
}

export const DEFAULT_SCHEMA: ClickHouseSchemaOptions = { database: 'jsprof', rawDays: 30, rollupDays: 400 };

/** The layout of these tables, recorded in `jsprof_store`; a store of another layout is refused rather than misread. */
export const SCHEMA_VERSION = 2;

const LABELS = 'day Date, release LowCardinality(String), page LowCardinality(String), browser LowCardinality(String)';
const LABEL_KEY = 'release, page, browser, day';
/** Inserts per table whose tokens ClickHouse remembers. */
const DEDUPLICATION_WINDOW = 1000;

/** The statements that create the schema, in order; each can run again. */
export function schemaStatements({ database: db, rawDays, rollupDays }: ClickHouseSchemaOptions): string[] {
  // Deduplication windows make a batch written again after a failure idempotent: the store names
  // each insert (insert_deduplication_token), an insert already taken is skipped, and the rows its
  // materialized views add carry the name on, so the rollups skip them too (they need a window of
  // their own for that: ClickHouse 26 runs the views even for a skipped insert).
  const dedup = `SETTINGS non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`;
  const raw = (orderBy: string) => `ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (${orderBy}) TTL day + INTERVAL ${rawDays} DAY ${dedup}`;
  const rollup = (orderBy: string) => `ENGINE = SummingMergeTree PARTITION BY toYYYYMM(day) ORDER BY (${orderBy}) TTL day + INTERVAL ${rollupDays} DAY ${dedup}`;
  return [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    `CREATE TABLE IF NOT EXISTS ${db}.traces (trace_id UInt64, ${LABELS}, meta String, interval_ms Float64,
       samples UInt32, busy_samples UInt32, idle_samples UInt32, busy_ms Float64, idle_ms Float64)
     ${raw(`${LABEL_KEY}, trace_id`)}`,
    `CREATE TABLE IF NOT EXISTS ${db}.trace_functions (trace_id UInt64, ${LABELS}, function_id UInt64, self_ms Float64, total_ms Float64)
     ${raw(`${LABEL_KEY}, function_id, trace_id`)}`,
    `CREATE TABLE IF NOT EXISTS ${db}.trace_stacks (trace_id UInt64, ${LABELS}, stack_id UInt64, samples UInt32, ms Float64)
     ${raw(`${LABEL_KEY}, stack_id, trace_id`)}`,
    `CREATE TABLE IF NOT EXISTS ${db}.raw_traces (trace_id UInt64, day Date, raw String CODEC(ZSTD(3)))
     ${raw('day, trace_id')}`,
    `CREATE TABLE IF NOT EXISTS ${db}.functions (function_id UInt64, file String, name String)
     ENGINE = ReplacingMergeTree ORDER BY function_id`,
    `CREATE TABLE IF NOT EXISTS ${db}.stacks (stack_id UInt64, parent_id UInt64, function_id UInt64, function_ids Array(UInt64))
     ENGINE = ReplacingMergeTree ORDER BY stack_id`,

    `CREATE TABLE IF NOT EXISTS ${db}.traces_daily (${LABELS}, traces UInt64, samples UInt64, busy_samples UInt64, busy_ms Float64,
       idle_samples UInt64, idle_ms Float64)
     ${rollup(LABEL_KEY)}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.traces_daily_mv TO ${db}.traces_daily AS
     SELECT day, release, page, browser, count() AS traces, sum(samples) AS samples, sum(busy_samples) AS busy_samples,
            sum(busy_ms) AS busy_ms, sum(idle_samples) AS idle_samples, sum(idle_ms) AS idle_ms
     FROM ${db}.traces GROUP BY day, release, page, browser`,
    `CREATE TABLE IF NOT EXISTS ${db}.functions_daily (${LABELS}, function_id UInt64, traces UInt64, self_ms Float64, total_ms Float64,
       self_ms_squares Float64, total_ms_squares Float64)
     ${rollup(`${LABEL_KEY}, function_id`)}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.functions_daily_mv TO ${db}.functions_daily AS
     SELECT day, release, page, browser, function_id, count() AS traces, sum(self_ms) AS self_ms, sum(total_ms) AS total_ms,
            sum(self_ms_square) AS self_ms_squares, sum(total_ms_square) AS total_ms_squares
     FROM (SELECT *, self_ms * self_ms AS self_ms_square, total_ms * total_ms AS total_ms_square FROM ${db}.trace_functions)
     GROUP BY day, release, page, browser, function_id`,
    `CREATE TABLE IF NOT EXISTS ${db}.stacks_daily (${LABELS}, stack_id UInt64, samples UInt64, ms Float64)
     ${rollup(`${LABEL_KEY}, stack_id`)}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.stacks_daily_mv TO ${db}.stacks_daily AS
     SELECT day, release, page, browser, stack_id, sum(samples) AS samples, sum(ms) AS ms
     FROM ${db}.trace_stacks GROUP BY day, release, page, browser, stack_id`,
  ];
}
