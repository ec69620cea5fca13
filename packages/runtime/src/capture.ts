/**
 * Captures the current JavaScript stack through `Error`, leaving `Error.stackTraceLimit` and
 * `Error.prepareStackTrace` exactly as the program had them.
 */
import { ASYNC_BOUNDARY, ParsedFrame, StackLine, lineParserFor, parseLines } from './stack-parsers';
import { OwnMap, append, from, locatesFile } from './builtins';

/**
 * A frame as captured, before it is named: innermost first. `line`/`column` are 1-based; for V8
 * they are the function's start as `CallSite.getEnclosing*` gives it, otherwise the call site.
 * One object may stand for the same frame in many samples: never change one.
 */
export interface RawFrame {
  /** Null for built-ins (`native`) and for code from eval and new Function. */
  url: string | null;
  line: number;
  column: number;
  name: string;
  native: boolean;
}

const STACK_LIMIT = 1000;

type CallSite = {
  getScriptNameOrSourceURL?(): string | null;
  getFileName(): string | null | undefined;
  getEnclosingLineNumber(): number | null;
  getEnclosingColumnNumber(): number | null;
  getFunctionName(): string | null;
  isEval?(): boolean;
  isAsync?(): boolean;
};

const ErrorCtor = Error as any;
const hasCallSites = typeof ErrorCtor.captureStackTrace === 'function' && probeCallSites();

function returnCallSites(_: unknown, sites: unknown) {
  return sites;
}

function probeCallSites(): boolean {
  try {
    const sites = withStackOptions(returnCallSites, () => {
      const holder: { stack?: unknown } = {};
      ErrorCtor.captureStackTrace(holder);
      return holder.stack;
    });
    // V8 before CallSite.getEnclosing* (Chrome 87) gets its stacks read from strings, as other engines.
    return Array.isArray(sites) && sites.length > 0 && typeof sites[0].getEnclosingLineNumber === 'function';
  } catch {
    return false;
  }
}

/**
 * Runs `fn` with our stack options, then puts the program's own back exactly (own property or not,
 * data or accessor). Options are defined, not assigned, so no setter of the program runs; where
 * they cannot be changed (a frozen `Error`), `fn` runs with the program's.
 */
function withStackOptions<T>(prepare: ((e: unknown, s: unknown) => unknown) | undefined, fn: () => T, stackString = false): T {
  const limit = Object.getOwnPropertyDescriptor(ErrorCtor, 'stackTraceLimit');
  const prep = Object.getOwnPropertyDescriptor(ErrorCtor, 'prepareStackTrace');
  // JavaScriptCore takes its stack trace limit from assignments only: a page that set it to 0 left no
  // stack at all. Assigning costs (in every engine, each sample's work grew enough to cost the
  // accuracy of the count-down), so only for stack strings, where the program's plain value is
  // below JavaScriptCore's default of 100; restore() assigns it back.
  const assign = stackString && limit?.writable && limit.value < 100;
  try {
    override('stackTraceLimit', STACK_LIMIT, assign);
    if (prepare || prep) override('prepareStackTrace', prepare);
    return fn();
  } finally {
    restore('stackTraceLimit', limit, assign);
    restore('prepareStackTrace', prep);
  }
}

function override(key: string, value: unknown, assign = false) {
  try {
    Object.defineProperty(ErrorCtor, key, { value, writable: true, configurable: true, enumerable: false });
    if (assign) ErrorCtor[key] = value;
  } catch {
    try {
      ErrorCtor[key] = value; // non-configurable but writable
    } catch {
      // frozen: capture with the program's options
    }
  }
}

function restore(key: string, descriptor: PropertyDescriptor | undefined, assign = false) {
  try {
    if (descriptor) {
      Object.defineProperty(ErrorCtor, key, descriptor);
      if (assign) ErrorCtor[key] = descriptor.value;
    } else delete ErrorCtor[key];
  } catch {
    // unchanged: override() could not change it either
  }
}

/**
 * The frames below `below` (a function of the runtime, excluded with everything above it), up to
 * the first async frame (see stack-parsers.ts), less the `unstarted` innermost ones (a check at a
 * function's entry leaves out the function it is in) as long as a frame remains. May throw (a
 * program's own `prepareStackTrace` where ours cannot be installed); the caller records the sample
 * without a stack then.
 */
export function captureStack(below: Function, unstarted = 0): RawFrame[] {
  if (hasCallSites) {
    const sites = withStackOptions(returnCallSites, () => {
      const holder: { stack?: unknown } = {};
      ErrorCtor.captureStackTrace(holder, below);
      return holder.stack;
    });
    if (Array.isArray(sites)) {
      let end = 0;
      while (end < sites.length && !sites[end].isAsync?.()) end++;
      const frames: RawFrame[] = [];
      for (let i = end > unstarted ? unstarted : 0; i < end; i++) append(frames, fromCallSite(sites[i]));
      return frames;
    }
    // A string: V8 formats with its default while it is already formatting a stack (a check in the
    // program's own prepareStackTrace), or ours could not be installed (a frozen Error).
    return typeof sites === 'string' ? withoutUnstarted(framesOf(sites), unstarted) : [];
  }
  const stack = withStackOptions(undefined, () => {
    if (typeof ErrorCtor.captureStackTrace === 'function') {
      const holder: { stack?: string } = {};
      ErrorCtor.captureStackTrace(holder, below);
      return holder.stack;
    }
    return new Error().stack;
  }, true);
  if (typeof stack !== 'string') return [];
  const frames = framesOf(stack);
  let start = 0;
  if (typeof ErrorCtor.captureStackTrace !== 'function') {
    // `new Error()` has the runtime's own frames on top: drop them, down to `below`.
    while (start < frames.length && frames[start].name !== below.name) start++;
    start = start < frames.length ? start + 1 : 0;
  }
  if (frames.length - start > unstarted) start += unstarted;
  return start ? from(frames, start) : frames;
}

/**
 * The URL of the script whose code made `error` (its innermost frame with one), named as frames are;
 * given a function, of the Error it makes.
 */
export function scriptOf(error: unknown): string | null {
  try {
    const stack = withStackOptions(undefined, () => (typeof error === 'function' ? error() : error).stack, true);
    if (typeof stack === 'string') for (const frame of framesOf(stack)) if (frame.url) return frame.url;
  } catch {
    // not an Error, or its stack cannot be read
  }
  return null;
}

function withoutUnstarted(frames: RawFrame[], unstarted: number): RawFrame[] {
  return frames.length > unstarted ? from(frames, unstarted) : frames;
}

/**
 * The lines of stack strings already read, per parser, and what they hold: consecutive samples
 * share most of their lines, and a line read once is a Map lookup after that (JavaScriptCore, on
 * acorn's parser: a sample read 55 lines in about 90 µs). The frames are shared between samples,
 * as the stack store shares them anyway.
 */
const linesRead = new OwnMap<(line: string) => StackLine, Map<string, RawFrame | typeof ASYNC_BOUNDARY | null>>();
const MAX_LINES_READ = 10000;

/** The frames of a stack string, innermost first, up to the first async frame. */
export function framesOf(stack: string): RawFrame[] {
  const parseLine = lineParserFor(stack);
  let read = linesRead.get(parseLine);
  if (!read) linesRead.set(parseLine, (read = new OwnMap()));
  return parseLines(stack, (line) => {
    let frame = read.get(line);
    if (frame === undefined) {
      const parsed = parseLine(line);
      frame = parsed === ASYNC_BOUNDARY || parsed === null ? parsed : fromParsed(parsed);
      if (read.size >= MAX_LINES_READ) read.clear();
      read.set(line, frame);
    }
    return frame;
  });
}

function fromParsed(f: ParsedFrame): RawFrame {
  return { url: f.url, line: f.line, column: f.column, name: f.name, native: f.native };
}

/**
 * The frames of V8 call sites already read, by script URL and where their function starts: a
 * function seen before costs two Map lookups instead of the CallSite calls for its name, and its
 * frame object is shared between samples (acorn's parser, 42 frames deep, sampled every 10 ms: a
 * sample took about 380 µs, 250 µs with this and the stack store's lookup by identity). Only for
 * URLs that locate a file (`/…`, `file:`, `https:`, …): names such as `evalmachine.<anonymous>`
 * are shared by unrelated scripts. Forgotten when profiling starts afresh, so a script changed
 * under its URL meanwhile is read again.
 */
const sitesRead = new OwnMap<string, Map<number, RawFrame>>();
let sitesReadCount = 0;
const MAX_SITES_READ = 50000;

/** Forgets the call sites read (see sitesRead). */
export function forgetCallSites(): void {
  sitesRead.clear();
  sitesReadCount = 0;
}

/**
 * A frame from where its function starts (V8's `getEnclosing*`), without the call's own position:
 * V8 keeps no table of positions for code it compiled without one, and builds it the first time
 * one is asked for, by parsing the function again; for a script's top-level code, or a bundle's
 * outer function, that is the whole file (typescript.js, 9 MB: about 190 ms in Chromium, at the
 * first sample taken while it loads). Where a function starts is known without that table.
 */
function fromCallSite(site: CallSite): RawFrame {
  // Code from eval and new Function has no URL of its own (a sourceURL comment is the page's say-so).
  const isEval = site.isEval?.() ?? false;
  const url = (isEval ? null : site.getScriptNameOrSourceURL?.() || site.getFileName()) || null;
  const line = site.getEnclosingLineNumber() ?? 0;
  const column = site.getEnclosingColumnNumber() ?? 0;
  const key = line * 2 ** 30 + column;
  const cacheable = url !== null && locatesFile(url) && line < 2 ** 23 && column < 2 ** 30;
  const known = cacheable ? sitesRead.get(url)?.get(key) : undefined;
  if (known) return known;
  // CallSite.isNative() is true only for V8's own extras: a frame without a script is a builtin.
  const frame: RawFrame = { url, line, column, name: site.getFunctionName() ?? '', native: !url && !isEval };
  if (cacheable) {
    if (sitesReadCount >= MAX_SITES_READ) forgetCallSites();
    sitesReadCount++;
    let read = sitesRead.get(url);
    if (!read) sitesRead.set(url, (read = new OwnMap()));
    read.set(key, frame);
  }
  return frame;
}
