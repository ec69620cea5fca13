/**
 * `jsprof serve` as a user runs it: a collector child process under load from several clients,
 * stopped with SIGTERM in the middle; every trace it answered 2xx for is in the store and in the
 * directory afterwards.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { DuckDBStore } from '@jsprof/store';
import { BIN, ROOT, jsprof, tempDir } from './helpers';

function body(id: number): string {
  const samples = Array.from({ length: 50 }, (_, i) => ({ timestamp: 1000 + i * 10, stackId: (i + id) % 2 }));
  const trace = {
    resources: ['https://shop.example/app.js'],
    frames: [{ name: 'main', resourceId: 0, line: 1, column: 1 }, { name: 'render', resourceId: 0, line: 40, column: 7 }],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
    samples,
  };
  return JSON.stringify({ meta: { id, release: '2026.11.2', page: '/cart', browser: 'safari' }, trace });
}

/** Resolves with the collector's URL once it says it is listening. */
function listening(child: ChildProcess, stderr: { text: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk) => {
      stderr.text += chunk;
      const url = /collecting traces at (http:\/\/\S+) /.exec(stderr.text)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`jsprof serve exited (${code}): ${stderr.text}`)));
  });
}

test('a collector killed with SIGTERM mid-load loses no accepted trace', async () => {
  const dir = tempDir('jsprof-serve-');
  const store = path.join(dir, 'traces.duckdb');
  const files = path.join(dir, 'files');
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--store', store, '--dir', files, '--no-rate-limit', '--batch', '50'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr = { text: '' };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await listening(child, stderr);

  const accepted: number[] = [];
  const refused: number[] = [];
  let next = 0;
  let stopping = false;
  // Eight clients post until the collector is gone.
  const client = async () => {
    for (;;) {
      const id = next++;
      try {
        const response = await fetch(url, { method: 'POST', body: body(id) });
        if (response.status === 204) accepted.push(id);
        else refused.push(response.status);
      } catch {
        if (stopping) return; // connection refused or reset: the collector has stopped
        throw new Error(`the collector failed before SIGTERM: ${stderr.text}`);
      }
      if (accepted.length >= 300 && !stopping) {
        stopping = true;
        child.kill('SIGTERM');
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, client));
  expect(await exited).toBe(0);
  expect(stderr.text).toMatch(/; stopped\n$/);
  expect(refused.every((status) => status === 503)).toBe(true);

  const opened = await DuckDBStore.open(store);
  try {
    const stored = new Set((await opened.rawTraces('0', 1_000_000)).map((row) => JSON.parse(row.raw).meta.id));
    const lost = accepted.filter((id) => !stored.has(id));
    expect(lost).toEqual([]);
    // A trace may be stored whose answer the client never got (its connection cut): sent, at least.
    expect([...stored].every((id) => id < next)).toBe(true);
  } finally {
    await opened.close();
  }
  const written = fs.readdirSync(files).map((f) => JSON.parse(fs.readFileSync(path.join(files, f), 'utf8')).meta.id);
  expect(accepted.filter((id) => !written.includes(id))).toEqual([]);
}, 120_000);

/**
 * A fake ClickHouse server: every statement succeeds with no rows, or fails with 500 while
 * `failing`; `inserted(table)` gives the rows inserted into a table.
 */
async function fakeClickHouse(port = 0) {
  const state = { failing: false };
  const inserts: { query: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (state.failing) return void res.writeHead(500).end('Code: 999. DB::Exception: fake failure');
      const query = new URL(req.url!, 'http://x').searchParams.get('query') ?? '';
      if (query.startsWith('INSERT')) inserts.push({ query, body });
      res.writeHead(200).end('');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    inserted: (table: string) => inserts.filter((i) => i.query.startsWith(`INSERT INTO ${table} `)).flatMap((i) => i.body.split('\n').filter(Boolean).map((line) => JSON.parse(line))),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** A port nothing listens on (for now). */
async function freePort(): Promise<number> {
  const server = http.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('a collector whose ClickHouse cannot be reached starts, says so, and writes the traces once it answers', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--store', `http://127.0.0.1:${port}`, '--spill-dir', path.join(tempDir(), 'unused')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr = { text: '' };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let clickhouse: Awaited<ReturnType<typeof fakeClickHouse>> | undefined;
  try {
    const url = await listening(child, stderr);
    expect(stderr.text).toMatch(new RegExp(`^jsprof: the store cannot be reached \\(ClickHouse http://127\\.0\\.0\\.1:${port}: connect ECONNREFUSED [^)]*\\); collecting anyway: .*\n`));
    for (let id = 0; id < 3; id++) expect((await fetch(url, { method: 'POST', body: body(id) })).status).toBe(204);
    clickhouse = await fakeClickHouse(port);
    for (let i = 0; i < 200 && clickhouse.inserted('jsprof.traces').length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    child.kill('SIGKILL');
    await clickhouse?.close();
  }
  expect(stderr.text).not.toMatch(/could not be written/);
  expect(clickhouse!.inserted('jsprof.raw_traces').map((row) => JSON.parse(row.raw).meta.id).sort()).toEqual([0, 1, 2]);
}, 60_000);

test('a second Ctrl-C while the collector waits for a store that is down saves the accepted traces at once', async () => {
  const clickhouse = await fakeClickHouse();
  const spill = path.join(tempDir('jsprof-serve-spill-'), 'unwritten');
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--store', clickhouse.url, '--spill-dir', spill, '--no-rate-limit'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr = { text: '' };
  const exited = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
  try {
    const url = await listening(child, stderr);
    clickhouse.state.failing = true;
    for (let id = 0; id < 20; id++) expect((await fetch(url, { method: 'POST', body: body(id) })).status).toBe(204);
    child.kill('SIGINT');
    for (let i = 0; i < 100 && !/stopping/.test(stderr.text); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stderr.text).toMatch(/\njsprof: stopping: 20 traces waiting for the store; trying it for up to 10 s, then saving them in .*unwritten \(Ctrl-C again saves them now\)\n/);
    const second = Date.now();
    child.kill('SIGINT');
    expect(await exited).toEqual([0, null]);
    expect(Date.now() - second).toBeLessThan(5000);
  } finally {
    child.kill('SIGKILL');
    await clickhouse.close();
  }
  expect(stderr.text).toMatch(/jsprof: 20 accepted traces could not be written to the store; saved in .*unwritten/);
  const saved = fs.readdirSync(spill).map((f) => JSON.parse(fs.readFileSync(path.join(spill, f), 'utf8')).meta.id);
  expect(saved.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
}, 60_000);

test('a collector that cannot listen (its port taken) says so and leaves no store file it created', async () => {
  const taken = http.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as AddressInfo).port;
  const store = path.join(tempDir(), 'new.duckdb');
  const run = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--store', store], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  run.stderr!.on('data', (chunk) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve) => run.once('exit', resolve));
  taken.close();
  expect(status).toBe(1);
  expect(stderr).toMatch(/EADDRINUSE|in use/);
  expect(fs.readdirSync(path.dirname(store))).toEqual([]);
});

test('serve says where traces should go when told nowhere, and which options do nothing: bad usage', () => {
  const run = jsprof(['serve', '--port', '0']);
  expect(run.status).toBe(2);
  expect(run.stderr).toMatch(/say where traces go: --dir <dir>, --store <store>, or both/);
  for (const [args, message] of [
    [['--no-rate-limit', '--rate', '5'], '--rate does nothing with --no-rate-limit'],
    [['--batch', '10'], '--batch does nothing with no --store'],
    [['--port', '99999'], '--port must be a whole number from 0 to 65535.'],
    [['--allow-origin', 'notanorigin'], '--allow-origin takes an origin: the scheme, host and port of the pages, as https://shop.example.'],
    [['--allow-origin', 'https://shop.example/app'], '--allow-origin takes an origin'],
    [['--allow-origin', 'shop.example'], '--allow-origin takes an origin'],
  ] as const) {
    const refused = jsprof(['serve', '--dir', 'unused', ...args]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(message);
  }
});
