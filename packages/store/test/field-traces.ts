/**
 * Field-like traces for the store's tests, made the way bench/aggregate.js makes them: a site's code
 * (functions in files, call paths through them, recursion included) served per release from its
 * own URLs with the functions on other lines; traces of 2–8 s at 10 ms with idle stretches, some
 * thinned to every other sample (as sendTrace does), `meta` with release, page and browser (some
 * without a page, some bare traces), stored as traceReceiver stores them, as `{meta, trace}`, or
 * bare, some gzipped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import type { ProfilerTrace } from '@jsprof/runtime';

export const PAGES = ['/', '/search', '/product', '/cart'];
export const BROWSERS = ['chrome', 'firefox', 'safari'];

/** A seeded generator (mulberry32), so every run makes the same traces. */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface SiteFunction {
  name: string;
  file: string;
  line: number;
}

/** The site's functions: names unique within a file, as the store's identity needs to match aggregate's. */
export const FUNCTIONS: SiteFunction[] = [
  ...['main', 'route', 'render', 'layout', 'measure', 'paint', 'walk', 'diff', 'commit', 'formatPrice', 'slowFilter'].map((name, i) => ({ name, file: 'app.js', line: 10 + 20 * i })),
  ...['parse', 'tokenize', 'compile', 'escape', 'load'].map((name, i) => ({ name, file: 'vendor.js', line: 5 + 30 * i })),
];

const fn = (name: string) => FUNCTIONS.findIndex((f) => f.name === name);

/** Call paths, outermost first; `walk` recurses. Weights: how often a sample lands on each. */
const PATHS: [string[], number][] = [
  [['main', 'route', 'render', 'layout', 'measure'], 8],
  [['main', 'route', 'render', 'layout'], 3],
  [['main', 'route', 'render', 'paint'], 6],
  [['main', 'route', 'render', 'walk', 'walk', 'walk', 'diff'], 5],
  [['main', 'route', 'render', 'walk', 'walk'], 4],
  [['main', 'route', 'render', 'walk', 'commit'], 2],
  [['main', 'route', 'load', 'parse', 'tokenize'], 6],
  [['main', 'route', 'load', 'parse'], 2],
  [['main', 'route', 'load', 'compile', 'escape'], 3],
  [['main', 'route', 'render', 'formatPrice'], 2],
  [['main', 'route', 'render', 'slowFilter'], 1],
  [['main'], 1],
];

/** The site as a release serves it: each file under the release's path, each function `shift` lines further down. */
export function releaseTrace(release: string, shift: number, stableUrls = false): Pick<ProfilerTrace, 'resources' | 'frames' | 'stacks'> & { pathStacks: number[] } {
  const files = [...new Set(FUNCTIONS.map((f) => f.file))];
  const resources = files.map((file) => (stableUrls ? `https://shop.example/static/${file}` : `https://shop.example/static/${release}/${file}`));
  const frames = FUNCTIONS.map((f) => ({ name: f.name, resourceId: files.indexOf(f.file), line: f.line + shift, column: 3 }));
  const stacks: ProfilerTrace['stacks'] = [];
  const stackIds = new Map<string, number>();
  const pathStacks = PATHS.map(([names]) => {
    let parentId: number | undefined;
    for (const name of names) {
      const key = `${parentId ?? ''}:${fn(name)}`;
      let id = stackIds.get(key);
      if (id === undefined) stackIds.set(key, (id = stacks.push(parentId === undefined ? { frameId: fn(name) } : { parentId, frameId: fn(name) }) - 1));
      parentId = id;
    }
    return parentId!;
  });
  return { resources, frames, stacks, pathStacks };
}

export interface FieldOptions {
  releases: string[];
  traces: number;
  seed?: number;
  /** Serve every release from the same URLs (functions still move to other lines). */
  stableUrls?: boolean;
  /** Extra samples of this function (on its path) per trace of this release: a planted slowdown. */
  slowdown?: { release: string; functionName: string; samples: number };
}

/** One field trace and its meta. */
function fieldTrace(options: FieldOptions, n: number, rand: () => number) {
  const releaseIndex = Math.floor(rand() * options.releases.length);
  const release = options.releases[releaseIndex];
  const site = releaseTrace(release, releaseIndex * 7, options.stableUrls);
  const totalWeight = PATHS.reduce((sum, [, w]) => sum + w, 0);
  const pickPath = () => {
    let r = rand() * totalWeight;
    for (let i = 0; i < PATHS.length; i++) if ((r -= PATHS[i][1]) < 0) return i;
    return PATHS.length - 1;
  };
  const count = 200 + Math.floor(rand() * 600);
  const stackIds: (number | undefined)[] = [];
  while (stackIds.length < count) {
    const path = pickPath();
    const busy = 1 + Math.floor(rand() * 20);
    for (let i = 0; i < busy; i++) stackIds.push(site.pathStacks[path]);
    const idle = Math.floor(rand() * 15);
    for (let i = 0; i < idle; i++) stackIds.push(undefined);
  }
  stackIds.length = count;
  const slow = options.slowdown;
  if (slow && slow.release === release) {
    const path = PATHS.findIndex(([names]) => names[names.length - 1] === slow.functionName);
    for (let i = 0; i < slow.samples; i++) stackIds.push(site.pathStacks[path]);
  }
  let samples = stackIds.map((stackId, i) => (stackId === undefined ? { timestamp: 1000 + 10 * i } : { timestamp: 1000 + 10 * i, stackId }));
  if (rand() < 0.1) samples = samples.filter((_, i) => i % 2 === 0);
  const trace: ProfilerTrace = { resources: site.resources, frames: site.frames, stacks: site.stacks, samples };
  const meta: Record<string, string> = { release, browser: BROWSERS[Math.floor(rand() * BROWSERS.length)] };
  if (rand() < 0.9) meta.page = PAGES[Math.floor(rand() * PAGES.length)];
  return { trace, meta, receivedAt: new Date(Date.now() - (n % 5) * 86_400_000).toISOString() };
}

/** Writes `options.traces` trace files under `dir` in the forms the field stores; returns their paths. */
export function writeFieldTraces(dir: string, options: FieldOptions): string[] {
  const rand = random(options.seed ?? 42);
  const files: string[] = [];
  fs.mkdirSync(dir, { recursive: true });
  for (let n = 0; n < options.traces; n++) {
    const { trace, meta, receivedAt } = fieldTrace(options, n, rand);
    const form = rand();
    const document = form < 0.05 ? trace : form < 0.3 ? { meta, trace } : { receivedAt, meta, trace };
    let data = Buffer.from(JSON.stringify(document));
    const gzip = rand() < 1 / 3;
    if (gzip) data = zlib.gzipSync(data);
    const file = path.join(dir, `${String(n).padStart(5, '0')}.json${gzip ? '.gz' : ''}`);
    fs.writeFileSync(file, data);
    files.push(file);
  }
  return files;
}
