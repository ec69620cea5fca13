/**
 * The classic-script build in the three engines (fixtures/browsers.js: Chromium, Firefox ESR, WebKitGTK's
 * MiniBrowser), none of which gives a page without the document policy a native Profiler: a page and a
 * dedicated worker sample inside a long task, with and without cross-origin isolation, and frames of a
 * cross-origin script are masked unless it opted in with CORS (Firefox and WebKit show them in `stack`
 * strings whatever the CORS mode, so only the runtime hides them). The sampling snippet's page loads
 * run either build's scripts as their tags say (blocking, deferred, a module, async) and never both.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProfilerTrace } from '../src';
import { CHECK_SOURCE, ENTRY_CHECK_SOURCE, GLOBAL_PRELUDE_SOURCE } from '../../policy/src/check';
import * as vm from 'node:vm';
import { instrument, parseJs } from '../../estree-instrument/src';
import { BUSY_SCRIPT, expectValidTrace, stackNames } from './helpers';
import { samplingBlock } from '../src/snippet';
import { OTHER_ORIGIN_FILES, maskingWorker } from './masking-pages';

type EngineName = 'chromium' | 'firefox' | 'webkit';
interface Page {
  goto(url: string): Promise<void>;
  evaluate(expression: string): Promise<any>;
  close(): Promise<void>;
}
interface Browser {
  name: EngineName;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
const { launchBrowser }: { launchBrowser: (name: EngineName) => Promise<Browser> } = require('../../../fixtures/browsers');

/** A long task in instrumented code (BUSY_SCRIPT), and a driver that profiles it. */
const APP = `${BUSY_SCRIPT}
async function profileBusy(ms) {
  const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
  // A sampler thread starts only once the page yields.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const start = performance.now();
  busy(ms);
  const end = performance.now();
  const trace = await p.stop();
  return { trace, start, end, polyfill: Profiler === jsprof.Profiler, mode: jsprof.samplerStats().mode, isolated: self.crossOriginIsolated, sharedMemory: typeof SharedArrayBuffer === 'function' };
}`;

const FILES: Record<string, string> = {
  '/jsprof.global.js': fs.readFileSync(require.resolve('@jsprof/runtime/global'), 'utf8'),
  '/app.js': APP,
  '/worker.js': `importScripts('/jsprof.global.js', '/app.js'); onmessage = async (e) => postMessage(await profileBusy(e.data));`,
  '/': '<!doctype html><script src="/jsprof.global.js"></script><script src="/app.js"></script>',
};
/** Functions to send as text, as written (the expected texts) and as jsprof instruments them. */
const SHIPPED = `
function shipped(n) {
  let sum = 0
  for (let i = 0; i < n; i++) sum += square(i)
  if (sum > 1e9) return -1
  return sum
  function square(x) { return x * x }
}
var arrow = (n) => [1, 2, 3].map((x) => x * n).reduce((a, b) => a + b, 0);
class Shape { constructor(w) { this.w = w; while (this.w > 10) this.w /= 2 } area() { return this.w ** 2 } }
var shippedFunctions = [shipped, arrow, Shape, Shape.prototype.area];`;
const SHIPPED_TEXTS: string[] = vm.runInNewContext(`${SHIPPED}; shippedFunctions.map(String)`);
FILES['/shipped.js'] = instrument({ code: SHIPPED, program: parseJs(SHIPPED, 'shipped.js', 'script'), sourceMap: false }, { threshold: 1, loops: true }).code;
FILES['/shipped'] = '<!doctype html><script src="/jsprof.global.js"></script><script src="/shipped.js"></script>';
const HOT_LEAVES = fs.readFileSync(`${__dirname}/fixtures/hot-leaves.js`, 'utf8');
FILES['/hot.js'] = instrument({ code: HOT_LEAVES, program: parseJs(HOT_LEAVES, 'hot.js', 'script'), sourceMap: false }, { threshold: 1 }).code;
FILES['/hot'] = '<!doctype html><script src="/jsprof.global.js"></script><script>var exports = {};</script><script src="/hot.js"></script>';

// A page whose build has a blocking script, a deferred one, a module and an async one; each notes,
// when it runs, whether the runtime had run and whether the document's body was parsed.
const BUILD_TAGS = (build: string) => [
  `<script src="/${build}/blocking.js"></script>`,
  `<script defer src="/${build}/deferred.js"></script>`,
  `<script type="module" src="/${build}/module.mjs"></script>`,
  `<script async src="/${build}/async.js"></script>`,
];
for (const build of ['plain', 'instrumented']) {
  for (const tag of BUILD_TAGS(build)) {
    const file = /src="([^"]+)"/.exec(tag)![1];
    FILES[file] = `(self.ran = self.ran || []).push([${JSON.stringify(file)}, typeof jsprof, !!document.getElementById('end')]);`;
  }
}
FILES['/sampled'] = `<!doctype html><html><head>${samplingBlock(
  BUILD_TAGS('plain').map((plain, i) => ({ plain, instrumented: BUILD_TAGS('instrumented')[i] })),
  { rate: 0.5, runtime: '/jsprof.global.js' },
)}</head><body>${'<p>text</p>'.repeat(500)}<p id="end"></p></body></html>`;

let server: http.Server;
let origin: string;
let other: http.Server;
let otherOrigin: string;

async function listen(handler: http.RequestListener): Promise<[http.Server, string]> {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return [s, `http://127.0.0.1:${(s.address() as AddressInfo).port}`];
}

beforeAll(async () => {
  [server, origin] = await listen((req, res) => {
    const url = new URL(req.url!, 'http://x');
    // A script of this origin answered with a redirect to the other origin's library.
    if (url.pathname === '/redirect-to-lib.js') return void res.writeHead(302, { location: `${otherOrigin}/lib.js` }).end();
    const body = FILES[url.pathname];
    if (body === undefined) return void res.writeHead(404).end();
    const headers: Record<string, string> = { 'content-type': body.startsWith('<!doctype html>') ? 'text/html' : 'text/javascript' };
    if (url.searchParams.has('isolated')) Object.assign(headers, { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' });
    res.writeHead(200, headers).end(body);
  });
  [other, otherOrigin] = await listen((req, res) => {
    const file = OTHER_ORIGIN_FILES[new URL(req.url!, 'http://x').pathname];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/javascript', ...(file.cors ? { 'access-control-allow-origin': '*' } : {}) }).end(file.body);
  });
  // The CORS library's URL has a query string: JavaScriptCore leaves it out of stack strings.
  FILES['/masking'] = `<!doctype html>
    <script src="/jsprof.global.js"></script>
    <script src="${otherOrigin}/lib.js"></script>
    <script src="${otherOrigin}/cors-lib.js?v=1" crossorigin></script>
    <script>${GLOBAL_PRELUDE_SOURCE}
      function driver(ms) { ${ENTRY_CHECK_SOURCE} try { libPlain(ms); libCors(ms); } finally { ${CHECK_SOURCE} } }
    </script>`;
  // A module imported from the other origin (CORS passed), code a script of the other origin evals, and a
  // worker that imports both classic libraries of the other origin.
  FILES['/masking-more'] = `<!doctype html>
    <script src="/jsprof.global.js"></script>
    <script src="${otherOrigin}/eval-lib.js"></script>
    <script>self.ready = false;</script>
    <script type="module">import { libModule } from '${otherOrigin}/mod.mjs'; self.libModule = libModule; self.ready = true;</script>
    <script>${GLOBAL_PRELUDE_SOURCE}
      function moreDriver(ms) { ${ENTRY_CHECK_SOURCE} try { libModule(ms); libEval(ms); } finally { ${CHECK_SOURCE} } }
    </script>`;
  FILES['/masking-worker.js'] = maskingWorker(otherOrigin);
  FILES['/redirected'] = `<!doctype html>
    <script src="/jsprof.global.js"></script>
    <script src="/redirect-to-lib.js"></script>
    <script>${GLOBAL_PRELUDE_SOURCE}
      function redirectDriver(ms) { ${ENTRY_CHECK_SOURCE} try { libPlain(ms); } finally { ${CHECK_SOURCE} } }
    </script>`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await new Promise((resolve) => other?.close(resolve));
});

interface LongTask {
  trace: ProfilerTrace;
  start: number;
  end: number;
  polyfill: boolean;
  mode: string;
  isolated: boolean;
  sharedMemory: boolean;
}

/** 300 ms in one long task at 10 ms: nearly every sample inside it has the stack of the busy code. */
function expectSampledLongTask(result: LongTask) {
  expect(result.polyfill).toBe(true);
  expect(result.mode).toBe(result.sharedMemory ? 'thread' : 'count-down');
  const { trace } = result;
  expectValidTrace(trace);
  const during = trace.samples.filter((s) => s.timestamp >= result.start && s.timestamp <= result.end);
  const withStack = during.filter((s) => s.stackId !== undefined);
  expect(during.length).toBeGreaterThan(10);
  expect(withStack.length / during.length).toBeGreaterThanOrEqual(0.9);
  // The first may fall due before busy() starts and be taken at its entry check, charged to its caller.
  const leaves = withStack.slice(1).map((s) => stackNames(trace, s.stackId).pop());
  expect(leaves.every((name) => name === 'busy' || name === 'step')).toBe(true);
  expect(trace.resources).toEqual([`${origin}/app.js`]);
}

describe.each(['chromium', 'firefox', 'webkit'] as EngineName[])('%s', (engine) => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser(engine);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function inPage(pathname: string, expression: string): Promise<any> {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}${pathname}`);
      return await page.evaluate(expression);
    } finally {
      await page.close();
    }
  }

  /** The trace of `driver(150)` in the page at `pathname`, once its module scripts have run (`self.ready`, where it sets one). */
  async function profiledIn(pathname: string, driver: string): Promise<ProfilerTrace> {
    const { trace } = await inPage(
      pathname,
      `(async () => {
        for (let i = 0; 'ready' in self && !self.ready && i < 500; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
        ${driver}(150);
        return { trace: await p.stop() };
      })()`,
    );
    expectValidTrace(trace);
    return trace;
  }

  // SharedArrayBuffer exists only in a cross-origin isolated page, and never in WebKitGTK.
  const sharedMemory = (isolated: boolean) => isolated && engine !== 'webkit';

  describe.each([
    ['not cross-origin isolated', '/', false],
    ['cross-origin isolated', '/?isolated', true],
  ])('a page %s', (_label, pathname, isolated) => {
    test('the polyfill samples inside a long task', async () => {
      const result: LongTask = await inPage(pathname, 'profileBusy(300)');
      expect(result.isolated).toBe(isolated);
      expect(result.sharedMemory).toBe(sharedMemory(isolated));
      expectSampledLongTask(result);
    });

    test('a dedicated worker loading the classic script samples too', async () => {
      // The worker's script is served as the page is (an isolated page's worker must be isolated too).
      const result: LongTask = await inPage(
        pathname,
        `new Promise((resolve) => { const w = new Worker('/worker.js' + location.search); w.onmessage = (e) => resolve(e.data); w.onerror = () => resolve({ error: 'worker failed' }); w.postMessage(300); })`,
      );
      expect(result.isolated).toBe(isolated);
      expect(result.sharedMemory).toBe(sharedMemory(isolated));
      expectSampledLongTask(result);
    });
  });

  test('a classic script from another origin is masked without crossorigin, kept with it and CORS', async () => {
    const trace = await profiledIn('/masking', 'driver');
    expect(trace.resources).toContain(`${origin}/masking`);
    expect(trace.resources.some((url) => url.startsWith(`${otherOrigin}/cors-lib.js`))).toBe(true);
    expect(trace.resources).not.toContain(`${otherOrigin}/lib.js`);
    const names = trace.frames.map((f) => f.name);
    expect(names).toContain('libCors');
    expect(names).not.toContain('libPlain');
    // the masked library's time is charged to its caller
    const stacks = trace.samples.filter((s) => s.stackId !== undefined).map((s) => stackNames(trace, s.stackId).join('>'));
    expect(stacks.filter((s) => s.endsWith('driver')).length).toBeGreaterThan(5);
    expect(stacks.filter((s) => s.endsWith('driver>libCors')).length).toBeGreaterThan(5);
  });

  // WebKit gives Resource Timing no responseStatus: nothing tells an imported module's CORS passed, so it is masked there.
  test(`a module from another origin that passed CORS is ${engine === 'webkit' ? 'masked too' : 'kept'}; code a masked script evals is masked`, async () => {
    const trace = await profiledIn('/masking-more', 'moreDriver');
    const names = trace.frames.map((f) => f.name);
    expect(names).toContain('moreDriver');
    expect(names).not.toContain('evalBusy');
    const kept = engine === 'webkit' ? [] : [`${otherOrigin}/mod.mjs`];
    expect(names.includes('libModule')).toBe(kept.length > 0);
    expect(trace.resources.filter((url) => url.startsWith(otherOrigin))).toEqual(kept);
    const stacks = trace.samples.filter((s) => s.stackId !== undefined).map((s) => stackNames(trace, s.stackId).join('>'));
    expect(stacks.filter((s) => s.endsWith('moreDriver')).length).toBeGreaterThan(5); // evalBusy's time
  });

  test('in a worker, scripts imported from another origin are masked, even one that allows CORS', async () => {
    const result = await inPage('/', `new Promise((resolve) => { const w = new Worker('/masking-worker.js'); w.onmessage = (e) => resolve(e.data); w.postMessage(0); })`);
    const trace: ProfilerTrace = result.trace;
    expectValidTrace(trace);
    const names = trace.frames.map((f) => f.name);
    expect(names).toContain('workerDriver');
    expect(names).not.toContain('libPlain');
    expect(names).not.toContain('libCors');
    expect(trace.resources).toEqual([`${origin}/masking-worker.js`]);
  });

  test("a script of the page's origin redirected to another origin is masked", async () => {
    const trace = await profiledIn('/redirected', 'redirectDriver');
    expect(trace.frames.map((f) => f.name)).not.toContain('libPlain');
    expect(trace.resources).toEqual([`${origin}/redirected`]);
    const stacks = trace.samples.filter((s) => s.stackId !== undefined).map((s) => stackNames(trace, s.stackId).join('>'));
    expect(stacks.filter((s) => s.endsWith('redirectDriver')).length).toBeGreaterThan(5);
  });

  test('a page that set Error.stackTraceLimit to 0 is sampled with stacks, and its own errors keep the limit it set', async () => {
    const result = await inPage(
      '/',
      `(async () => {
        // how many frames of a deep recursion the page's own Error shows
        const framesShown = () => String((function deep(n) { return n ? deep(n - 1) : new Error('x').stack; })(150)).split('deep').length - 1;
        Error.stackTraceLimit = 0;
        const before = framesShown();
        const { trace } = await profileBusy(200);
        return { trace, limit: Error.stackTraceLimit, before, after: framesShown() };
      })()`,
    );
    expect(result.trace.samples.filter((s: { stackId?: number }) => s.stackId !== undefined).length).toBeGreaterThan(10);
    expect(result.limit).toBe(0);
    expect(result.after).toBe(result.before);
  });

  test('functions give their text as written, and run rebuilt from it in a worker', async () => {
    expect(FILES['/shipped.js']).toContain('__jsprof$l');
    const result = await inPage(
      '/shipped',
      `new Promise((resolve) => {
        const texts = shippedFunctions.map(String);
        const looksNative = String(Function.prototype.toString) === String(Function.prototype.call).replace('call', 'toString');
        const rebuilt = new Function('return (' + shipped + ')')()(10);
        const blob = new Blob(['postMessage((' + shipped + ')(10))'], { type: 'text/javascript' });
        const worker = new Worker(URL.createObjectURL(blob));
        worker.onmessage = (e) => resolve({ texts, looksNative, rebuilt, inWorker: e.data });
        worker.onerror = () => resolve({ texts, looksNative, rebuilt, inWorker: 'the worker failed' });
      })`,
    );
    expect(result).toEqual({ texts: SHIPPED_TEXTS, looksNative: true, rebuilt: 285, inWorker: 285 });
  });

  test.each(['0', '1'])('the sampling snippet, jsprof-sample=%s: one build runs, each script as its tag says', async (sample) => {
    const ran: [string, string, boolean][] = await inPage(
      `/sampled?jsprof-sample=${sample}`,
      `(async () => {
        for (let i = 0; i < 500 && !(self.ran && self.ran.length === 4); i++) await new Promise((resolve) => setTimeout(resolve, 10));
        return self.ran;
      })()`,
    );
    const build = sample === '1' ? 'instrumented' : 'plain';
    const runtime = sample === '1' ? 'object' : 'undefined';
    // Blocking before the body is parsed; deferred and module after, in that order; async whenever.
    expect(ran.filter(([file]) => !file.includes('async'))).toEqual([
      [`/${build}/blocking.js`, runtime, false],
      [`/${build}/deferred.js`, runtime, true],
      [`/${build}/module.mjs`, runtime, true],
    ]);
    expect(ran.filter(([file]) => file.includes('async'))).toEqual([[`/${build}/async.js`, runtime, expect.any(Boolean)]]);
  });

  test('without isolation, hot functions with a loop called from one-line arrows get the samples of their time', async () => {
    const result = await inPage(
      '/hot',
      `(async () => {
        exports.run(20);
        const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
        exports.run(200);
        return { trace: await p.stop(), mode: jsprof.samplerStats().mode };
      })()`,
    );
    expect(result.mode).toBe('count-down');
    const trace: ProfilerTrace = result.trace;
    const leaves = trace.samples.filter((s) => s.stackId !== undefined).map((s) => stackNames(trace, s.stackId).pop());
    if (process.env.SHOW_LEAVES) console.log(engine, JSON.stringify(leaves));
    const counts = ['spinDecl', 'spinArrow', 'method', 'stat', 'spinGen', 'spinAsync'].map((name) => leaves.filter((leaf) => leaf === name).length);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(4);
    expect(counts.reduce((a, b) => a + b)).toBeGreaterThanOrEqual(0.35 * leaves.length);
  });
});
