/**
 * Captures the current JavaScript stack through `Error`, leaving `Error.stackTraceLimit` and
 * `Error.prepareStackTrace` exactly as the program had them.
 */
import { parseStack } from './stack-parsers';

/**
 * A frame as captured, before it is named: innermost first. `line`/`column` are 1-based; for V8
 * they are the function's start as `CallSite.getEnclosing*` gives it, otherwise the call site.
 */
export interface RawFrame {
  url: string | null;
  line: number;
  column: number;
  /** The call's own position (V8); equal to line/column where only that is known. */
  callLine: number;
  callColumn: number;
  name: string;
  native: boolean;
}

const STACK_LIMIT = 1000;

type CallSite = {
  getScriptNameOrSourceURL?(): string | null;
  getFileName(): string | null | undefined;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  getEnclosingLineNumber?(): number | null;
  getEnclosingColumnNumber?(): number | null;
  getFunctionName(): string | null;
  getMethodName?(): string | null;
  isNative(): boolean;
  isEval?(): boolean;
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
    return Array.isArray(sites) && sites.length > 0 && typeof sites[0].getLineNumber === 'function';
  } catch {
    return false;
  }
}

/** Runs `fn` with our stack options, then puts the program's own back (own property or not). */
function withStackOptions<T>(prepare: ((e: unknown, s: unknown) => unknown) | undefined, fn: () => T): T {
  const limit = Object.getOwnPropertyDescriptor(ErrorCtor, 'stackTraceLimit');
  const prep = Object.getOwnPropertyDescriptor(ErrorCtor, 'prepareStackTrace');
  try {
    ErrorCtor.stackTraceLimit = STACK_LIMIT;
    if (prepare) ErrorCtor.prepareStackTrace = prepare;
    else if (prep) ErrorCtor.prepareStackTrace = undefined;
    return fn();
  } finally {
    restore('stackTraceLimit', limit);
    restore('prepareStackTrace', prep);
  }
}

function restore(key: string, descriptor: PropertyDescriptor | undefined) {
  if (descriptor) Object.defineProperty(ErrorCtor, key, descriptor);
  else delete ErrorCtor[key];
}

/** The frames below `below` (a function of the runtime, excluded with everything above it). */
export function captureStack(below: Function): RawFrame[] {
  if (hasCallSites) {
    const sites = withStackOptions(returnCallSites, () => {
      const holder: { stack?: unknown } = {};
      ErrorCtor.captureStackTrace(holder, below);
      return holder.stack;
    }) as CallSite[];
    return Array.isArray(sites) ? sites.map(fromCallSite) : [];
  }
  const stack = withStackOptions(undefined, () => {
    const holder: { stack?: string } = {};
    if (typeof ErrorCtor.captureStackTrace === 'function') {
      ErrorCtor.captureStackTrace(holder, below);
      return holder.stack;
    }
    return new Error().stack;
  });
  if (typeof stack !== 'string') return [];
  return parseStack(stack).map((f) => ({
    url: f.url,
    line: f.line,
    column: f.column,
    callLine: f.line,
    callColumn: f.column,
    name: f.name,
    native: f.native,
  }));
}

function fromCallSite(site: CallSite): RawFrame {
  const url = (site.getScriptNameOrSourceURL?.() || site.getFileName()) ?? null;
  const callLine = site.getLineNumber() ?? 0;
  const callColumn = site.getColumnNumber() ?? 0;
  const line = site.getEnclosingLineNumber?.() ?? callLine;
  const column = site.getEnclosingColumnNumber?.() ?? callColumn;
  return {
    url: url || null,
    line,
    column,
    callLine,
    callColumn,
    name: site.getFunctionName() ?? '',
    native: site.isNative() || !url,
  };
}

/** The URL of the file that calls this (for the runtime to recognise its own frames). */
export function callerUrl(): string | null {
  const frames = captureStack(callerUrl);
  return frames[0]?.url ?? null;
}
