/** A store named as the command line names it: a ClickHouse URL, or a DuckDB file. */
import * as fs from 'node:fs';
import { ClickHouseStore } from './clickhouse/store';
import { ClickHouseError, chdbExecutor, clickhouseClientExecutor } from './clickhouse/executor';
import { DEFAULT_SCHEMA } from './clickhouse/schema';
import { DuckDBStore } from './duckdb/store';
import { StoreOpenedLater } from './opened-later';
import type { Store } from './store';

export interface OpenOptions {
  /** A DuckDB file that is not there is made (default true). */
  create?: boolean;
  /** A DuckDB file is opened read-only, so that several readers may open it at once. */
  readOnly?: boolean;
  /**
   * A ClickHouse server that cannot be reached (no answer) is not an error: this is called with
   * why, and the store returned is opened at its first use, and at each one until that succeeds.
   */
  onUnreachable?: (error: Error) => void;
}

/** The DuckDB database file a store's name names, or null (a ClickHouse server, chdb, or `:memory:`). */
export function duckDbFile(target: string): string | null {
  return /^https?:\/\//i.test(target) || target.startsWith('chdb:') || target === ':memory:' ? null : target;
}

/**
 * - `http://…`, `https://…`: a ClickHouse server (user and password in the URL; `?database=name`
 *   picks the database, `jsprof` by default);
 * - `chdb:<dir>`: ClickHouse in this process (the chdb package), its data in `dir`;
 * - anything else: a DuckDB database file (created if missing, unless `create` is false; opened
 *   read-only with `readOnly`).
 */
export async function openStore(target: string, options: OpenOptions = {}): Promise<Store> {
  if (/^https?:\/\//i.test(target)) {
    const url = new URL(target);
    const database = url.searchParams.get('database') ?? undefined;
    url.searchParams.delete('database');
    const executor = clickhouseClientExecutor(url.href);
    const open = () => ClickHouseStore.open(executor, { database });
    try {
      return await open();
    } catch (error) {
      if (!(options.onUnreachable && error instanceof ClickHouseError && error.unreachable)) {
        await executor.close();
        throw error;
      }
      options.onUnreachable(error);
      return new StoreOpenedLater(open, `${executor.description}, database ${database ?? DEFAULT_SCHEMA.database}`, () => executor.close());
    }
  }
  if (target.startsWith('chdb:')) return ClickHouseStore.open(chdbExecutor(target.slice('chdb:'.length)));
  // A query on a file that is not there would only find an empty store: say so instead.
  if (options.create === false && duckDbFile(target) && !fs.existsSync(target)) throw new Error(`${target}: no such store (jsprof ingest creates it)`);
  return DuckDBStore.open(target, { readOnly: options.readOnly });
}
