/**
 * Sampled builds (the `sampling` option): only the page loads picked for profiling pay for it. The
 * build goes where it always goes, plain: byte for byte what it is without jsprof. Then the same
 * bundler builds it again, same config and plugins, with jsprof instrumenting, into `<out>/<dir>/`
 * (`jsprof` by default), beside the page-load runtime. Each page the build wrote gets the sampling
 * snippet (@jsprof/runtime/snippet) before its script and module-preload tags, and `<dir>/snippet.html`
 * has the snippet and the tags of the build's entry scripts, for pages the build does not write.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PageLoadOptions, TagPair, pageLoadRuntime, samplingBlock, scriptTag, scriptTagsOf, withSamplingSnippet } from '@jsprof/runtime/snippet';

export interface SamplingOptions extends PageLoadOptions {
  /** The fraction of page loads that run the instrumented build and are profiled, 0 to 1. */
  rate: number;
  /** Where the instrumented build goes, inside the build's output directory: `jsprof` by default. */
  dir?: string;
}

/** A script a build wrote: `key` names it the same in both builds; `file` is its path in the output directory. */
export interface BuiltScript {
  key: string;
  file: string;
  module: boolean;
}

export const instrumentedDir = (sampling: SamplingOptions): string => sampling.dir ?? 'jsprof';

/** Bad options fail when the config loads, not after the first build. */
export function checkSampling(sampling: SamplingOptions): void {
  if (typeof sampling !== 'object' || sampling === null) throw new TypeError('jsprof: `sampling` must be an object, e.g. { rate: 0.01 }');
  if (typeof sampling.rate !== 'number' || !(sampling.rate >= 0 && sampling.rate <= 1)) throw new TypeError(`jsprof: sampling.rate must be a number from 0 to 1 (got ${String(sampling.rate)})`);
  for (const key of ['sampleInterval', 'maxBufferSize', 'duration'] as const) {
    const value = sampling[key];
    if (value !== undefined && !(typeof value === 'number' && value > 0 && Number.isFinite(value))) throw new TypeError(`jsprof: sampling.${key} must be a positive number (got ${String(value)})`);
  }
  if (sampling.send !== undefined && typeof sampling.send !== 'string') throw new TypeError('jsprof: sampling.send must be the URL traces are sent to');
  if (sampling.meta !== undefined && (typeof sampling.meta !== 'object' || sampling.meta === null)) throw new TypeError('jsprof: sampling.meta must be an object');
  const dir = instrumentedDir(sampling);
  if (typeof dir !== 'string' || !/^[\w.-]+(\/[\w.-]+)*$/.test(dir) || dir.split('/').some((part) => part === '..' || part === '.')) {
    throw new TypeError(`jsprof: sampling.dir must be a folder inside the output directory, like 'jsprof' (got ${JSON.stringify(dir)})`);
  }
}

const PASS = Symbol.for('jsprof.instrumentedPass');

/** Whether the build running is a sampled build's second, instrumented one. */
export function inInstrumentedPass(): boolean {
  return (globalThis as any)[PASS] === true;
}

/** Runs the instrumented build: every jsprof plugin of the config instruments while it runs. */
export async function instrumentedPass<T>(build: () => Promise<T>): Promise<T> {
  (globalThis as any)[PASS] = true;
  try {
    return await build();
  } finally {
    delete (globalThis as any)[PASS];
  }
}

/**
 * After both builds: the page-load runtime into the instrumented build, the snippet into each page,
 * `<dir>/snippet.html`. `base` is the URL the output directory is served at, or null where the build's
 * URLs are relative to the page (the snippet's URLs then are too).
 */
export function finishSampledBuild(outDir: string, sampling: SamplingOptions, base: string | null, entries: { plain: BuiltScript[]; instrumented: BuiltScript[] }): void {
  const dir = instrumentedDir(sampling);
  const runtime = pageLoadRuntime();
  const runtimeFile = `${dir}/${runtime.fileName}`;
  fs.writeFileSync(path.join(outDir, runtimeFile), runtime.code);

  const { rate, dir: _, ...profile } = sampling;
  const urlOf = (file: string, page: string) => (base !== null ? base + file : path.posix.relative(path.posix.dirname(page), file) || '.');

  for (const page of pagesIn(outDir, dir)) {
    const copy = path.join(outDir, dir, page);
    if (!fs.existsSync(copy)) continue;
    const file = path.join(outDir, page);
    const html = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, withSamplingSnippet(html, pairedTags(html, fs.readFileSync(copy, 'utf8'), page, dir), { rate, runtime: urlOf(runtimeFile, page), profile }));
    fs.rmSync(copy);
  }

  const scripts = entries.plain.map((plain) => {
    const instrumented = entries.instrumented.find((s) => s.key === plain.key);
    if (!instrumented) throw new Error(`jsprof: the instrumented build has no script for ${plain.file}`);
    return { plain: scriptTag(urlOf(plain.file, 'index.html'), plain.module), instrumented: scriptTag(urlOf(`${dir}/${instrumented.file}`, 'index.html'), plain.module) };
  });
  if (scripts.length) fs.writeFileSync(path.join(outDir, dir, 'snippet.html'), `${samplingBlock(scripts, { rate, runtime: urlOf(runtimeFile, 'index.html'), profile })}\n`);
}

/** The HTML files of the plain build (paths relative to its directory, with `/`), not those of the instrumented one. */
function pagesIn(outDir: string, dir: string): string[] {
  const pages: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(outDir, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory() && child !== dir) walk(child);
      else if (entry.isFile() && entry.name.endsWith('.html') && child !== `${dir}/snippet.html`) pages.push(child);
    }
  };
  walk('');
  return pages;
}

/**
 * The plain page's tags of the build, each with the URL its file has in the instrumented build, as
 * the plain page names it. The instrumented build's copy of the page pairs them: tags that differ are
 * the build's (relative URLs in the copy are rebased to the plain page's place); tags that do not stay.
 */
function pairedTags(plainHtml: string, instrumentedHtml: string, page: string, dir: string): TagPair[] {
  const plain = scriptTagsOf(plainHtml);
  const instrumented = scriptTagsOf(instrumentedHtml);
  if (plain.length !== instrumented.length) throw new Error(`jsprof: ${page} and its instrumented build's copy do not load the same number of scripts (${plain.length} and ${instrumented.length})`);
  const rebase = (url: string) => (/^([a-z][a-z\d+.-]*:|\/)/i.test(url) ? url : path.posix.relative(path.posix.dirname(page), path.posix.join(dir, path.posix.dirname(page), url)));
  return plain.map((tag, i) => ({ tag, instrumented: rebase(instrumented[i].url) })).filter(({ tag, instrumented }) => instrumented !== tag.url);
}
