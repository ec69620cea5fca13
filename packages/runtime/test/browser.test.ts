/**
 * The classic-script build in headless Chromium (Debian's, driven by playwright-core): sampling pauses
 * while the page is hidden; Chromium's native Profiler is replaced without being tried (no console
 * message), and put back on request where the page may use it (Document-Policy: js-profiling);
 * origin masking with a second origin.
 * Long tasks in pages and workers, with and without isolation, are tried in every engine in
 * engines.test.ts.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { CHECK_SOURCE, ENTRY_CHECK_SOURCE, GLOBAL_PRELUDE_SOURCE } from '../../policy/src/check';
import { TABLE_REGISTRATION, functionTable, parseJs } from '@jsprof/estree-instrument';
import { BUSY_SCRIPT } from './helpers';
import { OTHER_ORIGIN_FILES, busyLibrary as lib, maskingWorker } from './masking-pages';
const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');

const FILES: Record<string, string> = {
  '/jsprof.global.js': fs.readFileSync(require.resolve('@jsprof/runtime/global'), 'utf8'),
  '/app.js': BUSY_SCRIPT,
  '/': '<!doctype html><script src="/jsprof.global.js"></script><script src="/app.js"></script>',
};

// A worker whose own script has a function table.
const TABLED_WORKER = `importScripts('/jsprof.global.js');\n${BUSY_SCRIPT}\nonmessage = async (e) => { const p = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 }); busy(e.data); postMessage(await p.stop()); };\n${TABLE_REGISTRATION}\n`;
FILES['/tabled-worker.js'] = TABLED_WORKER;
FILES['/tabled-worker.js.jsprof.json'] = JSON.stringify(functionTable(TABLED_WORKER, parseJs(TABLED_WORKER, 'tabled-worker.js')));
const requested: string[] = [];

let server: http.Server;
let origin: string;
let other: http.Server;
let otherOrigin: string;
let browser: Browser;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    requested.push(url.pathname);
    // A same-origin URL answered with a redirect to the other origin's library.
    if (url.pathname === '/redirect-to-lib.js') return void res.writeHead(302, { location: `${otherOrigin}/lib.js` }).end();
    const body = FILES[url.pathname];
    if (body === undefined) return void res.writeHead(404).end();
    const headers: Record<string, string> = { 'content-type': body.startsWith('<!doctype html>') ? 'text/html' : 'text/javascript' };
    if (url.searchParams.has('isolated')) Object.assign(headers, { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' });
    if (url.searchParams.has('native')) headers['document-policy'] = 'js-profiling';
    if (url.searchParams.has('csp')) headers['content-security-policy'] = url.searchParams.get('csp')!;
    res.writeHead(200, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  other = http.createServer((req, res) => {
    const file = OTHER_ORIGIN_FILES[new URL(req.url!, 'http://x').pathname];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/javascript', ...(file.cors ? { 'access-control-allow-origin': '*' } : {}) }).end(file.body);
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  FILES['/masking'] = `<!doctype html>
    <script src="/jsprof.global.js"></script>
    <script src="${otherOrigin}/lib.js"></script>
    <script src="${otherOrigin}/cors-lib.js" crossorigin></script>
    <script src="${otherOrigin}/eval-lib.js"></script>
    <script type="module">import { libModule } from '${otherOrigin}/mod.mjs'; self.libModule = libModule; self.ready = true;</script>
    <script>${GLOBAL_PRELUDE_SOURCE}
      function inlineDriver(ms) { ${ENTRY_CHECK_SOURCE} try { libPlain(ms); libCors(ms); libModule(ms); } finally { ${CHECK_SOURCE} } }
      function evalDriver(ms) { ${ENTRY_CHECK_SOURCE} try { libEval(ms); new Function('ms', ${JSON.stringify(`${lib('fnBusy')} return fnBusy(ms);`)})(ms); } finally { ${CHECK_SOURCE} } }
    </script>`;
  FILES['/redirected'] = `<!doctype html>
    <script src="/jsprof.global.js"></script>
    <script src="/redirect-to-lib.js"></script>
    <script>${GLOBAL_PRELUDE_SOURCE}
      function redirectDriver(ms) { ${ENTRY_CHECK_SOURCE} try { libPlain(ms); } finally { ${CHECK_SOURCE} } }
      self.ready = true;
    </script>`;
  FILES['/masking-worker.js'] = maskingWorker(otherOrigin);
  // A page running a data: and a blob: script.
  FILES['/schemes'] = `<!doctype html>
    <script src="/jsprof.global.js"></script>
    <script src="data:text/javascript,${encodeURIComponent(lib('dataBusy'))}"></script>
    <script>
      const blobUrl = URL.createObjectURL(new Blob([${JSON.stringify(lib('blobBusy'))}], { type: 'text/javascript' }));
      const script = document.createElement('script');
      script.src = blobUrl;
      script.onload = () => { self.ready = true; };
      document.head.append(script);
    </script>
    <script>${lib('inlineBusy')}</script>`;
  // A page that fakes its clock (frozen, as fake timers leave it) and wraps its timers, as zone.js does.
  FILES['/patched-timers'] = `<!doctype html>
    <script src="/jsprof.global.js"></script>
    <script>
      const realNow = performance.now.bind(performance);
      const realSetTimeout = setTimeout;
      const frozen = performance.now();
      performance.now = () => frozen;
      self.wrappedCallbacks = 0;
      for (const name of ['setTimeout', 'setInterval']) {
        const original = self[name];
        self[name] = (fn, ms, ...args) => original((...a) => { self.wrappedCallbacks++; fn(...a); }, ms, ...args);
      }
    </script>
    <script>${BUSY_SCRIPT.replaceAll('performance.now()', 'realNow()')}</script>`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await new Promise((resolve) => other?.close(resolve));
});

async function inPage(query: string, run: string, pathname = '/'): Promise<any> {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}${pathname}${query ? `?${query}` : ''}`);
    return await page.evaluate(run);
  } finally {
    await page.close();
  }
}

test('sampling pauses while the page is hidden', async () => {
  const result = await inPage(
    'plain',
    `(async () => {
      const setHidden = (hidden) => {
        Object.defineProperty(document, 'visibilityState', { value: hidden ? 'hidden' : 'visible', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      };
      const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
      busy(150);
      setHidden(true);
      const hiddenFrom = performance.now();
      busy(150);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const hiddenTo = performance.now();
      setHidden(false);
      busy(150);
      const trace = await p.stop();
      return { hidden: trace.samples.filter((s) => s.timestamp > hiddenFrom && s.timestamp < hiddenTo).length, total: trace.samples.length };
    })()`,
  );
  expect(result.hidden).toBe(0);
  expect(result.total).toBeGreaterThan(15);
});

test('Chromium\'s own Profiler is replaced without a console message; preferNative puts it back where the page may use it', async () => {
  const page = await browser.newPage();
  const messages: string[] = [];
  page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
  try {
    await page.goto(`${origin}/?plain`);
    const plain = await page.evaluate(`(async () => {
      const replaced = Profiler === jsprof.Profiler;
      await new Profiler({ sampleInterval: 10, maxBufferSize: 10 }).stop();
      jsprof.install({ preferNative: true });
      return { replaced, kept: Profiler === jsprof.Profiler };
    })()`);
    expect(plain).toEqual({ replaced: true, kept: true });
    // Asking for the native one where the page may not use it is what makes Chromium say so.
    expect(messages).toEqual([expect.stringMatching(/^error: .*js-profiling is not allowed/i)]);
  } finally {
    await page.close();
  }
  expect(await inPage('native', 'Profiler === jsprof.Profiler')).toBe(true);
  const native = await inPage(
    'native',
    `jsprof.install({ preferNative: true }) !== jsprof.Profiler && Profiler !== jsprof.Profiler && new Profiler({ sampleInterval: 10, maxBufferSize: 10 }).stop().then((t) => Object.keys(t).sort().join())`,
  );
  expect(native).toBe('frames,resources,samples,stacks');
});

test("a page's fake clock and wrapped timers neither stop sampling nor see the runtime's timers", async () => {
  const result = await inPage(
    '',
    `(async () => {
      const full = new Profiler({ sampleInterval: 10, maxBufferSize: 2 });
      let fullEvents = 0;
      full.onsamplebufferfull = () => fullEvents++;
      const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
      busy(300);
      await new Promise((resolve) => realSetTimeout(resolve, 100));
      const trace = await p.stop();
      await full.stop();
      return { withStack: trace.samples.filter((s) => s.stackId !== undefined).length, fullEvents, wrappedCallbacks };
    })()`,
    '/patched-timers',
  );
  expect(result.withStack).toBeGreaterThan(15);
  expect(result.fullEvents).toBe(1);
  expect(result.wrappedCallbacks).toBe(0);
});

test.each([
  ['Trusted Types refuse', "require-trusted-types-for 'script'"],
  ['script-src refuses', "script-src 'self'"],
])('a cross-origin isolated page whose CSP (%s) refuses the Blob worker: the count-down samples, and the browser reports the refusal once', async (_, csp) => {
  const page = await browser.newPage();
  const messages: string[] = [];
  page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => messages.push(`pageerror: ${error.message}`));
  try {
    await page.goto(`${origin}/?isolated&csp=${encodeURIComponent(csp)}`);
    const result: any = await page.evaluate(`(async () => {
      const counts = [];
      for (let i = 0; i < 3; i++) {
        const p = new Profiler({ sampleInterval: 10, maxBufferSize: 1000 });
        busy(100);
        await new Promise((resolve) => setTimeout(resolve, 20));
        counts.push((await p.stop()).samples.filter((s) => s.stackId !== undefined).length);
      }
      return { isolated: crossOriginIsolated, counts, mode: jsprof.samplerStats().mode };
    })()`);
    expect(result.isolated).toBe(true);
    expect(result.mode).toBe('count-down');
    for (const count of result.counts) expect(count).toBeGreaterThan(5);
    // (the favicon's 404 aside)
    expect(messages.filter((m) => !m.includes('Failed to load resource'))).toEqual([expect.stringMatching(/^error: .*(TrustedScriptURL|worker)/)]);
  } finally {
    await page.close();
  }
});

describe('origin masking, with a second origin', () => {
  const PROFILE = (mode: string, driver = 'inlineDriver') => `(async () => {
    for (let i = 0; !self.ready && i < 500; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    jsprof.setCrossOriginFrames(${JSON.stringify(mode)});
    const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
    ${driver}(150);
    const trace = await p.stop();
    const stacks = trace.samples.filter((s) => s.stackId !== undefined).map((s) => {
      const names = [];
      for (let id = s.stackId; id !== undefined; id = trace.stacks[id].parentId) names.unshift(trace.frames[trace.stacks[id].frameId].name);
      return names.join('>');
    });
    return { resources: trace.resources, names: trace.frames.map((f) => f.name), stacks };
  })()`;

  test('a classic script without crossorigin is masked; crossorigin and module scripts that passed CORS, and inline ones, are kept', async () => {
    const result = await inPage('', PROFILE('drop'), '/masking');
    expect(result.resources).not.toContain(`${otherOrigin}/lib.js`);
    expect(result.resources).toEqual(expect.arrayContaining([`${otherOrigin}/cors-lib.js`, `${otherOrigin}/mod.mjs`, `${origin}/masking`]));
    expect(result.names).not.toContain('libPlain');
    expect(result.names).toEqual(expect.arrayContaining(['libCors', 'libModule', 'inlineDriver']));
    // the masked library's time is charged to its caller: stacks that end in the inline driver
    expect(result.stacks.filter((s: string) => s.endsWith('inlineDriver')).length).toBeGreaterThan(5);
    expect(result.stacks.some((s: string) => s.includes('(cross-origin)'))).toBe(false);
  });

  test.each([
    ['', 'redirectDriver'],
    [', its Resource Timing entries cleared by the page', 'performance.clearResourceTimings(), redirectDriver'],
  ])('a script of the page’s origin redirected to another origin is masked (Chromium names it by the URL it asked for)%s', async (_, driver) => {
    const result = await inPage('', PROFILE('drop', driver), '/redirected');
    expect(result.names).toContain('redirectDriver');
    expect(result.names).not.toContain('libPlain');
    expect(result.resources).not.toContain(`${origin}/redirect-to-lib.js`);
    expect(result.stacks.filter((s: string) => s.endsWith('redirectDriver')).length).toBeGreaterThan(5);
  });

  test('code from eval and new Function is left out, its time charged to its caller, as Chromium does (from any origin)', async () => {
    for (const mode of ['drop', 'coalesce']) {
      const result = await inPage('', PROFILE(mode, 'evalDriver'), '/masking');
      expect(result.names).not.toContain('evalBusy');
      expect(result.names).not.toContain('fnBusy');
      expect(result.names).not.toContain('libPlain');
      expect(result.resources).not.toContain(`${otherOrigin}/eval-lib.js`);
      // libEval (an arrow of the cross-origin script) is masked too, so the time lands on evalDriver
      expect(result.stacks.filter((s: string) => s.endsWith(mode === 'drop' ? 'evalDriver' : 'evalDriver>(cross-origin)')).length).toBeGreaterThan(3);
      expect(result.stacks.filter((s: string) => s.endsWith('evalDriver')).length).toBeGreaterThan(3); // new Function's share
    }
  });

  test('in a worker, scripts imported from another origin are masked, even one that allows CORS', async () => {
    const { trace } = await inPage('', `new Promise((resolve) => { const w = new Worker('/masking-worker.js'); w.onmessage = (e) => resolve(e.data); w.postMessage(0); })`);
    const names = trace.frames.map((f: { name: string }) => f.name);
    expect(trace.samples.filter((s: { stackId?: number }) => s.stackId !== undefined).length).toBeGreaterThan(5);
    expect(names).toContain('workerDriver');
    expect(names).not.toContain('libPlain');
    expect(names).not.toContain('libCors');
    expect(trace.resources).toEqual([`${origin}/masking-worker.js`]);
  });

  test("a worker's own script is named from its function table, as the page's scripts are", async () => {
    const trace = await inPage('', `new Promise((resolve) => { const w = new Worker('/tabled-worker.js'); w.onmessage = (e) => resolve(e.data); w.postMessage(200); })`);
    expect(trace.frames.map((f: { name: string }) => f.name)).toContain('busy');
    expect(requested).toContain('/tabled-worker.js.jsprof.json');
  });

  // Chromium itself drops the credentials of the page's URL (location.href has none); origins.test.ts tests ours.
  test('data: and blob: scripts of the page are kept; a page opened with credentials in its URL leaves none in the trace', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin.replace('//', '//user:secret@')}/schemes`);
      const result: any = await page.evaluate(`(async () => {
        for (let i = 0; !self.ready && i < 500; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
        dataBusy(100);
        blobBusy(100);
        inlineBusy(100);
        const trace = await p.stop();
        return { resources: trace.resources, names: trace.frames.map((f) => f.name) };
      })()`);
      expect(result.names).toEqual(expect.arrayContaining(['dataBusy', 'blobBusy', 'inlineBusy']));
      expect(result.resources).toContain(`${origin}/schemes`);
      expect(result.resources.some((r: string) => r.startsWith('data:text/javascript,'))).toBe(true);
      expect(result.resources.some((r: string) => r.startsWith(`blob:${origin}/`))).toBe(true);
      expect(JSON.stringify([result.resources, result.names])).not.toContain('secret');
    } finally {
      await page.close();
    }
  });

  test('coalesce names the masked frames "(cross-origin)", still without their URL', async () => {
    const result = await inPage('', PROFILE('coalesce'), '/masking');
    expect(result.resources).not.toContain(`${otherOrigin}/lib.js`);
    expect(result.names).not.toContain('libPlain');
    expect(result.stacks.filter((s: string) => s.endsWith('inlineDriver>(cross-origin)')).length).toBeGreaterThan(5);
  });
});
