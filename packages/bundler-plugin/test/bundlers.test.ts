/**
 * fixtures/apps/browser-app built with vite 7 and 8, rollup, esbuild and webpack through jsprof's plugins
 * (minified where the bundler minifies, source maps on), loaded in headless Chromium with the
 * document policy that enables Chromium's own Profiler, and profiled by both at once. Once both
 * traces are symbolicated through the build's source maps, the app's functions that both saw have
 * the same names and positions in the app's sources, and jsprof keeps a stack in nearly every sample
 * of the busy task.
 */
import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { SourceMaps, symbolicate, validateTrace } from '@jsprof/trace-tools';
import { FUNCTION_TABLE_SUFFIX, functionTable, parseJs } from '@jsprof/estree-instrument';
import { CHECK_PROTOCOL, instrumentedProtocol } from '@jsprof/policy';
import type { ProfilerTrace } from '@jsprof/runtime';
import { JsprofWebpackPlugin, jsprofUnplugin } from '../src';
import { buildApp, serve } from './app';
const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');

const APP = path.resolve(__dirname, '../../../fixtures/apps/browser-app');
const BUNDLERS = ['vite', 'vite8', 'rollup', 'esbuild', 'webpack'] as const;

let root: string;
let browser: Browser;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  root = buildApp(BUNDLERS);
  // The header that lets a page construct Chromium's own Profiler; with ?isolated, cross-origin isolation too.
  ({ server, origin } = await serve(root, (url) => ({
    'document-policy': 'js-profiling',
    ...(url.searchParams.has('isolated') ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } : {}),
  })));
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  fs.rmSync(root, { recursive: true, force: true });
});

/** The bundler's page with `query` on it and on each of its scripts. */
function pageUrl(bundler: string, query: string): string {
  const html = fs.readFileSync(path.join(root, bundler, 'index.html'), 'utf8');
  const page = `page${query.replace(/\W/g, '-')}.html`;
  fs.writeFileSync(path.join(root, bundler, page), html.replace(/(src="[^"]*)"/g, `$1${query}"`));
  return `${origin}/${bundler}/${page}${query}`;
}

interface BothTraces {
  isNative: boolean;
  mode: string;
  start: number;
  end: number;
  native: ProfilerTrace;
  ours: ProfilerTrace;
}

async function profileBoth(bundler: string, isolated: boolean): Promise<BothTraces> {
  const page = await browser.newPage();
  try {
    await page.goto(pageUrl(bundler, isolated ? '?isolated' : ''));
    return await page.evaluate(`(async () => {
      jsprof.install({ preferNative: true });
      const native = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
      const ours = new jsprof.Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const start = performance.now();
      run(1000);
      const end = performance.now();
      const mode = jsprof.samplerStats().mode;
      return { isNative: Profiler !== jsprof.Profiler, mode, start, end, native: await native.stop(), ours: await ours.stop() };
    })()`);
  } finally {
    await page.close();
  }
}

/** name → "file:line:column" of the frames in the app's own sources, once symbolicated. */
function appFrames(trace: ProfilerTrace, bundler: string): Map<string, string> {
  const { trace: mapped } = symbolicate(validateTrace(trace), new SourceMaps(path.join(root, bundler)));
  const frames = new Map<string, string>();
  for (const f of mapped.frames) {
    const source = f.resourceId === undefined ? '' : mapped.resources[f.resourceId];
    const file = /[/]src[/](\w+\.js)$/.exec(source)?.[1];
    if (file && f.name) frames.set(f.name, `${file}:${f.line}:${f.column}`);
  }
  return frames;
}

/** "line:column" → name of the frames in the build's own scripts, as the traces give them (no source maps). */
function bundleFrames(trace: ProfilerTrace): Map<string, string> {
  const frames = new Map<string, string>();
  for (const f of trace.frames) {
    const url = f.resourceId === undefined ? '' : trace.resources[f.resourceId];
    if (url.startsWith(origin) && !url.endsWith('/jsprof.global.js') && !url.endsWith('.html')) frames.set(`${url.slice(origin.length)}:${f.line}:${f.column}`, f.name);
  }
  return frames;
}

function busyShare(trace: ProfilerTrace, start: number, end: number): { samples: number; withStack: number } {
  const busy = trace.samples.filter((s) => s.timestamp > start + 10 && s.timestamp < end - 10);
  return { samples: busy.length, withStack: busy.filter((s) => s.stackId !== undefined).length };
}

describe.each(BUNDLERS)('%s', (bundler) => {
  test('the build carries the checks', () => {
    const scripts = fs.readdirSync(path.join(root, bundler), { recursive: true }).map(String).filter((f) => f.endsWith('.js') && f !== 'jsprof.global.js');
    const code = scripts.map((f) => fs.readFileSync(path.join(root, bundler, f), 'utf8')).join('\n');
    // The prelude binds the hook's slow path (a script's to a name the minifier chose, a module's to the global), which entry checks reach with kind 1.
    const bound = /([\w$]+) ?= ?[\w$]+\.s\b|\(["'`](__jsprof\$s)["'`], ?[\w$]+\.s\)/.exec(code);
    const slowPath = bound?.[1] ?? bound?.[2];
    expect(slowPath).toBeDefined();
    expect(code.split(`delete ${slowPath}[1]`).length - 1).toBeGreaterThanOrEqual(1);
    // Every front end (and `jsprof instrument` on this output) sees the checks, whichever minifier wrote them, and leaves them.
    for (const script of scripts) expect([script, instrumentedProtocol(fs.readFileSync(path.join(root, bundler, script), 'utf8'))]).toEqual([script, CHECK_PROTOCOL]);
  });

  test("each script's function table describes it as written, dynamic imports' chunks and all", () => {
    const tables = fs.readdirSync(path.join(root, bundler), { recursive: true }).map(String).filter((f) => f.endsWith(FUNCTION_TABLE_SUFFIX));
    // The app's entry script and the chunk it imports on demand.
    expect(tables.length).toBe(2);
    for (const table of tables) {
      const script = path.join(root, bundler, table.slice(0, -FUNCTION_TABLE_SUFFIX.length));
      const code = fs.readFileSync(script, 'utf8');
      const fromFinalOutput = functionTable(code, parseJs(code, script), fs.readFileSync(`${script}.map`, 'utf8'));
      expect(JSON.parse(fs.readFileSync(path.join(root, bundler, table), 'utf8'))).toEqual(fromFinalOutput);
    }
  });

  // A cross-origin isolated page samples from a thread; the others (most pages) by the count-down,
  // whose checks at the exit of functions with loops read the clock (countPrimes loops with no check).
  test.each([
    ['cross-origin isolated', true, 'thread', ['run', 'countPrimes', 'renderRows', 'html']],
    ['not isolated', false, 'count-down', ['run', 'countPrimes', 'renderRows', 'html']],
  ])("%s: the page profiled by Chromium's Profiler and by jsprof at once gives the same frames", async (_, isolated, mode, seen) => {
    const both = await profileBoth(bundler, isolated as boolean);
    expect({ isNative: both.isNative, mode: both.mode }).toEqual({ isNative: true, mode });
    const native = appFrames(both.native, bundler);
    const ours = appFrames(both.ours, bundler);
    const common = [...native.keys()].filter((name) => ours.has(name));
    expect(common).toEqual(expect.arrayContaining(seen as string[]));
    for (const name of common) expect(`${name} ${ours.get(name)}`).toBe(`${name} ${native.get(name)}`);
    expect(ours.get('html')).toBe('format.js:13:7');

    // Before any source map: with the build's function tables, jsprof places the bundle's frames as
    // Chromium does (V8's start of each function, in the minified code), and names them as Chromium
    // does, but with the name a function has in the sources where the minifier renamed it (the
    // tables carry it from the build's map). Each profiler may also see a function the other's
    // samples missed.
    const nativeRaw = bundleFrames(both.native);
    const oursRaw = bundleFrames(both.ours);
    const samePlace = [...nativeRaw.keys()].filter((at) => oursRaw.has(at));
    expect(samePlace.length).toBeGreaterThanOrEqual((seen as string[]).length);
    for (const at of samePlace) {
      const name = oursRaw.get(at)!;
      expect(`${at} ${name}`).toBe(`${at} ${native.has(name) ? name : nativeRaw.get(at)}`);
    }
    expect([...oursRaw.values()]).toEqual(expect.arrayContaining(['countPrimes', 'renderRows', 'html']));

    // jsprof keeps a stack in nearly every sample of the busy task; Chromium lost 10–30% in the runs measured.
    const kept = busyShare(both.ours, both.start, both.end);
    const nativeKept = busyShare(both.native, both.start, both.end);
    expect(kept.samples).toBeGreaterThan(50);
    expect(kept.withStack / kept.samples).toBeGreaterThanOrEqual(0.9);
    if (isolated) expect(kept.withStack / kept.samples).toBeGreaterThanOrEqual(nativeKept.withStack / nativeKept.samples);
  }, 60_000);
});

describe('the plugins', () => {
  const file = path.join(APP, 'src/primes.js');
  const source = fs.readFileSync(file, 'utf8');

  // esbuild's: esbuild.test.ts
  test.each(['vite', 'rollup'] as const)('%s: a second pass changes nothing, and the map leads back to the source', (framework) => {
    const plugin: any = jsprofUnplugin.raw({ threshold: 3 }, { framework });
    const once = plugin.transform(source, file);
    expect(once.code).toContain('delete __jsprof$s[1]');
    expect(once.map.sources).toEqual([file]);
    expect(plugin.transform(once.code, file)).toBeNull();
  });

  test("which files: TypeScript after the build's transforms in vite and rollup, only JavaScript in esbuild, node_modules unless excluded, never virtual modules", () => {
    const include = (framework: 'vite' | 'esbuild', id: string, options = {}) => (jsprofUnplugin.raw(options, { framework }) as any).transformInclude(id);
    expect(include('vite', '/app/src/a.ts')).toBe(true);
    expect(include('vite', '/app/src/a.tsx?v=3')).toBe(true);
    expect(include('esbuild', '/app/src/a.ts')).toBe(false);
    expect(include('esbuild', '/app/src/a.mjs')).toBe(true);
    expect(include('vite', '/app/node_modules/lib/index.js')).toBe(true);
    expect(include('vite', '/app/node_modules/lib/index.js', { exclude: /node_modules/ })).toBe(false);
    // jsprof's own runtime, installed or (as here) linked from the workspace, never.
    expect(include('vite', '/app/node_modules/@jsprof/runtime/dist/browser/jsprof.mjs')).toBe(false);
    expect(include('vite', fs.realpathSync(require.resolve('@jsprof/runtime/browser')))).toBe(false);
    expect(include('vite', '\0vite/preload-helper.js')).toBe(false);
  });

  test('include and exclude as unplugin and rollup take them: globs (from the current directory unless absolute or **), RegExps, arrays; exclude wins', () => {
    const include = (id: string, options: object) => (jsprofUnplugin.raw(options, { framework: 'vite' }) as any).transformInclude(id);
    const src = path.join(process.cwd(), 'src');
    expect(include(`${src}/a.js`, { include: 'src/**' })).toBe(true);
    expect(include(`${process.cwd()}/lib/a.js`, { include: 'src/**' })).toBe(false);
    expect(include('/elsewhere/node_modules/lib/a.js', { exclude: '**/node_modules/**' })).toBe(false);
    expect(include('/elsewhere/lib/a.js', { exclude: ['**/node_modules/**', /\.test\.js$/] })).toBe(true);
    expect(include('/elsewhere/lib/a.test.js', { exclude: ['**/node_modules/**', /\.test\.js$/] })).toBe(false);
    expect(include(`${src}/a.js`, { include: [/\/src\//], exclude: `${src}/a.js` })).toBe(false);
    expect(include(`${src}/style.css`, { include: 'src/**' })).toBe(false); // only scripts, whatever include says
    const webpack = (file: string, options: object) => {
      const compiler = require('webpack')({ plugins: [new JsprofWebpackPlugin(options)] });
      return compiler.options.module.rules.find((rule: any) => rule.enforce === 'post').test(file);
    };
    expect(webpack(`${src}/a.js`, { include: 'src/**', exclude: /a\.js$/ })).toBe(false);
    expect(webpack(`${src}/b.ts`, { include: 'src/**' })).toBe(true);
  });

  test('a syntax error names file:line:col', () => {
    const plugin: any = jsprofUnplugin.raw({}, { framework: 'rollup' });
    expect(() => plugin.transform('let a = ;', '/app/src/bad.js')).toThrow('/app/src/bad.js:1:9: Unexpected token');
  });

  test('a file nested deeper than jsprof parses is left as it is, with a warning, and the build goes on', () => {
    const deep = `function f(x) {\n${'if (x) {'.repeat(1500)}x++;${'}'.repeat(1500)}\nreturn x;\n}\n`;
    const chain = `var s = ${Array.from({ length: 20_000 }, (_, i) => `"a${i}"`).join(' + ')};\n`;
    for (const code of [deep, chain]) {
      const warnings: string[] = [];
      const plugin: any = jsprofUnplugin.raw({ threshold: 1 }, { framework: 'rollup' });
      expect(plugin.transform.call({ warn: (message: string) => warnings.push(message) }, code, '/app/src/deep.js')).toBeUndefined();
      expect(warnings).toEqual([expect.stringMatching(/^jsprof: \/app\/src\/deep\.js:\d+:\d+: .*jsprof leaves the file as it is$/)]);
      const loaded: unknown[] = [];
      const context = { resourcePath: '/app/src/deep.js', getOptions: () => ({ threshold: 1 }), emitWarning: (e: Error) => warnings.push(e.message), callback: (...args: unknown[]) => loaded.push(args) };
      require('../src/webpack-loader').default.call(context, code, undefined);
      expect(loaded).toEqual([[null, code, undefined]]);
      expect(warnings).toHaveLength(2);
    }
  });

  test('bad options fail when the config loads', () => {
    expect(() => new JsprofWebpackPlugin({ threshold: -1 })).toThrow(/threshold/);
    expect(() => jsprofUnplugin.raw({ threshold: -1 }, { framework: 'vite' })).toThrow(/threshold/);
    expect(() => new JsprofWebpackPlugin({ include: 3 } as any)).toThrow(/"include" must be a glob string, a RegExp or an array of them/);
    expect(() => jsprofUnplugin.raw({ exclude: [null] } as any, { framework: 'rollup' })).toThrow(/"exclude"/);
    expect(() => jsprofUnplugin.raw({ test: /x/ } as any, { framework: 'rollup' })).toThrow(/unknown option "test"/);
  });
});
