/**
 * Sampled builds: the example app built by each bundler with `sampling: { rate: 0.3, send: '/traces' }`,
 * loaded again and again in headless Chromium (no cross-origin isolation, no document policy). About
 * 30% of page loads run the instrumented build and send a trace; every such load runs only the
 * instrumented build's scripts (of the plain build, it may fetch, never run, what the page's own tags
 * name: Chromium's preload scanner reads them before the snippet hides them), every other load requests
 * exactly what the same app built without jsprof requests, and those files are byte for byte that build's.
 * The vite build, in Firefox and WebKit too, sampled and not.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SourceMaps, symbolicate, validateTrace } from '@jsprof/trace-tools';
import type { ProfilerTrace } from '@jsprof/runtime';
import { traceReceiver } from '../../cli/src/receive';
import { scriptTagsOf } from '../../runtime/src/snippet';
const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');

const BUILD = path.resolve(__dirname, '../../../fixtures/apps/browser-app/build.mjs');
const BUNDLERS = ['vite', 'rollup', 'esbuild', 'webpack', 'webpack-html'] as const;
const RATE = 0.3;
const LOADS = 40;

let root: string;
let browser: Browser;

function build(bundler: string, out: string, ...mode: string[]): void {
  const run = spawnSync(process.execPath, [BUILD, bundler, out, ...mode], { encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`${bundler} ${mode.join(' ')}: ${run.stderr}`);
}

/** Every file under `dir` (paths relative to it), but those under `skip`. */
function filesIn(dir: string, skip = ''): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile() && !(skip && f.startsWith(skip))).sort();
}

/** Serves `dir`, noting the paths asked for; POSTs to /traces go to a trace receiver storing them in `<dir>.traces/`. */
async function serve(dir: string): Promise<{ origin: string; server: http.Server; traces: string[]; requests: string[] }> {
  const traces: string[] = [];
  const requests: string[] = [];
  const receive = traceReceiver({ dir: `${dir}.traces`, onTrace: (file) => traces.push(file) });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    requests.push(url.pathname);
    if (url.pathname === '/traces') return receive(req, res);
    const file = path.join(dir, url.pathname.endsWith('/') ? `${url.pathname}index.html` : url.pathname);
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return void res.writeHead(404).end();
    const types: Record<string, string> = { '.html': 'text/html', '.json': 'application/json', '.css': 'text/css', '.svg': 'image/svg+xml' };
    const type = types[path.extname(file)] ?? 'text/javascript';
    res.writeHead(200, { 'content-type': type }).end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, traces, requests };
}

/** Loads the page at `url`, runs the app (its dynamic import included); the paths it requested, the HTML page's aside. */
async function load(page: Page, url: string): Promise<string[]> {
  const requested: string[] = [];
  const onRequest = (request: { url(): string }) => requested.push(new URL(request.url()).pathname);
  page.on('request', onRequest);
  try {
    await page.goto(url);
    const value = await page.evaluate(`(async () => {
      for (let i = 0; typeof summary !== 'function' && i < 500; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      return summary(3, 40);
    })()`);
    expect(value).toEqual({ count: 3, mean: expect.any(Number), max: expect.any(Number) });
  } finally {
    page.off('request', onRequest);
  }
  return requested.filter((p) => !p.endsWith('/') && !p.endsWith('.html') && p !== '/traces');
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !condition() && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 20));
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-sampled-'));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const sampledLoads: Record<string, number> = {};

describe.each(BUNDLERS)('the app built by %s with sampling', (bundler) => {
  let sampled: string;
  let plain: string;

  beforeAll(() => {
    sampled = path.join(root, `${bundler}-sampled`);
    plain = path.join(root, `${bundler}-plain`);
    build(bundler, sampled, '--sampling', String(RATE));
    build(bundler, plain, '--plain');
  }, 240_000);

  test('the plain build beside the instrumented one is the build without jsprof, byte for byte', () => {
    const files = filesIn(plain).filter((f) => f !== 'index.html');
    expect(files.length).toBeGreaterThan(2);
    expect(filesIn(sampled, 'jsprof').filter((f) => f !== 'index.html')).toEqual(files);
    for (const file of files) expect(fs.readFileSync(path.join(sampled, file)).equals(fs.readFileSync(path.join(plain, file)))).toBe(true);
    // The instrumented build: the same entry and a chunk, each with its function table, and the page-load runtime.
    const instrumented = filesIn(path.join(sampled, 'jsprof'));
    expect(instrumented.filter((f) => f.endsWith('.js.jsprof.json')).length).toBeGreaterThanOrEqual(2);
    expect(instrumented).toContainEqual(expect.stringMatching(/^jsprof\.page-load\.[0-9a-f]{8}\.js$/));
  });

  test(`loaded ${LOADS} times: sampled loads run only the instrumented build and send a trace naming the app's functions; the others request only the plain build's files`, async () => {
    const served = await serve(sampled);
    const plainServed = await serve(plain);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('response', (response) => response.status() >= 400 && problems.push(`${response.status()} ${response.url()}`));
    try {
      const plainRequests = await load(page, `${plainServed.origin}/`);
      expect(plainRequests.length).toBeGreaterThanOrEqual(2); // the entry and the chunk it imports on demand
      const tagged = scriptTagsOf(fs.readFileSync(path.join(sampled, 'index.html'), 'utf8')).map((t) => new URL(t.url, `${served.origin}/`).pathname);
      let profiled = 0;
      for (let i = 0; i < LOADS; i++) {
        const requested = await load(page, `${served.origin}/`);
        if (requested.some((p) => p.startsWith('/jsprof/'))) {
          profiled++;
          const scripts = requested.filter((p) => p.endsWith('.js') && !/\/jsprof\.page-load\.\w+\.js$/.test(p));
          // The instrumented entry and the chunk it imports: as many scripts as the plain build's page runs.
          expect(scripts.filter((p) => p.startsWith('/jsprof/')).length).toBe(plainRequests.filter((p) => p.endsWith('.js')).length);
          expect(scripts.filter((p) => !p.startsWith('/jsprof/') && !tagged.includes(p))).toEqual([]);
          expect(requested).toContainEqual(expect.stringMatching(/^\/jsprof\/jsprof\.page-load\.\w+\.js$/));
        } else {
          expect(requested.sort()).toEqual([...plainRequests].sort());
        }
      }
      // The last page's trace goes when it is left.
      await page.goto('about:blank');
      await until(() => served.traces.length >= profiled, 5000);
      expect(problems).toEqual([]);
      expect(served.traces.length).toBe(profiled);
      sampledLoads[bundler] = profiled;
      expect(profiled).toBeGreaterThan(0);
      expect(profiled).toBeLessThan(LOADS);

      // Each trace: valid, of the instrumented build alone; together, symbolicated by its source maps, the app's functions.
      const names = new Set<string>();
      for (const file of served.traces) {
        const { meta, trace } = JSON.parse(fs.readFileSync(file, 'utf8'));
        expect(meta.page).toBe('/');
        validateTrace(trace);
        expect(trace.resources.filter((r: string) => !r.startsWith(`${served.origin}/jsprof/`))).toEqual([]);
        const { trace: mapped } = symbolicate(trace as ProfilerTrace, new SourceMaps(sampled));
        for (const sample of mapped.samples) {
          for (let id = sample.stackId; id !== undefined; id = mapped.stacks[id].parentId) names.add(mapped.frames[mapped.stacks[id].frameId].name);
        }
      }
      expect([...names]).toEqual(expect.arrayContaining(['run', 'countPrimes']));
    } finally {
      await page.close();
      served.server.close();
      plainServed.server.close();
    }
  }, 120_000);

  test('a page load the snippet picks, left open: its trace is sent when its duration is up, with the names the function tables give', async () => {
    const served = await serve(sampled);
    const page = await browser.newPage();
    try {
      await load(page, `${served.origin}/?jsprof-sample=1`);
      await until(() => served.traces.length > 0, 5000);
      expect(served.traces.length).toBe(1);
      const { trace } = JSON.parse(fs.readFileSync(served.traces[0], 'utf8'));
      const names = new Set(trace.frames.map((f: { name: string }) => f.name));
      expect([...names]).toEqual(expect.arrayContaining(['run', 'countPrimes']));
    } finally {
      await page.close();
      served.server.close();
    }
  }, 60_000);
});

describe.each(['firefox', 'webkit'] as const)('the app built by vite with sampling, in %s', (engine) => {
  type EnginePage = { goto(url: string): Promise<void>; evaluate(expression: string): Promise<any>; close(): Promise<void> };
  const { launchBrowser }: { launchBrowser: (name: string) => Promise<{ newPage(): Promise<EnginePage>; close(): Promise<void> }> } = require('../../../fixtures/browsers');
  const run = `(async () => {
    for (let i = 0; typeof summary !== 'function' && i < 500; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    return summary(3, 40);
  })()`;

  test('a sampled load runs the instrumented build and sends a trace naming the app; an unsampled one requests nothing of it', async () => {
    const dir = path.join(root, `vite-sampled-${engine}`);
    build('vite', dir, '--sampling', String(RATE));
    const served = await serve(dir);
    const browser = await launchBrowser(engine);
    try {
      for (const sample of ['0', '1']) {
        served.requests.length = 0;
        const page = await browser.newPage();
        await page.goto(`${served.origin}/?jsprof-sample=${sample}`);
        expect(await page.evaluate(run)).toEqual({ count: 3, mean: expect.any(Number), max: expect.any(Number) });
        if (sample === '1') await until(() => served.traces.length > 0, 5000);
        await page.close();
        const scripts = served.requests.filter((p) => p.endsWith('.js'));
        if (sample === '0') {
          expect(scripts.filter((p) => p.startsWith('/jsprof/'))).toEqual([]);
          expect(scripts.length).toBe(2); // the entry and the chunk it imports on demand
        } else {
          expect(scripts.filter((p) => p.startsWith('/jsprof/')).length).toBe(3); // the runtime too
        }
      }
      expect(served.traces.length).toBe(1);
      const { trace } = JSON.parse(fs.readFileSync(served.traces[0], 'utf8'));
      expect(trace.resources.every((r: string) => r.startsWith(`${served.origin}/jsprof/`))).toBe(true);
      expect(trace.frames.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['run', 'countPrimes']));
    } finally {
      await browser.close();
      served.server.close();
    }
  }, 120_000);
});

/** The URLs the page's snippet writes (the runtime's and the instrumented build's), and those of the build's tags after it. */
function snippetUrls(html: string): { written: string[]; tagged: string[] } {
  const [, config, block] = /\}\)\((\{.*\})\);<\/script>\n([\s\S]*?)<!--jsprof:end-->/.exec(html)!;
  return { written: scriptTagsOf(JSON.parse(config).tags).map((t) => t.url), tagged: scriptTagsOf(block).map((t) => t.url) };
}

test('a vite build with a relative base and a rollup build to one file: every URL the snippet and the page name resolves from the page to a file', () => {
  // ES modules (vite, and the plugin's second pass) in a process of their own, as build.mjs is.
  const app = path.resolve(__dirname, '../../../fixtures/apps/browser-app');
  const vite = path.join(root, 'vite-relative');
  const one = path.join(root, 'rollup-file');
  const script = path.join(root, 'relative.mjs');
  fs.writeFileSync(
    script,
    `import { createRequire } from 'node:module';
    const require = createRequire(${JSON.stringify(path.join(app, 'build.mjs'))});
    const { build } = await import(require.resolve('vite'));
    const { rollup } = await import(require.resolve('rollup'));
    const { default: viteJsprof } = await import(require.resolve('@jsprof/bundler-plugin/vite'));
    const { default: rollupJsprof } = await import(require.resolve('@jsprof/bundler-plugin/rollup'));
    const sampling = { rate: 0.5 };
    await build({ root: ${JSON.stringify(app)}, base: './', logLevel: 'error', build: { outDir: ${JSON.stringify(vite)}, emptyOutDir: true }, plugins: [viteJsprof({ threshold: 3, sampling })] });
    const bundle = await rollup({ input: ${JSON.stringify(path.join(app, 'src/primes.js'))}, plugins: [rollupJsprof({ threshold: 3, sampling })] });
    await bundle.write({ file: ${JSON.stringify(path.join(one, 'lib.js'))}, format: 'iife', name: 'lib' });
    await bundle.close();`,
  );
  const built = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
  expect(built.stderr).toBe('');
  expect(built.status).toBe(0);
  for (const [dir, page] of [[vite, 'index.html'], [one, 'jsprof/snippet.html']]) {
    const { written, tagged } = snippetUrls(fs.readFileSync(path.join(dir, page), 'utf8'));
    // snippet.html's URLs are as seen from a page at the root of the output directory.
    const from = page === 'index.html' ? dir : one;
    expect(written.length).toBeGreaterThanOrEqual(2);
    expect(tagged.length).toBe(written.length - 1);
    for (const url of [...written, ...tagged]) expect({ url, exists: fs.existsSync(path.resolve(from, url)) }).toEqual({ url, exists: true });
    expect(written.slice(1).every((url) => /^(\.\/)?jsprof\//.test(url))).toBe(true);
    expect(tagged.some((url) => url.includes('jsprof/'))).toBe(false);
  }
}, 60_000);

describe.each(['/', './'])('a vite app with public files and assets, base %s, sampled', (base) => {
  test("the instrumented build keeps the app's BASE_URL (the base its routes are built on), reads public files where the plain build put them, and loads its own assets", async () => {
    const app = path.join(root, `vite-public-${base === '/' ? 'absolute' : 'relative'}`);
    const out = path.join(app, 'dist');
    fs.mkdirSync(path.join(app, 'public'), { recursive: true });
    fs.mkdirSync(path.join(app, 'src'));
    fs.writeFileSync(path.join(app, 'public/data.json'), '{"from":"public"}');
    fs.writeFileSync(path.join(app, 'public/bg.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    fs.writeFileSync(path.join(app, 'src/logo.svg'), `<svg xmlns="http://www.w3.org/2000/svg"><!--${'x'.repeat(5000)}--></svg>`);
    fs.writeFileSync(path.join(app, 'src/style.css'), 'body { background: url(/bg.svg); }');
    fs.writeFileSync(path.join(app, 'src/lazy.js'), 'export function lazy(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }');
    fs.writeFileSync(
      path.join(app, 'src/main.js'),
      `import './style.css';
      import logo from './logo.svg';
      import publicUrl from '/data.json?url';
      window.result = (async () => {
        const status = async (url) => (await fetch(url)).status;
        const { lazy } = await import('./lazy.js');
        return { base: import.meta.env.BASE_URL, logo: await status(logo), byBase: await status(import.meta.env.BASE_URL + 'data.json'), imported: await status(publicUrl), lazy: lazy(10) };
      })();`,
    );
    fs.writeFileSync(path.join(app, 'index.html'), '<!doctype html><html><body><script type="module" src="/src/main.js"></script></body></html>');
    const script = path.join(app, 'build.mjs');
    const fixtures = path.resolve(__dirname, '../../../fixtures/apps/browser-app/build.mjs');
    fs.writeFileSync(
      script,
      `import { createRequire } from 'node:module';
      const require = createRequire(${JSON.stringify(fixtures)});
      const { build } = await import(require.resolve('vite'));
      const { default: jsprof } = await import(require.resolve('@jsprof/bundler-plugin/vite'));
      await build({ root: ${JSON.stringify(app)}, base: ${JSON.stringify(base)}, logLevel: 'error', build: { outDir: ${JSON.stringify(out)}, assetsInlineLimit: 0 }, plugins: [jsprof({ threshold: 1, sampling: { rate: 0.5 } })] });`,
    );
    const built = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    // Public files once, in the plain build.
    expect(filesIn(path.join(out, 'jsprof')).filter((f) => /data\.json|bg\.svg/.test(f))).toEqual([]);

    const served = await serve(out);
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('response', (response) => response.status() >= 400 && failed.push(`${response.status()} ${response.url()}`));
    page.on('pageerror', (error) => failed.push(error.message));
    try {
      const results: Record<string, unknown> = {};
      for (const sample of ['0', '1']) {
        served.requests.length = 0;
        await page.goto(`${served.origin}/?jsprof-sample=${sample}`);
        results[sample] = await page.evaluate('window.result');
        if (sample === '1') {
          // Of the plain build, only what the page's tags name (Chromium's preload scanner fetches it; it does not run).
          const tagged = scriptTagsOf(fs.readFileSync(path.join(out, 'index.html'), 'utf8')).map((t) => new URL(t.url, `${served.origin}/`).pathname);
          expect(served.requests.filter((p) => p.endsWith('.js') && !p.startsWith('/jsprof/') && !tagged.includes(p))).toEqual([]);
          expect(served.requests).toEqual(expect.arrayContaining(['/data.json', '/bg.svg']));
        } else expect(served.requests.filter((p) => p.startsWith('/jsprof/'))).toEqual([]);
      }
      expect(failed).toEqual([]);
      expect(results['1']).toEqual(results['0']);
      expect(results['0']).toEqual({ base, logo: 200, byBase: 200, imported: 200, lazy: 45 });
    } finally {
      await page.close();
      served.server.close();
    }
  }, 120_000);
});

test('bad sampling options fail when the config loads, with what was wrong', () => {
  const { JsprofWebpackPlugin, jsprofUnplugin } = require('../src');
  for (const make of [(o: object) => new JsprofWebpackPlugin(o), (o: object) => jsprofUnplugin.rollup(o)]) {
    expect(() => make({ sampling: { rate: 30 } })).toThrow(/sampling\.rate must be a number from 0 to 1 \(got 30\)/);
    expect(() => make({ sampling: 0.3 })).toThrow(/`sampling` must be an object/);
    for (const dir of ['../up', '/abs', 'a/./b', '']) expect(() => make({ sampling: { rate: 0.1, dir } })).toThrow(/sampling\.dir must be a folder inside the output directory/);
    expect(() => make({ sampling: { rate: 0.1, duration: -5 } })).toThrow(/sampling\.duration must be a positive number/);
    expect(() => make({ sampling: { rate: 0.1, send: 42 } })).toThrow(/sampling\.send must be the URL/);
    expect(() => make({ sampling: { rate: 0.1, dir: 'profiled/v2', duration: 5000, send: '/t', meta: { release: '1' } } })).not.toThrow();
  }
});

test(`over every bundler, about ${RATE * 100}% of page loads are profiled`, () => {
  // 200 loads: 60 expected, standard deviation 6.5; four of them either side.
  const loads = BUNDLERS.length * LOADS;
  const profiled = BUNDLERS.reduce((sum, b) => sum + (sampledLoads[b] ?? NaN), 0);
  expect(profiled / loads).toBeGreaterThan(RATE - 4 * Math.sqrt((RATE * (1 - RATE)) / loads));
  expect(profiled / loads).toBeLessThan(RATE + 4 * Math.sqrt((RATE * (1 - RATE)) / loads));
});
