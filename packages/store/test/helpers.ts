import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClickHouseStore } from '../src/clickhouse/store';
import { ClickHouseExecutor, chdbExecutor } from '../src/clickhouse/executor';
import { clusterSchemaStatements, DEFAULT_SCHEMA } from '../src/clickhouse/schema';
import { DuckDBStore } from '../src/duckdb/store';
import type { Store } from '../src/store';

const made: string[] = [];

/** A new temporary directory, removed by `removeTempDirs`. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `jsprof-store-${prefix}-`));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** The cluster `jsprof_test`: one shard, this engine itself (chdb runs no DDL on a cluster and has no Keeper). */
const CLUSTER_CONFIG = `<clickhouse>
  <tcp_port>9000</tcp_port>
  <remote_servers><jsprof_test><shard><replica><host>localhost</host><port>9000</port></replica></shard></jsprof_test></remote_servers>
</clickhouse>`;

/**
 * ClickHouse's cluster form: every table a local table behind a Distributed table, made by
 * clusterSchemaStatements before the store first opens it, in chdb with a one-shard cluster of itself.
 */
export async function clusterFormExecutor(dir: string): Promise<ClickHouseExecutor> {
  fs.mkdirSync(dir, { recursive: true });
  const config = path.join(dir, 'cluster.xml');
  fs.writeFileSync(config, CLUSTER_CONFIG);
  const executor = chdbExecutor(path.join(dir, 'clickhouse'), [`--config-file=${config}`]);
  for (const statement of clusterSchemaStatements({ ...DEFAULT_SCHEMA, cluster: 'jsprof_test', replicated: false, onCluster: false })) await executor.command(statement);
  return executor;
}

/** The engines, each opening a fresh store: DuckDB in a file, ClickHouse in-process (chdb) in a directory, on one server and in the cluster form. */
export const ENGINES: [string, (dir: string) => Promise<Store>][] = [
  ['DuckDB', (dir) => DuckDBStore.open(path.join(dir, 'traces.duckdb'))],
  ['ClickHouse (chdb)', (dir) => ClickHouseStore.open(chdbExecutor(path.join(dir, 'clickhouse')))],
  ['ClickHouse cluster form (chdb)', async (dir) => ClickHouseStore.open(await clusterFormExecutor(dir))],
];
