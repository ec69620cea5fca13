/**
 * Instruments one module's source as Node loads it, through the module cache (module-cache.ts), so
 * a second run of a program that loads large libraries does not instrument them again. The work is
 * done by the bundled instrumenter (instrumenter.ts), loaded on the first cache miss only: on a
 * second run it never enters the program's heap.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { instrumentedProtocol, protocolWarning } from '@jsprof/policy';
import type { FunctionRecord, PlacementOptions } from '@jsprof/policy';
import type * as Instrumenter from './instrumenter';
import type { ModuleFormat } from './instrumenter';
import { cacheBound, cacheDir, pruneCache, readEntry, writeEntry } from './module-cache';
import type { Progress } from './progress';

export type InstrumentOptions = Partial<PlacementOptions>;
export type { ModuleFormat };

export interface Instrumented {
  code: string;
  /** Where the functions and source map of this module are stored, read when a frame needs them. */
  metaFile: string | null;
  /** The same, in memory, when it could not be stored. */
  meta: ModuleMeta | null;
}

export interface ModuleMeta {
  functions: FunctionRecord[];
  /** Source map from the instrumented code back to the file as loaded (absent if nothing changed). */
  map: any | null;
  /**
   * The source as loaded where it is not the file's text: the JavaScript a loader (tsx, ts-node) made
   * of a TypeScript file, in whose coordinates `functions` are.
   */
  loaded?: string;
}

/** Whether `source` is the text of the file `filename` (not what a loader made of it). */
function isFileText(source: string, filename: string): boolean {
  try {
    return fs.statSync(filename).size === Buffer.byteLength(source) && fs.readFileSync(filename, 'utf8') === source;
  } catch {
    return true; // no such file to tell it from: frames are placed as the code ran
  }
}

/** The bundle build-instrumenter.js makes of instrumenter.ts: one file that requires no package. */
export const INSTRUMENTER_BUNDLE = path.join(__dirname, 'instrumenter.bundle.js');

let instrumenter: typeof Instrumenter | null = null;
export function loadInstrumenter(): typeof Instrumenter {
  return (instrumenter ??= require(INSTRUMENTER_BUNDLE));
}

/** Changes whenever the code that instruments changes, so stale cache entries are never used. */
const INSTRUMENTER_ID = createHash('sha256').update(fs.readFileSync(INSTRUMENTER_BUNDLE)).update(fs.readFileSync(__filename)).digest('hex');

/** Where this process caches, fixed when it starts (the program may change its directory). */
const CACHE_DIR = cacheDir();

/** Keeps the cache within its bound: once a run, after it instrumented anything. */
export function pruneModuleCache(): void {
  pruneCache(CACHE_DIR, cacheBound().bytes);
}

/** Instruments `source` of `filename`; null if it is left as it is (it does not parse, or jsprof refused it: see stderr). */
export function instrumentModule(
  source: string,
  filename: string,
  options: InstrumentOptions,
  format: ModuleFormat,
  progress?: Progress,
): Instrumented | null {
  const key = createHash('sha256')
    .update(`${INSTRUMENTER_ID}\0${JSON.stringify(options)}\0${format}\0${filename}\0`)
    .update(source)
    .digest('hex')
    .slice(0, 32);
  // A cache hit is never code of another protocol: that is left as it is, and never cached.
  const cached = readEntry(CACHE_DIR, key);
  if (cached) return { ...cached, meta: null };
  const warning = protocolWarning(filename, instrumentedProtocol(source));
  if (warning) {
    process.stderr.write(`jsprof: ${warning}\n`);
    return null;
  }
  const work = () => loadInstrumenter().instrumentSource(source, filename, format, options);
  let result: Instrumenter.InstrumentedSource | null;
  try {
    result = progress ? progress.around(work) : work();
  } catch (error) {
    // A refusal says where and why (JsSyntaxError); anything else is a bug, with its stack.
    const reason = error instanceof SyntaxError ? error.message : `could not instrument ${filename}, which runs without checks: ${(error as Error)?.stack ?? error}`;
    process.stderr.write(`jsprof: ${reason}\n`);
    return null;
  }
  if (!result) return null;
  const meta: ModuleMeta = { functions: result.functions, map: result.map, ...(isFileText(source, filename) ? {} : { loaded: source }) };
  const metaFile = writeEntry(CACHE_DIR, key, result.code, JSON.stringify(meta));
  return { code: result.code, metaFile, meta: metaFile ? null : meta };
}
