/**
 * What a trace's frames are, release after release: each frame becomes a function (original file
 * and name, through the release's source maps when there are any) with a stable id, and each stack
 * the chain of its functions' ids. Ids are cached across traces: a field's traces share their code.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProfilerTrace } from '@jsprof/runtime';
import { SourceMaps, SymbolicateStats, TraceError, symbolicate } from '@jsprof/trace-tools';
import { Hash64, functionId, hashToString, stackId, stringToHash } from './hash';

export interface FunctionRow {
  functionId: string;
  /** The original source (relative to the source maps' directory when it is a file), or the script's URL when unmapped; '' for built-ins. */
  file: string;
  name: string;
}

export interface StackRow {
  stackId: string;
  /** '0' for a root. */
  parentId: string;
  functionId: string;
  /** The chain, outermost first, ending with `functionId`. */
  functionIds: string[];
}

/** Source maps of one release, and the directory original file paths are made relative to. */
export interface ReleaseMaps {
  maps: SourceMaps;
  dir: string;
}

/** A trace's frames and stacks as functions and stacks of the store. */
export interface IdentifiedTrace {
  /** The trace as it was symbolicated (the trace given when there are no maps). */
  trace: ProfilerTrace;
  /** The function of each of `trace`'s frames. */
  frameFunctions: FunctionRow[];
  /** The stack of each of `trace`'s stacks. */
  stacks: StackRow[];
  stats: SymbolicateStats | null;
}

/** The file that identifies a mapped source: a path relative to the maps' directory, so that release directories do not matter. */
function stableFile(source: string, maps: ReleaseMaps | null): string {
  if (!maps || !source.startsWith('file:')) return source;
  try {
    return path.relative(maps.dir, fileURLToPath(source)).split(path.sep).join('/');
  } catch {
    return source;
  }
}

/**
 * A script's URL as it identifies code across releases: without its query and fragment, and with the
 * content hashes bundlers put in file names (`index-DouNa2mD.js`, `main.3b2f9c1d8e.js`) as `[hash]`.
 * Code of a script that no source map covers (vite's module preload polyfill, webpack's runtime,
 * a script served without its map) is then one function in every release, not a new one each time
 * that a release diff shows as changed.
 */
export function stableScriptUrl(url: string): string {
  if (!/^https?:/.test(url)) return url;
  const bare = url.replace(/[?#].*$/, '');
  const slash = bare.lastIndexOf('/') + 1;
  const [first, ...rest] = bare.slice(slash).split(/(?=[.-])/);
  return bare.slice(0, slash) + first + rest.map((part) => (isContentHash(part.slice(1)) ? `${part[0]}[hash]` : part)).join('');
}

/** A file name's part that is a content hash: long, and with digits or both cases (not a word, nor a capitalized one). */
function isContentHash(part: string): boolean {
  return part.length >= 6 && /^[A-Za-z0-9_]+$/.test(part) && (/\d/.test(part) || (/[a-z]/.test(part) && /[A-Z]/.test(part) && !/^[A-Z][a-z]+$/.test(part)));
}

/** Most functions, and most stacks, whose ids are kept between traces. */
const MAX_CACHED = 500_000;

/**
 * Most frames a trace's stacks may hold, each stack counted whole (its depth): every stack row
 * carries its chain, so a trace costs this, not its size. A million takes every real trace (a
 * recursive parser's 2,000 stacks average 50 deep; profilers capture 1,000 frames at most, V8's
 * own 255) and refuses one of 10,000 nested stacks, 50 million frames from 300 KB.
 */
export const MAX_STACK_FRAMES = 1_000_000;

/** Refuses a trace whose stacks hold more than MAX_STACK_FRAMES frames in all (see there). */
function checkStackFrames(trace: ProfilerTrace): void {
  const depth = new Uint32Array(trace.stacks.length);
  let frames = 0;
  trace.stacks.forEach((stack, i) => {
    depth[i] = (stack.parentId === undefined ? 0 : depth[stack.parentId]) + 1;
    frames += depth[i];
  });
  if (frames > MAX_STACK_FRAMES) {
    throw new TraceError(`its stacks are too deep for a store: ${frames.toLocaleString('en-US')} frames counted along each stack, at most ${MAX_STACK_FRAMES.toLocaleString('en-US')}`);
  }
}

interface Known<Row> {
  row: Row;
  hash: Hash64;
}

interface KnownStack extends Known<StackRow> {
  /** The stacks that extend this one, by their innermost function's id. */
  children: Map<string, KnownStack>;
}

export class Identities {
  /** By file, then name. */
  private functions = new Map<string, Map<string, Known<FunctionRow>>>();
  /** Root stacks, by function id; each holds the stacks that extend it. */
  private stacks = new Map<string, KnownStack>();
  private cachedFunctions = 0;
  private cachedStacks = 0;

  identify(raw: ProfilerTrace, maps: ReleaseMaps | null): IdentifiedTrace {
    // Ids are recomputed the same after a clear: the caches only bound memory.
    if (this.cachedStacks > MAX_CACHED) {
      this.stacks = new Map();
      this.cachedStacks = 0;
    }
    if (this.cachedFunctions > MAX_CACHED) {
      this.functions = new Map();
      this.cachedFunctions = 0;
    }
    checkStackFrames(raw);
    const symbolicated = maps ? symbolicate(raw, maps.maps) : null;
    const trace = symbolicated ? symbolicated.trace : raw;
    const frameFunctions = trace.frames.map((frame) => {
      const url = frame.resourceId === undefined ? '' : trace.resources[frame.resourceId];
      return this.functionOf(stableFile(stableScriptUrl(url), maps), frame.name);
    });
    // Stacks list parents first, so a stack's parent is known when it is reached.
    const stacks: KnownStack[] = [];
    for (const stack of trace.stacks) {
      stacks.push(this.stackOf(stack.parentId === undefined ? null : stacks[stack.parentId], frameFunctions[stack.frameId]));
    }
    return { trace, frameFunctions: frameFunctions.map((f) => f.row), stacks: stacks.map((s) => s.row), stats: symbolicated?.stats ?? null };
  }

  private functionOf(file: string, name: string): Known<FunctionRow> {
    let byName = this.functions.get(file);
    if (!byName) this.functions.set(file, (byName = new Map()));
    let known = byName.get(name);
    if (!known) {
      const id = functionId(file, name);
      known = { row: { functionId: id, file, name }, hash: stringToHash(id) };
      byName.set(name, known);
      this.cachedFunctions++;
    }
    return known;
  }

  private stackOf(parent: KnownStack | null, fn: Known<FunctionRow>): KnownStack {
    const siblings = parent ? parent.children : this.stacks;
    let known = siblings.get(fn.row.functionId);
    if (!known) {
      const hash = stackId(parent?.hash ?? null, fn.hash);
      const row: StackRow = {
        stackId: hashToString(hash),
        parentId: parent?.row.stackId ?? '0',
        functionId: fn.row.functionId,
        functionIds: [...(parent?.row.functionIds ?? []), fn.row.functionId],
      };
      known = { row, hash, children: new Map() };
      siblings.set(fn.row.functionId, known);
      this.cachedStacks++;
    }
    return known;
  }
}
