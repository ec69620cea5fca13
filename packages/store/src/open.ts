/** A store named as the command line names it: a ClickHouse URL, or a DuckDB file. */
import * as fs from 'node:fs';
import { ClickHouseStore } from './clickhouse/store';
import { chdbExecutor, clickhouseClientExecutor } from './clickhouse/executor';
import { DuckDBStore } from './duckdb/store';
import type { Store } from './store';

/**
 * - `http://…`, `https://…`: a ClickHouse server (user and password in the URL; `?database=name`
 *   picks the database, `jsprof` by default);
 * - `chdb:<dir>`: ClickHouse in this process (the chdb package), its data in `dir`;
 * - anything else: a DuckDB database file (created if missing, unless `create` is false; opened
 *   read-only with `readOnly`).
 */
export async function openStore(target: string, options: { create?: boolean; readOnly?: boolean } = {}): Promise<Store> {
  if (/^https?:\/\//i.test(target)) {
    const url = new URL(target);
    const database = url.searchParams.get('database') ?? undefined;
    url.searchParams.delete('database');
    return ClickHouseStore.open(clickhouseClientExecutor(url.href), { database });
  }
  if (target.startsWith('chdb:')) return ClickHouseStore.open(chdbExecutor(target.slice('chdb:'.length)));
  // A query on a file that is not there would only find an empty store: say so instead.
  if (options.create === false && target !== ':memory:' && !fs.existsSync(target)) throw new Error(`${target}: no such store (jsprof ingest creates it)`);
  return DuckDBStore.open(target, { readOnly: options.readOnly });
}
