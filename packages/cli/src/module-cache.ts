/**
 * The on-disk cache of instrumented modules: `<key>.js` (the code) and `<key>.meta.json` (its
 * functions and source map; written last, so its presence marks a whole entry), in
 * `JSPROF_CACHE_DIR`, else `node_modules/.cache/jsprof` where the program starts, else the system
 * temp directory. A hit touches the entry's access time; `pruneCache` drops the least recently used
 * entries until the cache is within its bound (`JSPROF_CACHE_MAX_MB`, default 200 MB).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TEMP_FILE, writeAtomic } from './files';

export const DEFAULT_MAX_MB = 200;
export const MAX_MB_ENV = 'JSPROF_CACHE_MAX_MB';
export const DIR_ENV = 'JSPROF_CACHE_DIR';

/** The cache's files: entries, and temporary files a writer left behind. */
const ENTRY_FILE = /^([0-9a-f]{32})(\.js|\.meta\.json)$/;

export function cacheDir(): string {
  const fromEnv = process.env[DIR_ENV];
  if (fromEnv) return path.resolve(fromEnv);
  const local = path.join(process.cwd(), 'node_modules');
  return fs.existsSync(local) ? path.join(local, '.cache', 'jsprof') : path.join(os.tmpdir(), 'jsprof-cache');
}

export interface CacheBound {
  bytes: number;
  /** Set when `JSPROF_CACHE_MAX_MB` is not a number ≥ 0 (the default bound is used). */
  invalid?: string;
}

export function cacheBound(): CacheBound {
  const raw = process.env[MAX_MB_ENV];
  const mb = raw === undefined || raw.trim() === '' ? DEFAULT_MAX_MB : Number(raw);
  if (Number.isFinite(mb) && mb >= 0) return { bytes: Math.floor(mb * 1024 * 1024) };
  return { bytes: DEFAULT_MAX_MB * 1024 * 1024, invalid: raw };
}

export interface CachedModule {
  code: string;
  metaFile: string;
}

/** The entry `key`, or null if there is none (or it cannot be read: it is then rebuilt). */
export function readEntry(dir: string, key: string): CachedModule | null {
  const metaFile = path.join(dir, `${key}.meta.json`);
  try {
    const stat = fs.statSync(metaFile, { throwIfNoEntry: false });
    if (!stat) return null;
    const code = fs.readFileSync(path.join(dir, `${key}.js`), 'utf8');
    fs.utimesSync(metaFile, Date.now() / 1000, stat.mtimeMs / 1000);
    return { code, metaFile };
  } catch {
    return null;
  }
}

/** Stores an entry; returns its meta file, or null if it could not be stored. */
export function writeEntry(dir: string, key: string, code: string, meta: string): string | null {
  const metaFile = path.join(dir, `${key}.meta.json`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    writeAtomic(path.join(dir, `${key}.js`), code);
    writeAtomic(metaFile, meta);
    return metaFile;
  } catch {
    return null;
  }
}

export interface CacheContents {
  entries: number;
  bytes: number;
}

interface Entry {
  files: string[];
  bytes: number;
  lastUsed: number;
}

/** The cache's entries, with their files, sizes and last use; loose files (no meta, or temporary) apart. */
function scan(dir: string): { entries: Entry[]; loose: string[] } {
  const byKey = new Map<string, Entry>();
  const loose: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return { entries: [], loose };
  }
  for (const name of names) {
    const match = ENTRY_FILE.exec(name);
    if (!match) {
      if (TEMP_FILE.test(name) && ENTRY_FILE.test(name.replace(TEMP_FILE, ''))) loose.push(path.join(dir, name));
      continue;
    }
    const file = path.join(dir, name);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) continue;
    const entry = byKey.get(match[1]) ?? { files: [], bytes: 0, lastUsed: -1 };
    entry.files.push(file);
    entry.bytes += stat.size;
    if (match[2] === '.meta.json') entry.lastUsed = Math.max(stat.atimeMs, stat.mtimeMs);
    byKey.set(match[1], entry);
  }
  const entries: Entry[] = [];
  for (const entry of byKey.values()) {
    if (entry.lastUsed < 0) loose.push(...entry.files);
    else entries.push(entry);
  }
  return { entries, loose };
}

export function cacheContents(dir: string): CacheContents {
  const { entries } = scan(dir);
  return { entries: entries.length, bytes: entries.reduce((sum, e) => sum + e.bytes, 0) };
}

/**
 * Removes the least recently used entries until the cache holds at most `maxBytes`, and loose files
 * older than a minute (a writer may still be at work on newer ones).
 */
export function pruneCache(dir: string, maxBytes: number): void {
  const { entries, loose } = scan(dir);
  const minuteAgo = Date.now() - 60_000;
  for (const file of loose) {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat && stat.mtimeMs < minuteAgo) remove(file);
  }
  let bytes = entries.reduce((sum, e) => sum + e.bytes, 0);
  entries.sort((a, b) => a.lastUsed - b.lastUsed);
  for (const entry of entries) {
    if (bytes <= maxBytes) break;
    removeEntry(entry);
    bytes -= entry.bytes;
  }
}

/** Removes every file of the cache (and nothing else in its directory); returns how many entries it held. */
export function clearCache(dir: string): number {
  const { entries, loose } = scan(dir);
  entries.forEach(removeEntry);
  loose.forEach(remove);
  try {
    fs.rmdirSync(dir);
  } catch {
    // not empty (other files are not ours to remove), or already gone
  }
  return entries.length;
}

/** The meta file first: a reader that finds it finds the code too, or rebuilds the entry. */
function removeEntry(entry: Entry) {
  const isMeta = (file: string) => file.endsWith('.meta.json');
  entry.files.filter(isMeta).forEach(remove);
  entry.files.filter((file) => !isMeta(file)).forEach(remove);
}

function remove(file: string) {
  fs.rmSync(file, { force: true });
}
