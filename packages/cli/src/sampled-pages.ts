/**
 * `jsprof instrument <dir> --out-dir <dir>/jsprof --sampling <rate>`: a prebuilt site made a sampled
 * build, as the bundler plugins' `sampling` option makes one. The instrumented copies are in the
 * output directory, with the page-load runtime; each page under the directory that loads scripts
 * that were instrumented gets the sampling snippet (@jsprof/runtime/snippet) before their tags.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TagPair, pageLoadRuntime, scriptTagsOf, withSamplingSnippet, withoutSamplingSnippet } from '@jsprof/runtime/snippet';
import { filesUnder, writeAtomic } from './files';

export interface SampledPagesOptions {
  rate: number;
  /** The URL path the directory is served at, for pages that name scripts by absolute path: `/` by default. */
  base: string;
  /** Where sampled page loads send their traces. */
  send?: string;
}

/**
 * Puts the snippet in the pages under `dir` that load any of `copies` (input file → its instrumented
 * copy, absolute paths), the runtime in `outDir`. Returns the pages changed, relative to `dir`.
 */
export function addSamplingSnippets(dir: string, outDir: string, copies: Map<string, string>, options: SampledPagesOptions): string[] {
  const runtime = pageLoadRuntime();
  const runtimeFile = path.join(outDir, runtime.fileName);
  const changed: string[] = [];
  for (const page of filesUnder(dir, /\.html?$/i, outDir)) {
    // A page instrumented before gets its snippet again, not a second one.
    const html = withoutSamplingSnippet(fs.readFileSync(page, 'utf8'));
    const urls = urlsFor(dir, page, options.base);
    const tags: TagPair[] = [];
    for (const tag of scriptTagsOf(html)) {
      const file = urls.fileOf(tag.url);
      const copy = file === null ? undefined : copies.get(file);
      if (copy) tags.push({ tag, instrumented: urls.urlOf(copy, tag.url.startsWith('/')) });
    }
    if (!tags.length) continue;
    if (!changed.length) writeAtomic(runtimeFile, runtime.code.toString('utf8'));
    const profile = options.send ? { send: options.send } : {};
    writeAtomic(page, withSamplingSnippet(html, tags, { rate: options.rate, runtime: urls.urlOf(runtimeFile, tags[0].tag.url.startsWith('/')), profile }));
    changed.push(path.relative(dir, page));
  }
  return changed;
}

/** A site's scripts, their maps and function tables, and its pages: what the instrumented copy does not take as it is. */
const NOT_ASSETS = /\.(c|m)?js(\.map|\.jsprof\.json)?$|\.html?$/i;

/**
 * Copies the site's other files (images, styles, fonts, data) into `outDir`, so that the instrumented
 * scripts find what they load relative to themselves (webpack's `publicPath: 'auto'`, `new
 * URL('./logo.png', import.meta.url)`) beside them, as the plain ones do. A copy whose size and time
 * are the file's is left as it is (the site instrumented again after a build copies what changed).
 */
export function copySiteAssets(dir: string, outDir: string): void {
  for (const file of filesUnder(dir, /./, outDir)) {
    if (NOT_ASSETS.test(file)) continue;
    const target = path.join(outDir, path.relative(dir, file));
    const from = fs.statSync(file);
    const to = fs.statSync(target, { throwIfNoEntry: false });
    if (to && to.size === from.size && Math.floor(to.mtimeMs) === Math.floor(from.mtimeMs)) continue;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target, fs.constants.COPYFILE_FICLONE);
    fs.utimesSync(target, from.atime, from.mtime);
  }
}

/** How a page under `dir` names files: relative to itself, or by absolute path under `base`. */
function urlsFor(dir: string, page: string, base: string) {
  const posix = (p: string) => p.split(path.sep).join('/');
  return {
    /** The file a script URL of the page names, if it is under `dir`. */
    fileOf(url: string): string | null {
      const bare = url.replace(/[?#].*$/, '');
      if (/^[a-z][a-z\d+.-]*:|^\/\//i.test(bare)) return null;
      if (bare.startsWith('/')) return bare.startsWith(base) ? path.join(dir, decodeURIComponent(bare.slice(base.length))) : null;
      return path.resolve(path.dirname(page), decodeURIComponent(bare));
    },
    urlOf(file: string, absolute: boolean): string {
      return absolute ? base + posix(path.relative(dir, file)) : posix(path.relative(path.dirname(page), file));
    },
  };
}
