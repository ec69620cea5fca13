/** sendTrace in Node (fetch, as a browser without sendBeacon), to a local server: what arrives. */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendTrace } from '../src/send';
import type { ProfilerTrace } from '../src';

const TRACE: ProfilerTrace = {
  resources: ['https://app.example/app.js'],
  frames: [{ name: 'main', resourceId: 0, line: 1, column: 10 }, { name: 'leaf', resourceId: 0, line: 5, column: 14 }],
  stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
  samples: [{ timestamp: 10, stackId: 1 }, { timestamp: 20 }, { timestamp: 30, stackId: 0 }],
};

let server: http.Server;
let url: string;
const bodies: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/traces`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

test("a page's Array.prototype.toJSON (Prototype.js's, returning a string) does not turn the trace's arrays into strings", async () => {
  const proto = Array.prototype as any;
  proto.toJSON = function (this: unknown[]) {
    return `[${this.map((item) => JSON.stringify(item)).join(',')}]`;
  };
  let result;
  try {
    result = await sendTrace(TRACE, { url, meta: { page: '/home' }, gzip: false, transport: 'fetch' });
  } finally {
    delete proto.toJSON;
  }
  expect(result.sent).toBe(true);
  expect(JSON.parse(bodies[bodies.length - 1])).toEqual({ meta: { page: '/home' }, trace: TRACE });
});

test('without a url it sends nothing, and says so (not a beacon to the page itself, or to "undefined")', async () => {
  const beacons: unknown[] = [];
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  Object.defineProperty(globalThis, 'navigator', { value: { sendBeacon: (to: unknown) => beacons.push(to) > 0 }, configurable: true });
  try {
    for (const url of [undefined, '']) {
      expect(await sendTrace(TRACE, { url } as any)).toMatchObject({ sent: false, reason: 'no url to send to' });
    }
  } finally {
    if (saved) Object.defineProperty(globalThis, 'navigator', saved);
    else delete (globalThis as any).navigator;
  }
  expect(beacons).toEqual([]);
});

test('where there is neither sendBeacon nor fetch, nothing is sent and the result says why', async () => {
  const saved = globalThis.fetch;
  delete (globalThis as any).fetch;
  try {
    expect(await sendTrace(TRACE, { url, gzip: false })).toMatchObject({ sent: false, transport: null, reason: 'neither sendBeacon nor fetch is available' });
  } finally {
    globalThis.fetch = saved;
  }
});
