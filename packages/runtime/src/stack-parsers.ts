/**
 * Parsers for `Error().stack` strings of the three engine families, for engines without V8's
 * structured call sites. Each yields the frames of the synchronous stack, innermost first; positions
 * are 1-based call sites (column 0 where the engine gave only a line).
 *
 * Async frames (V8's `at async f (…)`, SpiderMonkey's `async*f@…`) are not on the stack: they are the
 * callers waiting for the frames above, and every frame after the first of them is one too. Native
 * Chromium samples only the running stack, so the parsers stop at them.
 */
import { OwnSet, append, regexpExec, stringEndsWith, stringLastIndexOf, stringSlice, stringSplit, stringStartsWith, stringTrim } from './builtins';

export interface ParsedFrame {
  name: string;
  url: string | null;
  line: number;
  column: number;
  /** True for frames of built-in (native) functions, which carry only a name. */
  native: boolean;
}

// "    at name (url:line:col)", "    at url:line:col", "    at async name (url:line:col)",
// "    at new Name (url:line:col)", "    at Array.map (<anonymous>)", "    at eval (eval at f (url:1:2), <anonymous>:1:3)"
const V8_LINE = /^\s*at (?:(.*?) \((.*)\)|(.*))$/;
const LOCATION = /^(.*):(\d+):(\d+)$/;
const LINE_ONLY = /^(.*):(\d+)$/;

function location(where: string): { url: string; line: number; column: number } | null {
  const full = regexpExec(LOCATION, where);
  if (full) return { url: full[1], line: +full[2], column: +full[3] };
  const line = regexpExec(LINE_ONLY, where);
  return line && line[1] ? { url: line[1], line: +line[2], column: 0 } : null;
}

/** A line of a stack string where the synchronous stack has ended (the first async frame). */
export const ASYNC_BOUNDARY = 'async boundary';
/** What one line of a stack string holds: a frame, the async boundary, or neither (a message line). */
export type StackLine = ParsedFrame | typeof ASYNC_BOUNDARY | null;

export function parseV8Line(line: string): StackLine {
  const m = regexpExec(V8_LINE, line);
  if (!m) return null;
  let name = m[1] ?? '';
  let where = m[2] ?? m[3] ?? '';
  if (stringStartsWith(name, 'async ') || (m[3] !== undefined && stringStartsWith(where, 'async '))) return ASYNC_BOUNDARY;
  if (stringStartsWith(name, 'new ')) name = stringSlice(name, 4);
  // Chrome 109 marked some call sites "(async url:line:col)" in the middle of a synchronous stack.
  if (stringStartsWith(where, 'async ')) where = stringSlice(where, 6);
  if (stringStartsWith(where, 'eval at ')) {
    // The eval'd code's own position comes last: "eval at f (url:1:2), <anonymous>:3:4".
    const comma = stringLastIndexOf(where, ', ');
    where = comma >= 0 ? stringSlice(where, comma + 2) : where;
  }
  const loc = location(where);
  if (!loc || loc.url === '<anonymous>') {
    // eval'd code has no URL; "(native)", "(<anonymous>)", "(index 0)" are built-ins.
    return { name: shortName(name), url: null, line: loc ? loc.line : 0, column: loc ? loc.column : 0, native: !loc };
  }
  return { name: shortName(name), url: loc.url, line: loc.line, column: loc.column, native: false };
}

const ALIAS = / \[as [^\]]+\]$/;

/** V8 prefixes receivers' types ("Foo.bar", "Array.map"); the profiler's names do not. */
function shortName(name: string): string {
  const alias = regexpExec(ALIAS, name);
  const bare = alias ? stringSlice(name, 0, alias.index) : name;
  if (bare === '<anonymous>' || stringEndsWith(bare, '.<anonymous>') || stringEndsWith(bare, '(anonymous function)')) return '';
  const dot = stringLastIndexOf(bare, '.');
  if (dot > 0 && !stringStartsWith(bare, 'get ') && !stringStartsWith(bare, 'set ')) return stringSlice(bare, dot + 1);
  return bare;
}

// SpiderMonkey: "name@url:line:col", "@url:line:col", "name@url line 27 > eval:1:29", "async*name@url:1:2",
//   'obj["@fn"]@url:1:2' (an "@" inside a quoted key belongs to the name)
// JavaScriptCore: "name@url:line:col", "global code@url:line:col", "map@[native code]", "url:line:col"
//   (anonymous), "[native code]", and bare names ("baz", "eval code") for code without a URL.
const AT_LINE = /^((?:"[^"]*"|[^@"])*?)@(.*)$/;
/** SpiderMonkey's async boundary: the cause, then "*" ("async*", "promise callback*", "setTimeout handler*"). */
const ASYNC_CAUSE = /^[A-Za-z][\w .]*\*/;
const TOP_LEVEL = new OwnSet(['global code', 'module code', 'eval code']);

/** SpiderMonkey names anonymous functions by where they sit: "outer/<", "a/b.c<"; those are anonymous. */
function atName(name: string): string {
  if (TOP_LEVEL.has(name) || stringEndsWith(name, '<')) return '';
  const slash = stringLastIndexOf(name, '/');
  return slash >= 0 && slash < name.length - 1 ? stringSlice(name, slash + 1) : name;
}

const EVAL_AT = / line \d+ > (?:eval|Function)/;

export function parseAtLine(raw: string): StackLine {
  const line = stringTrim(raw);
  if (!line) return null;
  const m = regexpExec(AT_LINE, line);
  if (m && regexpExec(ASYNC_CAUSE, m[1])) return ASYNC_BOUNDARY;
  const name = atName(m ? m[1] : '');
  const where = m ? m[2] : line;
  if (where === '[native code]') return { name, url: null, line: 0, column: 0, native: true };
  const evalAt = regexpExec(EVAL_AT, where);
  if (evalAt) {
    const loc = location(stringSlice(where, evalAt.index + evalAt[0].length));
    return { name, url: null, line: loc ? loc.line : 0, column: loc ? loc.column : 0, native: false };
  }
  const loc = location(where);
  if (loc) return { name, url: loc.url, line: loc.line, column: loc.column, native: false };
  // JavaScriptCore prints only the name of a function without a URL (eval'd code).
  return m ? null : { name: atName(line), url: null, line: 0, column: 0, native: false };
}

const V8_STACK = /^\s*at /m;

/** The line parser for a stack string of whichever engine made it. */
export function lineParserFor(stack: string): (line: string) => StackLine {
  return regexpExec(V8_STACK, stack) ? parseV8Line : parseAtLine;
}

/** What each line of a stack string holds, innermost first, up to the first async frame. */
export function parseLines<T>(stack: string, parseLine: (line: string) => T | typeof ASYNC_BOUNDARY | null): T[] {
  const frames: T[] = [];
  const lines = stringSplit(stack, '\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const read = parseLine(line);
    if (read === ASYNC_BOUNDARY) break;
    if (read) append(frames, read);
  }
  return frames;
}

export function parseV8Stack(stack: string): ParsedFrame[] {
  return parseLines(stack, parseV8Line);
}

export function parseAtStack(stack: string): ParsedFrame[] {
  return parseLines(stack, parseAtLine);
}

/** Parses a stack string of whichever engine made it. */
export function parseStack(stack: string): ParsedFrame[] {
  return parseLines(stack, lineParserFor(stack));
}
