/**
 * The sampling snippet and the page-load runtime it loads, in headless Chromium: the snippet runs
 * under a Content-Security-Policy that allows it by its hash; a picked page load runs the runtime
 * and then the instrumented scripts, each as its tag said (a blocking classic script before the
 * document's body is parsed, a module after), never the plain ones, and sends its trace, gzipped when
 * its duration is up, as plain JSON when the page is left sooner; a page load not picked requests
 * nothing of jsprof's. The tags the snippet writes keep what they were in Firefox and WebKit too
 * (engines.test.ts).
 */
import * as http from 'node:http';
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { samplingBlock, samplingSnippet, scriptTag } from '../src/snippet';
import { BUSY_SCRIPT } from './helpers';
import { TABLE_REGISTRATION } from '../../estree-instrument/src';
const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');

const RUNTIME = fs.readFileSync(require.resolve('@jsprof/runtime/page-load'), 'utf8');

/** Each script notes what it saw of jsprof, and whether the document's body was parsed, when it ran. */
const note = (name: string) => `(self.ran ||= []).push([${JSON.stringify(name)}, typeof jsprof, !!document.getElementById('end')]);`;
const FILES: Record<string, string> = {
  '/rt.js': RUNTIME,
  '/plain/app.js': note('plain app'),
  '/plain/mod.mjs': note('plain module'),
  '/instrumented/app.js': `${BUSY_SCRIPT}\n${note('instrumented app')}`,
  '/instrumented/mod.mjs': note('instrumented module'),
  '/global.js': fs.readFileSync(require.resolve('@jsprof/runtime/global'), 'utf8'),
  '/send.mjs': fs.readFileSync(require.resolve('@jsprof/runtime/send').replace(/send\.js$/, 'browser/jsprof-send.mjs'), 'utf8'),
  // A script that says it has a function table, whose table is slow to come.
  '/with-table.js': `${BUSY_SCRIPT}\n${TABLE_REGISTRATION}`,
};
const SLOW_TABLE = '/with-table.js.jsprof.json';

function page(profile: object, csp?: 'hash' | 'nonce'): { html: string; csp: string } {
  const tags = (build: string) => [scriptTag(`/${build}/app.js`, false), scriptTag(`/${build}/mod.mjs`, true)];
  const block = samplingBlock(
    tags('plain').map((plain, i) => ({ plain, instrumented: tags('instrumented')[i] })),
    { rate: 0, runtime: '/rt.js', profile },
  );
  const hash = /script-src ('sha256-[^']+')/.exec(block)![1];
  const html = `<!doctype html><head><link rel="icon" href="data:,">${block}</head><body><p id="end"></p></body>`;
  if (csp === 'nonce') return { html: html.replace('<script>', '<script nonce="n0nce">'), csp: `script-src 'nonce-n0nce' 'strict-dynamic'` };
  return { html, csp: csp === 'hash' ? `script-src 'self' ${hash}` : '' };
}

let server: http.Server;
let origin: string;
let browser: Browser;
const requests: string[] = [];
const bodies: Buffer[] = [];
const PAGES: Record<string, { html: string; csp: string }> = {
  '/short': page({ duration: 300, send: '/traces', meta: { release: '</script>' } }, 'hash'),
  '/nonce': page({ duration: 300 }, 'nonce'),
  '/long': page({ duration: 60_000, send: '/traces' }),
  '/unsent': page({ duration: 300 }),
  '/trusted-types': trustedTypes('jsprof'),
  '/trusted-types-refused': trustedTypes('app'),
  // Sending as the README shows, when the page is left.
  '/send-on-pagehide': {
    html: `<!doctype html><head><link rel="icon" href="data:,"><script src="/global.js"></script><script src="/with-table.js"></script>
      <script type="module">
        import { sendTrace } from '/send.mjs';
        const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
        addEventListener('pagehide', () => profiler.stop().then((trace) => sendTrace(trace, { url: '/traces', meta: { sent: 'on pagehide' } })));
        self.ready = true;
      </script>`,
    csp: '',
  },
};

/** A page whose CSP enforces Trusted Types, allowing policies of these names. */
function trustedTypes(policies: string): { html: string; csp: string } {
  const hashed = page({ duration: 300 }, 'hash');
  return { html: hashed.html, csp: `${hashed.csp}; require-trusted-types-for 'script'; trusted-types ${policies}` };
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    requests.push(url.pathname);
    if (url.pathname === SLOW_TABLE) return void setTimeout(() => res.writeHead(404).end(), 2000);
    if (url.pathname === '/traces') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks));
        res.writeHead(204).end();
      });
      return;
    }
    const html = PAGES[url.pathname];
    if (html) return void res.writeHead(200, { 'content-type': 'text/html', ...(html.csp ? { 'content-security-policy': html.csp } : {}) }).end(html.html);
    const body = FILES[url.pathname];
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

async function open(path: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (m) => problems.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(e.message));
  requests.length = 0;
  bodies.length = 0;
  await page.goto(`${origin}${path}`);
  await page.waitForFunction('self.ran && self.ran.length === 2');
  return { page, problems };
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !condition() && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 20));
}

test('a page load not picked runs the plain scripts in order and requests nothing of jsprof', async () => {
  const { page, problems } = await open('/short?jsprof-sample=0');
  expect(await page.evaluate('self.ran')).toEqual([
    ['plain app', 'undefined', false],
    ['plain module', 'undefined', true],
  ]);
  await page.close();
  expect(requests.filter((r) => r !== '/short').sort()).toEqual(['/plain/app.js', '/plain/mod.mjs']);
  expect(problems).toEqual([]);
});

test('a picked page load, under a CSP that allows the snippet by its hash: the runtime first, then the instrumented scripts in order; the trace is sent gzipped when its duration is up', async () => {
  const { page, problems } = await open('/short?jsprof-sample=1');
  expect(await page.evaluate('self.ran')).toEqual([
    ['instrumented app', 'object', false],
    ['instrumented module', 'object', true],
  ]);
  await page.evaluate('busy(150)');
  const trace: any = await page.evaluate('jsprof.pageLoadTrace');
  await until(() => bodies.length > 0, 3000);
  await page.close();
  // Chromium's preload scanner may fetch the plain tags (hidden from the parser, never run) before the snippet writes.
  expect(requests.filter((r) => r !== '/short' && r !== '/traces' && !r.startsWith('/plain/')).sort()).toEqual(['/instrumented/app.js', '/instrumented/mod.mjs', '/rt.js']);
  expect(problems).toEqual([]);
  expect(trace.samples.length).toBeGreaterThan(5);
  expect(bodies.length).toBe(1);
  expect(bodies[0].subarray(0, 2).toString('hex')).toBe('1f8b');
  const sent = JSON.parse(zlib.gunzipSync(bodies[0]).toString('utf8'));
  expect(sent.meta).toEqual({ page: '/short', release: '</script>' });
  const names = sent.trace.frames.map((f: { name: string }) => f.name);
  expect(names).toContain('busy');
});

test('a picked page load left before its duration is up sends its trace as it goes, as plain JSON', async () => {
  const { page } = await open('/long?jsprof-sample=1');
  await page.evaluate('busy(150)');
  // A single-page app goes to another of its pages: the trace is still the page load's, of /long.
  await page.evaluate("history.pushState(null, '', '/long/settings')");
  await page.goto('about:blank');
  await until(() => bodies.length > 0, 3000);
  await page.close();
  expect(bodies.length).toBe(1);
  const sent = JSON.parse(bodies[0].toString('utf8'));
  expect(sent.meta).toEqual({ page: '/long' });
  expect(sent.trace.samples.length).toBeGreaterThan(5);
});

test('what the page sets on jsprofPageLoad.meta before the trace is sent travels with it: a route template as `page`, labels known only at run time', async () => {
  const { page } = await open('/long?jsprof-sample=1');
  await page.evaluate('busy(50)');
  await page.evaluate("jsprofPageLoad.meta = { ...jsprofPageLoad.meta, page: '/product/:id', plan: 'pro' }");
  await page.goto('about:blank');
  await until(() => bodies.length > 0, 3000);
  await page.close();
  expect(bodies.length).toBe(1);
  expect(JSON.parse(bodies[0].toString('utf8')).meta).toEqual({ page: '/product/:id', plan: 'pro' });
});

test("under a nonce-based CSP with 'strict-dynamic', the snippet passes its nonce on to the scripts it writes", async () => {
  const { page, problems } = await open('/nonce?jsprof-sample=1');
  expect(await page.evaluate('self.ran')).toEqual([
    ['instrumented app', 'object', false],
    ['instrumented module', 'object', true],
  ]);
  await page.close();
  expect(problems).toEqual([]);
});

test("under Trusted Types (require-trusted-types-for 'script'), the snippet writes its tags through a policy named jsprof", async () => {
  const { page, problems } = await open('/trusted-types?jsprof-sample=1');
  expect(await page.evaluate('self.ran')).toEqual([
    ['instrumented app', 'object', false],
    ['instrumented module', 'object', true],
  ]);
  await page.close();
  expect(problems).toEqual([]);
});

test('under Trusted Types that do not allow the policy jsprof, a picked page load runs the plain build, and nothing is thrown into the page', async () => {
  const { page, problems } = await open('/trusted-types-refused?jsprof-sample=1');
  expect(await page.evaluate('[self.ran, typeof jsprofPageLoad]')).toEqual([
    [
      ['plain app', 'undefined', false],
      ['plain module', 'undefined', true],
    ],
    'undefined',
  ]);
  await page.close();
  // Chromium reports what the CSP refused in the console; nothing reaches the page as an exception.
  expect(problems.filter((p) => !p.startsWith('error: '))).toEqual([]);
});

test('a trace stopped and sent on pagehide, as the README shows, arrives: stop() waits for no function table, sendTrace does not gzip', async () => {
  const page = await browser.newPage();
  requests.length = 0;
  bodies.length = 0;
  await page.goto(`${origin}/send-on-pagehide`);
  await page.waitForFunction('self.ready');
  await page.evaluate('busy(150)');
  await page.goto('about:blank');
  await until(() => bodies.length > 0, 3000);
  await page.close();
  expect(bodies.length).toBe(1);
  const sent = JSON.parse(bodies[0].toString('utf8'));
  expect(sent.meta).toEqual({ sent: 'on pagehide' });
  expect(sent.trace.samples.length).toBeGreaterThan(5);
  expect(sent.trace.frames.map((f: { name: string }) => f.name)).toContain('busy');
  expect(requests).not.toContain(SLOW_TABLE);
});

test('a page back from the back/forward cache (pageshow after pagehide) fetches function tables and gzips again', async () => {
  const page = await browser.newPage();
  requests.length = 0;
  bodies.length = 0;
  await page.goto(`${origin}/send-on-pagehide`);
  await page.waitForFunction('self.ready');
  const result: any = await page.evaluate(`(async () => {
    busy(50);
    dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    const { sendTrace } = await import('/send.mjs');
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 100 });
    busy(150);
    return sendTrace(await profiler.stop(), { url: '/traces' });
  })()`);
  await until(() => bodies.length > 1, 3000);
  await page.close();
  expect(bodies.length).toBe(2);
  expect(JSON.parse(bodies[0].toString('utf8')).meta).toEqual({ sent: 'on pagehide' });
  expect(result).toMatchObject({ sent: true, gzip: true });
  expect(bodies[1].subarray(0, 2).toString('hex')).toBe('1f8b');
  expect(requests).toContain(SLOW_TABLE);
});

test('without `send`, the trace is only jsprof.pageLoadTrace', async () => {
  const { page } = await open('/unsent?jsprof-sample=1');
  await page.evaluate('busy(100)');
  const trace: any = await page.evaluate('jsprof.pageLoadTrace');
  await page.close();
  expect(trace.samples.length).toBeGreaterThan(3);
  expect(bodies).toEqual([]);
});

test('the snippet refuses a rate outside 0 to 1 and a page without scripts', () => {
  const tags = [scriptTag('/jsprof/a.js', false)];
  for (const rate of [-0.1, 1.5, NaN, '0.3' as unknown as number]) expect(() => samplingSnippet(tags, { rate, runtime: '/rt.js' })).toThrow(/rate must be a number from 0 to 1/);
  expect(() => samplingSnippet([], { rate: 0.5, runtime: '/rt.js' })).toThrow(/needs the tags/);
  // Nothing in its configuration can end the script element or start a comment in it.
  const html = samplingSnippet(tags, { rate: 0.5, runtime: '/rt.js', profile: { meta: { x: '</script><!--<script>alert(1)</script>' } } }).html;
  expect(html.match(/<\/script>/g)).toHaveLength(1);
  expect(html.slice(1).match(/<!--|<script/g)).toBeNull();
});
