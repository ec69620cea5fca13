/**
 * `traceReceiver` writing into a store (DuckDB) over real HTTP: batched, `meta` as columns through
 * the store's own ingest; while the store is down the traces wait, up to a bound, then clients get
 * 503; nothing accepted is lost, even when the store is still down at close.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { DuckDBStore, Store, ingestFiles, topFunctions } from '@jsprof/store';
import { ReceiverOptions, traceReceiver } from '../src/receive';
import { tempDir } from './helpers';

function trace(id: number) {
  return {
    resources: ['https://app.example/app.js'],
    frames: [{ name: 'main', resourceId: 0, line: 1, column: 1 }, { name: `work${id % 3}`, resourceId: 0, line: 5, column: 3 }],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
    samples: Array.from({ length: 4 + id }, (_, i) => ({ timestamp: 1000 + i * 10, stackId: i % 2 })),
  };
}
const body = (id: number, release = 'A') => JSON.stringify({ meta: { id, release, page: '/product/:id', browser: id % 2 ? 'firefox' : 'chrome', rate: 0.01 }, trace: trace(id) });

/** A store that fails every read and write while `down`. */
function flaky(inner: Store): Store & { down: boolean } {
  const failing = new Set(['write', 'storedTraces']);
  const state = { down: false };
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'down') return state.down;
      if (state.down && failing.has(String(key))) return () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.9:8123'));
      const value = (target as any)[key];
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set(_target, key, value) {
      if (key !== 'down') return false;
      state.down = value;
      return true;
    },
  }) as Store & { down: boolean };
}

const stores: Store[] = [];
afterAll(() => Promise.all(stores.map((s) => s.close())));
async function openMemory() {
  const store = await DuckDBStore.open(':memory:');
  stores.push(store);
  return store;
}

async function start(options: ReceiverOptions) {
  const receiver = traceReceiver(options);
  const server = http.createServer(receiver);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const post = (data: string | Buffer, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', body: data, headers });
  const close = async () => {
    await new Promise((resolve) => server.close(resolve));
    return receiver.close();
  };
  return { receiver, post, close };
}

async function until(condition: () => boolean, what: string) {
  for (let i = 0; i < 600 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

async function storedIds(store: Store): Promise<number[]> {
  const rows = await store.rawTraces('0', 100_000);
  return rows.map((row) => JSON.parse(row.raw).meta.id as number).sort((a, b) => a - b);
}

test("accepted traces go into the store in batches, meta as columns, the rows the store's ingest makes of the files", async () => {
  const store = await openMemory();
  const dir = tempDir('jsprof-receive-store-');
  const { post, close, receiver } = await start({ dir, store, storeOptions: { batchSize: 10, flushMs: 100 } });
  for (let id = 0; id < 25; id++) expect((await post(body(id, id < 13 ? 'A' : 'B'))).status).toBe(204);
  await until(() => receiver.status().store!.written >= 20, 'two batches');
  expect(await close()).toEqual({ unwritten: 0 });
  expect(receiver.status()).toMatchObject({ accepted: 25, store: { written: 25, buffered: 0 } });
  expect(await storedIds(store)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  const top = await topFunctions(store, { groupBy: 'release' });
  expect(top.groups.map((g) => [g.name, g.traces]).sort()).toEqual([['A', 13], ['B', 12]]);
  const byPage = await topFunctions(store, { filter: { page: '/product/:id', browser: 'firefox' } });
  expect(byPage.all.traces).toBe(12);
  // The files the receiver wrote, ingested by `jsprof ingest`'s code, are the same traces: all duplicates.
  const files = fs.readdirSync(dir).map((f) => path.join(dir, f));
  expect(await ingestFiles(store, files)).toMatchObject({ ingested: 0, duplicates: 25, rejected: 0 });
});

test('while the store is down traces wait up to maxBuffered, then clients get 503; once it is back, each is written once', async () => {
  const store = flaky(await openMemory());
  const { post, close, receiver } = await start({ store, storeOptions: { maxBuffered: 8, flushMs: 20, spillDir: tempDir() } });
  store.down = true;
  for (let id = 0; id < 8; id++) expect((await post(body(id))).status).toBe(204);
  const full = await post(body(8));
  expect(full.status).toBe(503);
  expect(full.headers.get('retry-after')).toBe('5');
  expect(await full.text()).toMatch(/store is behind/);
  await until(() => receiver.status().store!.failures > 0, 'a failed write');
  expect(receiver.status().store).toMatchObject({ written: 0, buffered: 8, error: expect.stringMatching(/ECONNREFUSED/) });
  store.down = false;
  await until(() => receiver.status().store!.written === 8, 'the retry');
  expect((await post(body(8))).status).toBe(204);
  expect(await close()).toEqual({ unwritten: 0 });
  expect(await storedIds(store)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
}, 60_000);

test('a store still down at close: the traces are saved as files for jsprof ingest, never dropped', async () => {
  const store = flaky(await openMemory());
  const spillDir = tempDir('jsprof-spill-');
  const { post, close } = await start({ store, storeOptions: { flushMs: 20, closeTimeoutMs: 300, spillDir } });
  store.down = true;
  for (let id = 0; id < 3; id++) expect((await post(body(id))).status).toBe(204);
  expect(await close()).toEqual({ unwritten: 3, savedIn: spillDir });
  const files = fs.readdirSync(spillDir).map((f) => path.join(spillDir, f));
  expect(files).toHaveLength(3);
  const later = await openMemory();
  expect(await ingestFiles(later, files)).toMatchObject({ ingested: 3, rejected: 0 });
  expect(await storedIds(later)).toEqual([0, 1, 2]);
  // The same rows as if the store had taken them: ingesting them into the first store once it is back finds no duplicate.
  store.down = false;
  expect(await ingestFiles(store, files)).toMatchObject({ ingested: 3, duplicates: 0 });
});

test('stopWaiting while close waits on a write that hangs: the traces are saved at once', async () => {
  const store = await openMemory();
  const hanging: Store = Object.assign(Object.create(store), { write: () => new Promise(() => {}) });
  const spillDir = tempDir('jsprof-spill-');
  const { post, close, receiver } = await start({ store: hanging, storeOptions: { closeTimeoutMs: 60_000, spillDir } });
  for (let id = 0; id < 3; id++) expect((await post(body(id))).status).toBe(204);
  const closed = close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  receiver.stopWaiting();
  expect(await closed).toEqual({ unwritten: 3, savedIn: spillDir });
  expect(fs.readdirSync(spillDir)).toHaveLength(3);
});

test('a trace whose stacks are too deep for the store is refused with 400 and a reason, and nothing of it is kept', async () => {
  const store = await openMemory();
  const dir = tempDir('jsprof-receive-deep-');
  const { post, close, receiver } = await start({ dir, store, storeOptions: { batchSize: 1, flushMs: 50 } });
  // 5,000 nested stacks: 14 KB gzipped, 12.5 million frames along its stacks.
  const stacks = Array.from({ length: 5000 }, (_, i) => (i === 0 ? { frameId: 0 } : { frameId: i % 2, parentId: i - 1 }));
  const deep = { ...trace(0), stacks, samples: [{ timestamp: 1, stackId: 4999 }] };
  const gzipped = zlib.gzipSync(JSON.stringify({ meta: { id: 1 }, trace: deep }));
  try {
    const refused = await post(gzipped, { 'content-encoding': 'gzip' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/its stacks are too deep for a store: 12,502,500 frames counted along each stack/);
    expect((await post(body(2))).status).toBe(204);
    await until(() => receiver.status().store!.written >= 1, 'the good trace');
  } finally {
    expect(await close()).toEqual({ unwritten: 0 });
  }
  expect(await storedIds(store)).toEqual([2]);
  expect(fs.readdirSync(dir)).toHaveLength(1);
});
