/**
 * The @clickhouse/client executor, end to end: the client speaks ClickHouse's HTTP interface to a
 * small server here that hands each request to ClickHouse in-process (chdb), so the client's
 * requests, settings and formats meet a real engine. (No ClickHouse server on this machine.)
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Session } from 'chdb';
import { ClickHouseStore } from '../src/clickhouse/store';
import { clickhouseClientExecutor } from '../src/clickhouse/executor';
import { openStore } from '../src/open';
import { ingestFiles } from '../src/ingest';
import { diffFunctions, topFunctions } from '../src/queries';
import { aggregateFiles } from '@jsprof/trace-tools';
import { removeTempDirs, tempDir } from './helpers';
import { writeFieldTraces } from './field-traces';

afterAll(removeTempDirs);

const dir = tempDir('clickhouse-http');
const session = new Session(path.join(dir, 'engine'));

/** ClickHouse's HTTP interface, the parts the client uses: the query in the URL or the body, data after it, settings as parameters. */
function handle(request: http.IncomingMessage, body: string): Promise<string> {
  const url = new URL(request.url!, 'http://localhost');
  const settings = [...url.searchParams].filter(([key]) => !['query', 'query_id', 'session_id', 'database', 'user', 'password', 'default_format'].includes(key));
  const query = url.searchParams.get('query');
  const insert = query && /^INSERT INTO (\S+) FORMAT (\w+)/i.exec(query);
  if (insert) return session.insert({ table: insert[1], values: Buffer.from(body), format: insert[2] as 'JSONEachRow', settings: Object.fromEntries(settings) }).then(() => '');
  const sql = `${query ?? body}`;
  const withSettings = settings.length ? `${sql.replace(/\s*FORMAT\s+\w+\s*$/i, '')} SETTINGS ${settings.map(([k, v]) => `${k} = ${/^\d+$/.test(v) ? v : `'${v}'`}`).join(', ')}` : sql;
  const format = /FORMAT\s+(\w+)\s*$/i.exec(sql)?.[1] ?? 'TabSeparated';
  return session.queryAsync(withSettings.replace(/\s*FORMAT\s+\w+\s*$/i, ''), { format }).then((result) => result.text());
}

let server: http.Server;
let url: string;
beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () =>
      handle(request, body).then(
        (text) => response.writeHead(200, { 'content-type': 'text/plain' }).end(text),
        (error: Error) => response.writeHead(500, { 'x-clickhouse-exception-code': '1' }).end(`Code: 1. DB::Exception: ${error.message}`),
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  session.close();
});

test("a store through @clickhouse/client gives jsprof aggregate's numbers and the diff", async () => {
  const files = writeFieldTraces(path.join(dir, 'traces'), { releases: ['2026.11.1', '2026.11.2'], traces: 60, stableUrls: true });
  const store = await ClickHouseStore.open(clickhouseClientExecutor(url), { database: 'jsprof_http' });
  expect(await ingestFiles(store, files, { batchSize: 16 })).toMatchObject({ ingested: 60, rejected: 0 });
  const top = await topFunctions(store, { filter: { release: '2026.11.1' } });
  const view = aggregateFiles(files, { groupBy: 'release' }).groups.find((g) => g.name === '2026.11.1')!;
  expect(top.all.busyMs).toBe(view.busyMs);
  expect(top.all.functions.map((f) => [f.name, f.selfMs, f.totalMs, f.traces]).sort()).toEqual(view.functions.map((f) => [f.name, f.selfMs, f.totalMs, f.traces]).sort());
  expect((await diffFunctions(store, { release: '2026.11.1' }, { release: '2026.11.2' })).functions.length).toBe(16);
  await store.close();
});

test('errors from the server are said once, naming the store', async () => {
  const executor = clickhouseClientExecutor(url);
  await expect(executor.query('SELECT no_such_column FROM system.one')).rejects.toThrow(/^ClickHouse http:\/\/127\.0\.0\.1:\d+: .*no_such_column/);
  await executor.close();
});

test('a server URL without ?database= names the database jsprof; with it, that one', async () => {
  const plain = await openStore(url);
  expect(plain.description).toMatch(/, database jsprof$/);
  await plain.close();
  const named = await openStore(`${url}/?database=jsprof_named`);
  expect(named.description).toMatch(/, database jsprof_named$/);
  await named.close();
  expect(session.query("SELECT name FROM system.databases WHERE name IN ('jsprof', 'jsprof_named', 'undefined') ORDER BY name", 'CSV')).toBe('"jsprof"\n"jsprof_named"\n');
});
