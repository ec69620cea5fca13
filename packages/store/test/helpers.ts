import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClickHouseStore } from '../src/clickhouse/store';
import { chdbExecutor } from '../src/clickhouse/executor';
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

/** Both engines, each opening a fresh store: DuckDB in a file, ClickHouse in-process (chdb) in a directory. */
export const ENGINES: [string, (dir: string) => Promise<Store>][] = [
  ['DuckDB', (dir) => DuckDBStore.open(path.join(dir, 'traces.duckdb'))],
  ['ClickHouse (chdb)', (dir) => ClickHouseStore.open(chdbExecutor(path.join(dir, 'clickhouse')))],
];
