/**
 * The same page in Chromium, Firefox and WebKit (fixtures/browsers.js): fixtures/apps/browser-app
 * built by webpack (a classic script) and by vite (a module), minified, with source maps and function
 * tables, and profiled by jsprof in each engine.
 * Firefox's and WebKit's stacks give call sites, V8's the function's head; with the build's function
 * tables every engine names the same functions at the same places in the bundle, and so in the
 * sources once symbolicated. Each keeps a stack in nearly every sample of the busy task.
 */
import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as path from 'node:path';
import { SourceMaps, symbolicate, validateTrace } from '@jsprof/trace-tools';
import type { ProfilerTrace } from '@jsprof/runtime';
import { buildApp, serve } from './app';

type EngineName = 'chromium' | 'firefox' | 'webkit';
interface Browser {
  newPage(): Promise<{ goto(url: string): Promise<void>; evaluate(expression: string): Promise<any>; close(): Promise<void> }>;
  close(): Promise<void>;
}
const { launchBrowser }: { launchBrowser: (name: EngineName) => Promise<Browser> } = require('../../../fixtures/browsers');

const ENGINES: EngineName[] = ['chromium', 'firefox', 'webkit'];

const BUNDLERS = ['webpack', 'vite'] as const;
type Bundler = (typeof BUNDLERS)[number];

let root: string;
let server: http.Server;
let origin: string;
const results = new Map<string, { trace: ProfilerTrace; start: number; end: number }>();
const resultOf = (bundler: Bundler, engine: EngineName) => results.get(`${bundler} ${engine}`)!;

beforeAll(async () => {
  root = buildApp(BUNDLERS);
  ({ server, origin } = await serve(root));
  for (const engine of ENGINES) {
    const browser = await launchBrowser(engine);
    try {
      for (const bundler of BUNDLERS) {
        const page = await browser.newPage();
        await page.goto(`${origin}/${bundler}/`);
        results.set(
          `${bundler} ${engine}`,
          await page.evaluate(`(async () => {
            for (let i = 0; typeof run !== 'function' && i < 200; i++) await new Promise((resolve) => setTimeout(resolve, 10));
            const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
            await new Promise((resolve) => setTimeout(resolve, 100));
            const start = performance.now();
            run(800);
            const end = performance.now();
            return { trace: await p.stop(), start, end };
          })()`),
        );
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }
}, 240_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  fs.rmSync(root, { recursive: true, force: true });
});

/** "script:line:column name" of the frames in the build's own scripts, as the trace gives them. */
function bundleFrames(trace: ProfilerTrace, bundler: Bundler): Set<string> {
  const frames = new Set<string>();
  for (const f of trace.frames) {
    const url = f.resourceId === undefined ? '' : trace.resources[f.resourceId];
    if (url.startsWith(`${origin}/${bundler}/`) && !url.endsWith('/jsprof.global.js')) frames.add(`${url.slice(origin.length)}:${f.line}:${f.column} ${f.name}`);
  }
  return frames;
}

/** "name file:line:column" of the app's functions once symbolicated through the build's source map. */
function sourceFrames(trace: ProfilerTrace, bundler: Bundler): Set<string> {
  const { trace: mapped } = symbolicate(validateTrace(trace), new SourceMaps(path.join(root, bundler)));
  const frames = new Set<string>();
  for (const f of mapped.frames) {
    const file = f.resourceId === undefined ? undefined : /[/]src[/](\w+\.js)$/.exec(mapped.resources[f.resourceId])?.[1];
    if (file) frames.add(`${f.name} ${file}:${f.line}:${f.column}`);
  }
  return frames;
}

describe.each(BUNDLERS)('built by %s', (bundler) => {
  test.each(ENGINES)('%s keeps a stack in nearly every sample of the busy task', (engine) => {
    const { trace, start, end } = resultOf(bundler, engine);
    validateTrace(trace);
    const busy = trace.samples.filter((s) => s.timestamp > start + 10 && s.timestamp < end - 10);
    expect(busy.length).toBeGreaterThan(30);
    expect(busy.filter((s) => s.stackId !== undefined).length / busy.length).toBeGreaterThanOrEqual(0.9);
  });

  test('the three engines name the same functions at the same places, in the bundle and in the sources', () => {
    const bundle = new Map(ENGINES.map((engine) => [engine, bundleFrames(resultOf(bundler, engine).trace, bundler)]));
    // The functions the app spends its time in, named and placed as V8 does, seen by every engine.
    for (const engine of ENGINES) {
      expect([...sourceFrames(resultOf(bundler, engine).trace, bundler)]).toEqual(expect.arrayContaining(['run index.js:5:13', 'renderRows render.js:4:27', 'html format.js:13:7']));
    }
    // In the bundle itself, before any source map: Firefox's and WebKit's frames (call sites in their
    // stacks) are Chromium's (V8's function heads), through the function table.
    const chromium = [...bundle.get('chromium')!];
    for (const engine of ['firefox', 'webkit'] as const) expect(chromium.filter((frame) => bundle.get(engine)!.has(frame)).length).toBeGreaterThanOrEqual(3);
    // Whatever two engines both saw, they name alike: a frame at a place carries the same name.
    const byPlace = new Map<string, Set<string>>();
    for (const frames of bundle.values()) {
      for (const frame of frames) {
        const [at, name = ''] = frame.split(' ');
        byPlace.set(at, (byPlace.get(at) ?? new Set()).add(name));
      }
    }
    const conflicts = [...byPlace].filter(([, names]) => names.size > 1).map(([at, names]) => `${at}: ${[...names].join(' / ')}`);
    expect(conflicts).toEqual([]);
  });
});
