/**
 * Source maps fetched from a configured place at ingest, for sites that keep each release's maps on
 * an artifact server rather than next to the ingest. The place is a URL template with `{release}`
 * and `{path}` (the script URL's path), e.g. `https://maps.internal/{release}/{path}.map`. Each
 * map is fetched once per release and script and kept in a temporary directory laid out as an
 * uploaded release is (`<dir>/<hash of the release>/<path>.map`), where `SourceMaps` reads it: a
 * map's relative `sources` resolve the same way, so a function has the same id whichever way its
 * maps came (but for an arrow a minifier inlined where its name was: only an uploaded build has the
 * script that names it by its body, see @jsprof/trace-tools' symbolicate). The ingest's worker threads share the directory: a map one of them fetched, or found
 * missing (`<path>.map.none`), is not asked for again by the others.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { threadId } from 'node:worker_threads';
import { SourceMaps } from '@jsprof/trace-tools';
import { hashText } from './hash';
import type { ReleaseMaps } from './identity';

const FETCH_TIMEOUT_MS = 10_000;
/** Largest map fetched (typescript.js's is 7 MB). */
const MAX_MAP_BYTES = 64 * 1024 * 1024;
/** Most fetch failures named in the summary (all are counted). */
const MAX_NAMED_FAILURES = 10;
/** Most scripts of one release looked up: a trace may list any number of URLs. */
const MAX_SCRIPTS_PER_RELEASE = 200;
/** Longest path segment kept as a file name. */
const MAX_SEGMENT_BYTES = 200;

interface Release {
  dir: string;
  /** Script URLs already looked for. */
  tried: Set<string>;
  found: number;
  maps: ReleaseMaps | null;
}

/** Checks a template: an http(s) URL naming both {release} and {path}. */
export function checkMapsUrl(template: string): void {
  let url: URL;
  try {
    url = new URL(template.replace(/\{(release|path)\}/g, 'x'));
  } catch {
    throw new Error(`${template}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${template}: not an http(s) URL`);
  // fetch refuses credentials in a URL, and failures are printed with it.
  if (url.username || url.password) throw new Error(`${template}: has a user or password in it (fetch cannot send them that way)`);
  for (const name of ['{release}', '{path}']) if (!template.includes(name)) throw new Error(`${template}: names no ${name}`);
}

/** Whether a release name (a stranger's text) can name a directory or URL segment of its own: not '', '.' or '..'. */
export function isReleaseName(release: string): boolean {
  return release !== '' && release !== '.' && release !== '..';
}

/** The segments of a script URL's path, or null for a URL with none to look up (not http(s), or with `.`/`..` segments). */
function pathSegments(scriptUrl: string): string[] | null {
  let url: URL;
  try {
    url = new URL(scriptUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  let segments: string[];
  try {
    segments = url.pathname.split('/').filter((s) => s !== '').map((s) => decodeURIComponent(s));
  } catch {
    return null; // a malformed escape
  }
  const usable = (s: string) => s !== '.' && s !== '..' && !/[/\\\0]/.test(s) && Buffer.byteLength(s) <= MAX_SEGMENT_BYTES;
  return segments.length > 0 && segments.every(usable) ? segments : null;
}

export class FetchedMaps {
  private readonly releases = new Map<string, Release>();
  fetched = 0;
  failures = 0;
  readonly failed: string[] = [];

  /** `root`: a directory for the maps, shared by the ingest's threads and removed by the caller when ingest ends. */
  constructor(
    private readonly template: string,
    private readonly root: string,
  ) {
    checkMapsUrl(template);
  }

  /** Fetches the maps of these scripts of the release that were not looked for yet. Never throws: a map that cannot be had is counted. */
  async fetchFor(release: string, scripts: string[]): Promise<void> {
    if (!isReleaseName(release)) return;
    let entry = this.releases.get(release);
    if (!entry) this.releases.set(release, (entry = { dir: path.join(this.root, hashText(release)), tried: new Set(), found: 0, maps: null }));
    let added = false;
    for (const script of scripts) {
      if (entry.tried.has(script) || entry.tried.size >= MAX_SCRIPTS_PER_RELEASE) continue;
      entry.tried.add(script);
      const segments = pathSegments(script);
      if (!segments) continue;
      const file = path.join(entry.dir, ...segments.slice(0, -1), `${segments[segments.length - 1]}.map`);
      // The release and the path are a stranger's text: each goes in encoded, the release as one segment.
      const url = this.template.replace(/\{release\}/g, encodeURIComponent(release)).replace(/\{path\}/g, segments.map(encodeURIComponent).join('/'));
      const kept = await this.fetchOnce(url, file);
      if (kept === 'none') continue;
      if (kept === 'fetched') this.fetched++;
      entry.found++;
      added = true;
    }
    // Read again from the directory when it gained a map: SourceMaps lists its files once.
    if (added) entry.maps = { maps: new SourceMaps(entry.dir), dir: entry.dir };
  }

  /** The release's maps fetched so far; null when none was found. */
  mapsOf(release: string): ReleaseMaps | null {
    return this.releases.get(release)?.maps ?? null;
  }

  /** The releases looked up, with and without a map found. */
  releasesFound(): { withMaps: string[]; withoutMaps: string[] } {
    const all = [...this.releases];
    return { withMaps: all.filter(([, e]) => e.found > 0).map(([r]) => r), withoutMaps: all.filter(([, e]) => e.found === 0).map(([r]) => r) };
  }

  /**
   * The map at `url` kept in `file`, fetched by this thread or another of the ingest (whichever
   * claims `<file>.lock` first fetches; the others wait for its outcome), or 'none': not there, or
   * not to be had (counted once, by the thread that tried).
   */
  private async fetchOnce(url: string, file: string): Promise<'fetched' | 'shared' | 'none'> {
    const outcome = () => (fs.existsSync(file) ? 'shared' : fs.existsSync(`${file}.none`) ? 'none' : null);
    const known = outcome();
    if (known) return known;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.closeSync(fs.openSync(`${file}.lock`, 'wx'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        this.cannotKeep(url, error);
        return 'none';
      }
      // Another thread is fetching it: its outcome comes within its fetch's time limit.
      const deadline = Date.now() + FETCH_TIMEOUT_MS + 5_000;
      while (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const shared = outcome();
        if (shared) return shared;
      }
      return 'none';
    }
    const text = await this.fetchText(url);
    try {
      if (text === null) {
        fs.writeFileSync(`${file}.none`, '');
        return 'none';
      }
      // Whole or not at all, for the other threads that may read it at any moment.
      const partial = `${file}.${process.pid}-${threadId}.tmp`;
      fs.writeFileSync(partial, text);
      fs.renameSync(partial, file);
      return 'fetched';
    } catch (error) {
      this.cannotKeep(url, error);
      // So that the others stop waiting; if even this cannot be written, they wait out the time limit.
      fs.writeFile(`${file}.none`, '', () => {});
      return 'none';
    }
  }

  private cannotKeep(url: string, error: unknown): void {
    this.fail(url, `cannot be kept (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }

  private fail(url: string, reason: string): null {
    this.failures++;
    if (this.failed.length < MAX_NAMED_FAILURES) this.failed.push(`${url}: ${reason}`);
    return null;
  }

  /** The body of a map at `url`; null when there is none (404) or it cannot be had (counted, and named in `failed`). */
  private async fetchText(url: string): Promise<string | null> {
    const fail = (reason: string) => this.fail(url, reason);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (response.status === 404 || response.status === 410) {
        await response.body?.cancel();
        return null;
      }
      if (!response.ok) {
        await response.body?.cancel();
        return fail(`HTTP ${response.status}`);
      }
      if (Number(response.headers.get('content-length') ?? 0) > MAX_MAP_BYTES) {
        await response.body?.cancel();
        return fail(`larger than ${MAX_MAP_BYTES / 1024 / 1024} MB`);
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        if (size > MAX_MAP_BYTES) return fail(`larger than ${MAX_MAP_BYTES / 1024 / 1024} MB`);
        chunks.push(chunk);
      }
      return Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      return fail((error as Error).name === 'TimeoutError' ? `no answer within ${FETCH_TIMEOUT_MS / 1000} s` : (error as Error).message);
    }
  }
}
