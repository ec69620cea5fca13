/**
 * Parsers for `Error().stack` strings of the three engine families, for engines without V8's
 * structured call sites. Each yields frames innermost first; positions are 1-based call sites.
 */

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
const V8_LINE = /^\s*at (?:(?:async |new )?(.*?) \((.*)\)|(.*))$/;
const LOCATION = /^(.*):(\d+):(\d+)$/;

export function parseV8Stack(stack: string): ParsedFrame[] {
  const frames: ParsedFrame[] = [];
  for (const line of stack.split('\n')) {
    const m = V8_LINE.exec(line);
    if (!m) continue;
    const name = m[1] ?? '';
    let where = m[2] ?? m[3] ?? '';
    if (where.startsWith('eval at ')) {
      // The eval'd code's own position comes last: "eval at f (url:1:2), <anonymous>:3:4".
      const comma = where.lastIndexOf(', ');
      where = comma >= 0 ? where.slice(comma + 2) : where;
    }
    const loc = LOCATION.exec(where);
    if (!loc || loc[1] === '<anonymous>') {
      frames.push({ name: shortName(name), url: null, line: 0, column: 0, native: !loc || where === 'native' || where === '<anonymous>' });
      continue;
    }
    frames.push({ name: shortName(name), url: loc[1], line: +loc[2], column: +loc[3], native: false });
  }
  return frames;
}

/** V8 prefixes receivers' types ("Foo.bar", "Array.map"); the profiler's names do not. */
function shortName(name: string): string {
  const alias = / \[as [^\]]+\]$/.exec(name);
  const bare = alias ? name.slice(0, alias.index) : name;
  if (bare === '<anonymous>') return '';
  const dot = bare.lastIndexOf('.');
  if (dot > 0 && !bare.startsWith('get ') && !bare.startsWith('set ')) return bare.slice(dot + 1);
  return bare;
}

// SpiderMonkey: "name@url:line:col", "@url:line:col", "name@url line 27 > eval:1:29", "async*name@url:1:2"
// JavaScriptCore: "name@url:line:col", "global code@url:line:col", "map@[native code]", "url:line:col" (anonymous)
const AT_LINE = /^(.*?)@(.*)$/;

export function parseAtStack(stack: string): ParsedFrame[] {
  const frames: ParsedFrame[] = [];
  for (const raw of stack.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const m = AT_LINE.exec(line);
    let name = m ? m[1] : '';
    const where = m ? m[2] : line;
    if (name.startsWith('async*')) name = name.slice(6);
    if (name === 'global code' || name === 'module code' || name === 'eval code') name = '';
    // SpiderMonkey marks anonymous functions' inferred names with "/<" and "*": "outer/<", "f*".
    name = name.replace(/\/<$/, '').replace(/\/<\/.*$/, '').replace(/\*$/, '');
    if (where === '[native code]') {
      frames.push({ name, url: null, line: 0, column: 0, native: true });
      continue;
    }
    if (/ line \d+ > (?:eval|Function)/.test(where)) {
      const loc = LOCATION.exec(where);
      frames.push({ name, url: null, line: loc ? +loc[2] : 0, column: loc ? +loc[3] : 0, native: false });
      continue;
    }
    const loc = LOCATION.exec(where);
    if (!loc) continue;
    frames.push({ name, url: loc[1], line: +loc[2], column: +loc[3], native: false });
  }
  return frames;
}

/** Parses a stack string of whichever engine made it. */
export function parseStack(stack: string): ParsedFrame[] {
  return /^\s*at /m.test(stack) ? parseV8Stack(stack) : parseAtStack(stack);
}
