/**
 * `jsprof schema`: the SQL of a ClickHouse store, for one server (what the store creates by itself
 * when it first opens) or for a cluster (to run once before the store first opens it).
 */
import { Command, InvalidArgumentError } from 'commander';
import { CLICKHOUSE_SCHEMA_VERSION as SCHEMA_VERSION, DEFAULT_SCHEMA, LAYOUT_TABLE, clusterSchemaStatements, isPlainName, schemaStatements } from '@jsprof/store';
import { wholeNumber } from './arguments';

function databaseName(value: string): string {
  if (!isPlainName(value)) throw new InvalidArgumentError('must be a plain name: letters, digits and _.');
  return value;
}

export function addSchemaCommand(program: Command, _setExitCode: (code: number) => void): void {
  const command = program
    .command('schema')
    .description('Print the SQL that makes a ClickHouse store: for one server, or with --cluster for a cluster of servers.')
    .option('--cluster <name>', "the cluster form, for this cluster of the servers' remote_servers (a macro such as {cluster} is fine): each table a local table on every shard behind a Distributed table")
    .option('--database <name>', 'the database of the tables', databaseName, DEFAULT_SCHEMA.database)
    .option('--raw-days <n>', 'days the per-trace rows and raw traces are kept', wholeNumber('--raw-days', 1), DEFAULT_SCHEMA.rawDays)
    .option('--rollup-days <n>', 'days the day rollups (what the queries read) are kept', wholeNumber('--rollup-days', 1), DEFAULT_SCHEMA.rollupDays)
    .option('--no-replicated', 'with --cluster: MergeTree local tables, for shards without replicas (default: Replicated, with the {shard} and {replica} macros)')
    .option('--no-on-cluster', 'with --cluster: no ON CLUSTER, to run the statements on each server yourself')
    .addHelpText(
      'after',
      `
The store creates the one-server tables itself, with the default retention, when it first opens:
print them to keep rows for another number of days, and run them before the first ingest:
  jsprof schema --raw-days 90 | clickhouse client --multiquery
A cluster's tables must all exist before the store first opens it (it then finds each by name):
  jsprof schema --cluster '{cluster}' | clickhouse client --multiquery
and connect the store to any of its servers. Every statement is CREATE … IF NOT EXISTS.`,
    )
    .action((opts) => {
      if (opts.cluster === undefined && (!opts.replicated || !opts.onCluster)) command.error('error: --no-replicated and --no-on-cluster are for the cluster form: give --cluster <name>.');
      const options = { database: opts.database, rawDays: opts.rawDays, rollupDays: opts.rollupDays };
      let statements: string[] = [];
      try {
        statements = opts.cluster === undefined ? schemaStatements(options) : clusterSchemaStatements({ ...options, cluster: opts.cluster, replicated: opts.replicated, onCluster: opts.onCluster });
      } catch (error) {
        // What the store refuses is an option's value (a cluster name with a quote): bad usage.
        command.error(`error: ${(error as Error).message}`);
      }
      // The layout these tables are, so that a jsprof of another layout refuses them rather than taking them for its own.
      const layout = `INSERT INTO ${options.database}.${LAYOUT_TABLE} VALUES (${SCHEMA_VERSION})`;
      process.stdout.write([...statements, layout].map((statement) => `${statement};\n`).join('\n'));
    });
}
