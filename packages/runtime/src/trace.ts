/** The trace format of the JS Self-Profiling API, and how captured stacks become one. */
import type { RawFrame } from './capture';
import { OwnMap, OwnWeakMap, append } from './builtins';

export interface ProfilerFrame {
  name: string;
  resourceId?: number;
  line?: number;
  column?: number;
}
export interface ProfilerStack {
  parentId?: number;
  frameId: number;
}
export interface ProfilerSample {
  timestamp: number;
  stackId?: number;
}
export interface ProfilerTrace {
  resources: string[];
  frames: ProfilerFrame[];
  stacks: ProfilerStack[];
  samples: ProfilerSample[];
}

/** A frame named and placed as the trace shows it; `url` absent for built-ins. */
export interface NamedFrame {
  name: string;
  url?: string;
  line?: number;
  column?: number;
  /** Whether the function carries checks, where the resolver knows (see buildTrace). */
  instrumented?: boolean;
}

/** Names a captured frame, or returns null to leave it out (its time goes to the caller). */
export type FrameResolver = (frame: RawFrame) => NamedFrame | null;

/**
 * Built-ins keep only their name; code without a URL that is not built in (eval, new Function) is
 * left out, its time charged to its caller, as native Chromium does.
 */
export const defaultResolver: FrameResolver = (frame) => {
  if (frame.native) return { name: frame.name };
  return frame.url ? { name: frame.name, url: frame.url, line: frame.line, column: frame.column } : null;
};

/**
 * Captured stacks, shared by all profilers running at once: frames interned, stacks as a trie
 * (innermost frame last), so a sample costs one id.
 */
export class StackStore {
  /** Frame ids by the frame object (captures share one object between samples), then by content. */
  #frameIdsByObject = new OwnWeakMap<RawFrame, number>();
  #frameIds = new OwnMap<string, number>();
  frames: RawFrame[] = [];
  /** Stack ids by parent and frame id (see stackKey). */
  #stackIds = new OwnMap<number | string, number>();
  /** stack id → [parent stack id or -1, frame id] */
  stacks: number[] = [];
  /**
   * The last stack added, outermost first, and the stack id at each depth: consecutive samples
   * mostly share their outer frames, which are then matched field by field instead of by key.
   */
  #lastFrames: RawFrame[] = [];
  #lastIds: number[] = [];

  /** Starts afresh; arrays handed out before (a stopped profiler's `StoredStacks`) stay as they were. */
  clear() {
    this.#frameIdsByObject = new OwnWeakMap();
    this.#frameIds.clear();
    this.frames = [];
    this.#stackIds.clear();
    this.stacks = [];
    this.#lastFrames = [];
    this.#lastIds = [];
  }

  /** Interns frames given innermost first; returns the stack id, or -1 for an empty stack. */
  add(frames: RawFrame[]): number {
    const outermostFirst: RawFrame[] = [];
    for (let i = frames.length - 1; i >= 0; i--) append(outermostFirst, frames[i]);
    const ids: number[] = [];
    let parent = -1;
    let depth = 0;
    while (depth < outermostFirst.length && depth < this.#lastFrames.length && sameFrame(outermostFirst[depth], this.#lastFrames[depth])) {
      parent = this.#lastIds[depth];
      append(ids, parent);
      depth++;
    }
    for (; depth < outermostFirst.length; depth++) {
      parent = this.#stackId(parent, this.#frameId(outermostFirst[depth]));
      append(ids, parent);
    }
    this.#lastFrames = outermostFirst;
    this.#lastIds = ids;
    return parent;
  }

  #frameId(f: RawFrame): number {
    let id = this.#frameIdsByObject.get(f);
    if (id !== undefined) return id;
    const key = `${f.url}\n${f.line}\n${f.column}\n${f.name}\n${f.native ? 1 : 0}`;
    id = this.#frameIds.get(key);
    if (id === undefined) {
      id = this.frames.length;
      append(this.frames, f);
      this.#frameIds.set(key, id);
    }
    this.#frameIdsByObject.set(f, id);
    return id;
  }

  #stackId(parent: number, frameId: number): number {
    const key = stackKey(parent, frameId);
    let id = this.#stackIds.get(key);
    if (id === undefined) {
      id = this.stacks.length / 2;
      append(this.stacks, parent);
      append(this.stacks, frameId);
      this.#stackIds.set(key, id);
    }
    return id;
  }
}

/** A stack's parent and frame as one number where that is exact (a string beyond). */
function stackKey(parent: number, frameId: number): number | string {
  return parent < 2 ** 26 && frameId < 2 ** 26 ? parent * 2 ** 26 + frameId : `${parent},${frameId}`;
}

function sameFrame(a: RawFrame, b: RawFrame): boolean {
  return (
    a === b ||
    (a.line === b.line &&
      a.column === b.column &&
      a.name === b.name &&
      a.url === b.url &&
      a.native === b.native)
  );
}

/** A sample as a profiler holds it: a timestamp and a StackStore id (-1: no JavaScript ran). */
export interface HeldSample {
  timestamp: number;
  stack: number;
  /** Taken at a function's entry check: the stack is the caller's (see buildTrace). */
  atEntry?: boolean;
}

/** What a trace is built from: a StackStore's frames and stacks as they were when its profiler stopped. */
export type StoredStacks = Pick<StackStore, 'frames' | 'stacks'>;

/**
 * Builds a spec trace: resources, frames and stacks deduplicated, stacks parent-first. A sample
 * taken at a function's entry check has the caller's stack, and stands for the code that ran since
 * the previous check; where the caller is a function known to carry no checks (a one-line wrapper,
 * called over and over), that code is mostly not the caller's: such innermost frames are left out
 * down to a function known to carry checks, which takes the sample, as it takes the time of every
 * function without checks in other samples. Built-ins are known to carry none (a one-line callback
 * of `replace` hands the sample through `replace` to the function that called it). Where the
 * resolver does not know, nothing changes.
 * (Measured on five programs against V8, bench/self-time.js: charging the function entered instead
 * was worse than leaving the wrapper innermost. The frames left out lose those samples from their
 * total too: a wrapper's total is under-counted.)
 */
export function buildTrace(samples: HeldSample[], store: StoredStacks, resolve: FrameResolver): ProfilerTrace {
  const trace: ProfilerTrace = { resources: [], frames: [], stacks: [], samples: [] };
  const resourceIds = new OwnMap<string, number>();
  const frameIds = new OwnMap<string, number>();
  const stackIds = new OwnMap<string, number>();
  const namedFrame = new OwnMap<number, number>(); // raw frame id → trace frame id or -1
  const checked = new OwnMap<number, boolean>(); // raw frame id → whether its function carries checks, where known
  const outStack = new OwnMap<number, number | undefined>(); // raw stack id (−2 − id at an entry) → trace stack id

  const frameId = (raw: number): number => {
    let id = namedFrame.get(raw);
    if (id !== undefined) return id;
    let named: NamedFrame | null = null;
    try {
      named = resolve(store.frames[raw]);
    } catch {
      named = defaultResolver(store.frames[raw]);
    }
    if (!named) {
      id = -1;
    } else {
      // Built-ins never carry checks: a callback they call (Array.prototype.map's, String.prototype.replace's) is entered from them.
      if (named.instrumented !== undefined) checked.set(raw, named.instrumented);
      else if (store.frames[raw].native) checked.set(raw, false);
      const frame: ProfilerFrame = { name: named.name };
      if (named.url !== undefined) {
        let resourceId = resourceIds.get(named.url);
        if (resourceId === undefined) {
          resourceId = trace.resources.length;
          append(trace.resources, named.url);
          resourceIds.set(named.url, resourceId);
        }
        frame.resourceId = resourceId;
        frame.line = named.line;
        frame.column = named.column;
      }
      const key = `${frame.name}\n${frame.resourceId}\n${frame.line}\n${frame.column}`;
      id = frameIds.get(key);
      if (id === undefined) {
        id = trace.frames.length;
        append(trace.frames, frame);
        frameIds.set(key, id);
      }
    }
    namedFrame.set(raw, id);
    return id;
  };

  const stackId = (raw: number, atEntry: boolean): number | undefined => {
    if (raw < 0) return undefined;
    const cacheKey = atEntry ? -2 - raw : raw;
    if (outStack.has(cacheKey)) return outStack.get(cacheKey);
    const chain: number[] = [];
    for (let s = raw; s >= 0; s = store.stacks[2 * s]) append(chain, store.stacks[2 * s + 1]);
    let innermost = 0;
    if (atEntry) {
      while (innermost < chain.length && (frameId(chain[innermost]) < 0 || checked.get(chain[innermost]) === false)) innermost++;
      if (innermost === chain.length || checked.get(chain[innermost]) !== true) innermost = 0; // no instrumented caller below them: as captured
    }
    let parent: number | undefined;
    for (let i = chain.length - 1; i >= innermost; i--) {
      const f = frameId(chain[i]);
      if (f < 0) continue;
      const key = `${parent},${f}`;
      let id = stackIds.get(key);
      if (id === undefined) {
        id = trace.stacks.length;
        append(trace.stacks, parent === undefined ? { frameId: f } : { parentId: parent, frameId: f });
        stackIds.set(key, id);
      }
      parent = id;
    }
    outStack.set(cacheKey, parent);
    return parent;
  };

  for (const s of samples) {
    const id = stackId(s.stack, s.atEntry === true);
    append(trace.samples, id === undefined ? { timestamp: s.timestamp } : { timestamp: s.timestamp, stackId: id });
  }
  return trace;
}
