/**
 * `traceReceiver` tried as an attacker would, over real HTTP: traces that are structurally invalid,
 * oversized or nested `meta`, bodies that inflate far beyond what `sendTrace` sends, clients that
 * send slowly or too often, pages of other sites, requests without the key, and `.tmp` files left by
 * a killed write.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { ReceiverOptions, traceReceiver } from '../src/receive';
import { tempDir } from './helpers';

function trace(samples = 3) {
  return {
    resources: ['https://app.example/app.js'],
    frames: [{ name: 'busy', resourceId: 0, line: 3, column: 14 }],
    stacks: [{ frameId: 0 }],
    samples: Array.from({ length: samples }, (_, i) => ({ timestamp: 1000 + i * 10, stackId: 0 })),
  };
}
const body = (meta: unknown, t: unknown = trace()) => JSON.stringify({ meta, trace: t });

const servers: http.Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

/** A receiver on a port of its own; `stored()` counts the files it wrote. */
async function receiver(options: Partial<ReceiverOptions> = {}) {
  const dir = tempDir('jsprof-attacks-');
  const server = http.createServer(traceReceiver({ dir, ...options }));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/collect`;
  const post = (data: string | Buffer, headers: Record<string, string> = {}, at = url) => fetch(at, { method: 'POST', body: data, headers });
  const stored = () => fs.readdirSync(dir).filter((f) => f.endsWith('.json')).length;
  return { dir, url, post, stored };
}

test('structurally invalid traces are refused with 400 and the problem, and not stored', async () => {
  const { post, stored } = await receiver();
  const t = trace();
  const cases: [unknown, RegExp][] = [
    [{ ...t, stacks: [{ frameId: 7 }] }, /stacks\[0\]\.frameId 7 is not an index into frames/],
    [{ ...t, stacks: [{ frameId: 0, parentId: 0 }] }, /parentId 0 is not an earlier stack/],
    [{ ...t, samples: [{ timestamp: 5, stackId: 3 }] }, /samples\[0\]\.stackId 3 is not an index/],
    [{ ...t, samples: [{ timestamp: 'soon' }] }, /timestamp is "soon", not a finite number/],
    [{ ...t, samples: [{ timestamp: 20 }, { timestamp: 10 }] }, /earlier than a sample before it/],
    [{ ...t, frames: [{ name: 42 }] }, /frames\[0\]\.name is 42/],
    [{ ...t, resources: [{}] }, /resources\[0\] is an object/],
  ];
  for (const [value, reason] of cases) {
    const response = await post(body({}, value));
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).toMatch(/^not a valid trace: /);
    expect(text).toMatch(reason);
    expect(text.length).toBeLessThan(300);
  }
  expect(stored()).toBe(0);
});

test('meta must be a small flat object of strings, numbers and booleans', async () => {
  const { post, stored } = await receiver();
  const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i]));
  const cases: [unknown, RegExp][] = [
    [{ nested: { deep: 1 } }, /meta\.nested is an object/],
    [['release'], /^meta is not an object/],
    ['release', /^meta is not an object/],
    [many, /^meta has 33 keys, more than 32/],
    [{ page: 'x'.repeat(1025) }, /^meta\.page is longer than 1024 characters/],
    [{ ['k'.repeat(65)]: 1 }, /^a meta key is longer than 64/],
    [Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, 'v'.repeat(1000)])), /^meta is larger than 4096 bytes/],
  ];
  for (const [meta, reason] of cases) {
    const response = await post(body(meta));
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(reason);
  }
  expect(stored()).toBe(0);
  const ok = await post(body({ release: '1.2.3', page: '/product/:id', browser: 'firefox', rate: 0.01, sampled: true }));
  expect(ok.status).toBe(204);
  expect(stored()).toBe(1);
});

test('a 32 KB gzip whose meta inflates to 31 MB is refused at the default limits, and nothing is written', async () => {
  const { post, stored, dir } = await receiver();
  const bomb = zlib.gzipSync(body({ page: 'x'.repeat(31 << 20) }), { level: 9 });
  expect(bomb.length).toBeLessThan(40 * 1024);
  const response = await post(bomb);
  expect(response.status).toBe(413);
  expect(await response.text()).toMatch(/^inflates beyond 2097152 bytes/);
  expect(fs.readdirSync(dir)).toEqual([]);
  expect(stored()).toBe(0);
});

test('a body larger than sendTrace ever sends is refused at the default limit, before it is read whole', async () => {
  const { post, stored } = await receiver();
  const big = body({}, trace(6000)); // a valid trace of 200 KB, plain JSON
  expect(big.length).toBeGreaterThan(128 * 1024);
  const response = await post(big);
  expect(response.status).toBe(413);
  expect(await response.text()).toMatch(/^larger than 131072 bytes/);
  expect(stored()).toBe(0);
});

/** Sends headers and `sent` of a body that claims `length` bytes, then nothing; resolves with what the server answers before closing. */
function slowClient(url: string, length: number, sent: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(`POST /collect HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n${sent}`);
    });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

test('a client that sends its body too slowly gets 408 and its connection closed', async () => {
  const { url, stored } = await receiver({ bodyTimeoutMs: 300 });
  const answer = await slowClient(url, 1000, '{"meta":');
  expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  expect(answer).toMatch(/the body did not arrive within 0\.3 s/);
  expect(stored()).toBe(0);
}, 20_000);

test('each client is rate limited (token bucket by address); x-forwarded-for counts only behind a trusted proxy', async () => {
  const flood = async (post: (data: string, headers?: Record<string, string>) => Promise<Response>, headers: Record<string, string> = {}) => {
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await post(body({ i }), headers)).status);
    return statuses;
  };
  const direct = await receiver({ rateLimit: { perSecond: 1, burst: 5 } });
  const first = await flood(direct.post);
  // 5 at once, and a few more refilled (1/s) if the loop ran slowly on a loaded machine.
  expect(first.filter((s) => s === 204).length).toBeGreaterThanOrEqual(5);
  expect(first.filter((s) => s === 204).length).toBeLessThanOrEqual(10);
  expect(first.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
  expect(first.slice(0, 5)).toEqual([204, 204, 204, 204, 204]);
  const refused = await direct.post(body({}));
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  // Spoofing x-forwarded-for does not give a fresh bucket…
  expect((await direct.post(body({}), { 'x-forwarded-for': '203.0.113.9' })).status).toBe(429);
  // …but behind a trusted proxy each forwarded address is its own client.
  const proxied = await receiver({ rateLimit: { perSecond: 1, burst: 5 }, trustProxy: true });
  expect((await flood(proxied.post, { 'x-forwarded-for': '203.0.113.1' })).filter((s) => s === 204).length).toBeLessThanOrEqual(10);
  expect((await proxied.post(body({}), { 'x-forwarded-for': '198.51.100.1, 203.0.113.2' })).status).toBe(204);
});

test('with allowed origins, only their pages may post, and only they are named in access-control-allow-origin', async () => {
  const { url, post, stored } = await receiver({ allowOrigins: ['https://shop.example/'] });
  const allowed = await post(body({}), { origin: 'https://shop.example' });
  expect(allowed.status).toBe(204);
  expect(allowed.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  expect(allowed.headers.get('vary')).toBe('Origin');
  for (const headers of [{ origin: 'https://evil.example' }, { origin: 'https://shop.example.evil.example' }, {}]) {
    const response = await post(body({}), headers);
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(await response.text()).toBe('origin not allowed\n');
  }
  const preflight = await fetch(url, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
  expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  expect(stored()).toBe(1);
});

test('with a key, requests without it (header, or ?key= for beacons) are refused', async () => {
  const { url, post, stored } = await receiver({ key: 's3cret' });
  expect((await post(body({}))).status).toBe(403);
  expect((await post(body({}), { 'x-jsprof-key': 'guess' })).status).toBe(403);
  expect((await post(body({}), {}, `${url}?key=guess`)).status).toBe(403);
  expect((await post(body({}), { 'x-jsprof-key': 's3cret' })).status).toBe(204);
  expect((await post(body({}), {}, `${url}?key=s3cret`)).status).toBe(204);
  expect(stored()).toBe(2);
});

test('.tmp files of killed writes are removed at the next start; those of a live writer are left', () => {
  const dir = tempDir('jsprof-tmp-');
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  const files = {
    killed: `1-a.json.${dead}.x1.tmp`,
    live: '2-b.json.1.x2.tmp', // pid 1 is alive (and not ours)
    liveButOld: '3-c.json.1.x3.tmp',
    trace: '4-d.json',
  };
  for (const name of Object.values(files)) fs.writeFileSync(path.join(dir, name), '{');
  const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
  fs.utimesSync(path.join(dir, files.liveButOld), old, old);
  traceReceiver({ dir });
  expect(fs.readdirSync(dir).sort()).toEqual([files.live, files.trace].sort());
});
