/**
 * Sending traces and receiving them: `sendTrace` (here through Node's fetch and CompressionStream)
 * reaches `traceReceiver`, which stores what is a trace and refuses, with one line, what is not.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { sendTrace } from '@jsprof/runtime/send';
import type { Browser } from 'playwright-core';
import { traceReceiver } from '../src/receive';
import { tempDir } from './helpers';
const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');


function sampleTrace(samples: number) {
  return {
    resources: ['https://app.example/app.js'],
    frames: [{ name: 'busy', resourceId: 0, line: 3, column: 14 }],
    stacks: [{ frameId: 0 }],
    samples: Array.from({ length: samples }, (_, i) => ({ timestamp: 1000 + i * 10.123456, stackId: i % 3 ? 0 : undefined })),
  };
}

describe('traceReceiver', () => {
  const dir = tempDir();
  const refused: string[] = [];
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    server = http.createServer(traceReceiver({ dir, maxBytes: 256 * 1024, maxInflatedBytes: 4 << 20, onRefused: (status, reason) => refused.push(`${status} ${reason}`) }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/collect`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const stored = () => fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
  const post = (body: Buffer | string) => fetch(url, { method: 'POST', body });

  test('sendTrace gzips the trace with its metadata, and the receiver stores it as it was', async () => {
    const trace = sampleTrace(200);
    const before = stored().length;
    const result = await sendTrace(trace as any, { url, meta: { page: '/home', release: '1.2.3' } });
    expect(result).toMatchObject({ sent: true, gzip: true, transport: 'fetch', droppedSamples: 0 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const all = stored();
    expect(all).toHaveLength(before + 1);
    const last = all.find((t) => t.meta.release === '1.2.3');
    expect(last.meta).toEqual({ page: '/home', release: '1.2.3' });
    expect(last.trace).toEqual(JSON.parse(JSON.stringify(trace)));
  });

  test('a trace too large for the limit keeps every other sample until it fits', async () => {
    const trace = sampleTrace(40000);
    const result = await sendTrace(trace as any, { url, maxBytes: 20 * 1024, meta: { big: true } });
    expect(result.sent).toBe(true);
    expect(result.bytes).toBeLessThanOrEqual(20 * 1024);
    expect(result.droppedSamples).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const got = stored().find((t) => t.meta.big === true);
    expect(got.trace.samples.length).toBe(40000 - result.droppedSamples);
    expect(got.trace.samples[0]).toEqual(JSON.parse(JSON.stringify(trace.samples[0])));
  });

  test("meta.browser, where the page sent none, is the browser and major version of the request's User-Agent", async () => {
    const agents: [string, string | undefined][] = [
      ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/150.0.7871.100 Safari/537.36', 'Chrome 150'],
      ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36 Edg/142.0.3595.53', 'Edge 142'],
      ['Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0', 'Firefox 140'],
      ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1', 'Safari 18'],
      ['curl/8.5.0', undefined],
    ];
    for (const [agent, browser] of agents) {
      const response = await fetch(url, { method: 'POST', headers: { 'user-agent': agent }, body: JSON.stringify({ meta: { agent }, trace: sampleTrace(3) }) });
      expect(response.status).toBe(204);
    }
    const byAgent = new Map(stored().map((t) => [t.meta.agent, t.meta.browser]));
    for (const [agent, browser] of agents) expect([agent, byAgent.get(agent)]).toEqual([agent, browser]);
    // what the page sent is kept
    await fetch(url, { method: 'POST', headers: { 'user-agent': agents[0][0] }, body: JSON.stringify({ meta: { own: 1, browser: 'kiosk' }, trace: sampleTrace(3) }) });
    expect(stored().find((t) => t.meta.own === 1).meta.browser).toBe('kiosk');
  });

  test('plain JSON is accepted too', async () => {
    const response = await post(JSON.stringify({ meta: { plain: 1 }, trace: sampleTrace(3) }));
    expect(response.status).toBe(204);
  });

  test('what is not a trace is refused with a status and one line', async () => {
    const cases: [Buffer | string, number, RegExp][] = [
      ['{"meta":{}}', 400, /^not a trace/],
      ['not json', 400, /^not JSON/],
      [Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from('garbage')]), 400, /^not valid gzip/],
      [zlib.gzipSync(Buffer.alloc(64 << 20)), 413, /^inflates beyond/], // a gzip bomb: 64 MB of zeros in 64 KB
      [Buffer.alloc(300 * 1024, 'x'), 413, /^larger than/],
    ];
    for (const [body, status, reason] of cases) {
      const response = await post(body);
      expect(response.status).toBe(status);
      expect(await response.text()).toMatch(reason);
    }
    expect((await fetch(url)).status).toBe(405);
    expect(refused.length).toBeGreaterThanOrEqual(cases.length);
  });
});

describe('from a page in headless Chromium', () => {
  test('sendBeacon and keepalive fetch both deliver a profiled trace, gzipped, cross-origin', async () => {
    const dir = tempDir();
    const stored: string[] = [];
    const receiver = traceReceiver({ dir, onTrace: (file) => stored.push(file) });
    const collector = http.createServer(receiver);
    const pages = http.createServer((req, res) => {
      if (req.url === '/send.mjs') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(require.resolve('@jsprof/runtime/send').replace(/send\.js$/, 'browser/jsprof-send.mjs')));
      if (req.url === '/global.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(require.resolve('@jsprof/runtime/global')));
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script src="/global.js"></script>');
    });
    const listen = (s: http.Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
    const collectorPort = await listen(collector);
    const pagePort = await listen(pages);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${pagePort}/`);
      // the collector is another origin (another port)
      // A string, so the compiler leaves the page's dynamic import alone.
      const results = await page.evaluate(`(async (collect) => {
        const { sendTrace } = await import('/send.mjs');
        const p = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
        await new Promise((resolve) => setTimeout(resolve, 100));
        const trace = await p.stop();
        return [await sendTrace(trace, { url: collect, meta: { via: 'beacon' } }), await sendTrace(trace, { url: collect, meta: { via: 'fetch' }, transport: 'fetch' })];
      })(${JSON.stringify(`http://127.0.0.1:${collectorPort}/collect`)})`);
      expect(results.map((r: any) => [r.sent, r.gzip, r.transport])).toEqual([
        [true, true, 'beacon'],
        [true, true, 'fetch'],
      ]);
      for (let i = 0; i < 50 && stored.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      const received = stored.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
      expect(received.map((r) => r.meta.via).sort()).toEqual(['beacon', 'fetch']);
      for (const r of received) expect(r.trace.samples.length).toBeGreaterThan(5);
    } finally {
      await browser.close();
      collector.close();
      pages.close();
    }
  }, 60_000);
});
