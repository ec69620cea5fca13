/**
 * Parsing with acorn for the front ends that have no parser of their own (`jsprof instrument`, the
 * webpack plugin): as the file's extension says, and a `.js` file (or none) as a module, then as a
 * script if that fails; where both fail, the error is the module's if the script stopped at an
 * `import` or `export` (the file is a module), else the script's. A byte order mark and a hashbang
 * line are blanked (offsets unchanged).
 */
import * as acorn from 'acorn';
import { LineIndex } from '@jsprof/policy';

/** An ESTree node as acorn and the SWC front give it: with its source offsets. */
export type Node = { type: string; start: number; end: number; [key: string]: any };

/** A syntax error at `file:line:column`, with acorn's own message as `reason`. */
export class JsSyntaxError extends SyntaxError {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`${file}:${line}:${column}: ${reason}`);
  }
}

/**
 * acorn keeps the names declared in a scope in arrays and looks each new one up in them, which is
 * quadratic in the names of one scope: 50,000 top-level functions took 3.7 s to parse as a module.
 * The same lists, with a Set for the look-ups once a list is long (acorn only asks whether a name
 * is there); most scopes hold a few names, which an array finds faster.
 */
class NameList extends Array<string> {
  private names: Set<string> | null = null;
  push(...names: string[]): number {
    if (this.names) for (const name of names) this.names.add(name);
    else if (this.length + names.length > LONG_SCOPE) this.names = new Set([...this, ...names]);
    return super.push(...names);
  }
  indexOf(name: string): number {
    if (!this.names) return super.indexOf(name);
    return this.names.has(name) ? super.indexOf(name) : -1;
  }
}

const LONG_SCOPE = 64;

const Parser: typeof acorn.Parser = acorn.Parser.extend(
  (Base: any): any =>
    class extends Base {
      enterScope(flags: number) {
        super.enterScope(flags);
        const scope = this.currentScope();
        scope.var = new NameList();
        scope.lexical = new NameList();
        scope.functions = new NameList();
      }
    },
);

/**
 * `sourceType`: parse only as that; by default as the file's extension says, or a module, then a script.
 * A file nested deeper than `maxNesting` is refused (see MAX_NESTING).
 */
export function parseJs(code: string, file = '', sourceType?: 'script' | 'module', maxNesting = MAX_NESTING): Node {
  refuseDeepNesting(code, file, maxNesting);
  let text = code;
  if (text.charCodeAt(0) === 0xfeff) text = ` ${text.slice(1)}`;
  const bang = /^\s?#!/.test(text) ? text.indexOf('#!') : -1;
  if (bang >= 0) {
    const eol = text.slice(bang).search(/[\n\r\u2028\u2029]/);
    const end = eol < 0 ? text.length : bang + eol;
    text = text.slice(0, bang) + ' '.repeat(end - bang) + text.slice(end);
  }
  const as = (sourceType: 'script' | 'module') =>
    Parser.parse(text, { ecmaVersion: 'latest', sourceType, allowReturnOutsideFunction: sourceType === 'script' }) as unknown as Node;
  try {
    if (sourceType) return as(sourceType);
    if (file.endsWith('.mjs')) return as('module');
    if (file.endsWith('.cjs')) return as('script');
    try {
      return as('module');
    } catch (moduleError) {
      try {
        return as('script');
      } catch (scriptError: any) {
        throw stopsAtModuleSyntax(text, scriptError) ? moduleError : scriptError;
      }
    }
  } catch (error: any) {
    if (!error?.loc) throw error;
    const message = String(error.message).replace(/ \(\d+:\d+\)$/, '');
    // acorn ran out of stack (a very long chain of `+`): not the program's error, which Node may run.
    const Refusal = /^Not enough stack space/.test(message) ? TooDeeplyNestedError : JsSyntaxError;
    throw new Refusal(file, error.loc.line, error.loc.column + 1, Refusal === JsSyntaxError ? message : 'the code nests too deep for jsprof to parse here; jsprof leaves the file as it is');
  }
}

/** Whether a script-goal parse failed at an `import` or `export` (a declaration, or `import.meta`). */
function stopsAtModuleSyntax(text: string, error: any): boolean {
  return typeof error?.pos === 'number' && /^(?:import|export)\b/.test(text.slice(error.pos, error.pos + 7));
}

/**
 * How deep brackets may nest in a file jsprof parses and instruments: parsers and tree walks
 * recurse once or more per level, and near the stack's end V8 may abort the whole process (it
 * did compiling a regular expression in acorn, at 2,000 nested `if`s) instead of throwing. On
 * Node 20's default stack acorn and the walk failed from about 1,000 levels; Node itself runs
 * 1,500 nested `if`s but not 2,000. Deeper files are left as they are.
 */
export const MAX_NESTING = 500;

/** A file nested deeper than MAX_NESTING, at the first bracket past the limit. */
export class TooDeeplyNestedError extends JsSyntaxError {}

export function refuseDeepNesting(code: string, file = '', limit = MAX_NESTING) {
  const at = deepestBracket(code, limit);
  if (at < 0) return;
  const { line, column } = new LineIndex(code).position(at);
  throw new TooDeeplyNestedError(file, line, column, `brackets nest more than ${limit} deep here; jsprof leaves the file as it is`);
}

/** Words after which `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await']);

/**
 * The offset of the first bracket (`(`, `[`, `{`, `${`) that opens level `limit + 1`, or -1.
 * Strings, templates, comments and regular expressions are skipped; whether `/` starts a regular
 * expression is judged from what precedes it, as a tokenizer would.
 */
function deepestBracket(code: string, limit: number): number {
  const open: number[] = []; // what each open bracket is: 0 a bracket, 1 a template's `${`
  let regexAllowed = true;
  let i = 0;
  const n = code.length;
  while (i < n) {
    const c = code.charCodeAt(i);
    if (c === 47 /* / */) {
      const next = code.charCodeAt(i + 1);
      if (next === 47) {
        while (i < n && !isLineEnd(code.charCodeAt(i))) i++;
        continue;
      }
      if (next === 42) {
        const end = code.indexOf('*/', i + 2);
        i = end < 0 ? n : end + 2;
        continue;
      }
      if (regexAllowed) {
        i = skipRegex(code, i);
        regexAllowed = false;
        continue;
      }
      i++;
      regexAllowed = true;
      continue;
    }
    if (c === 34 || c === 39) {
      i = skipString(code, i, c);
      regexAllowed = false;
      continue;
    }
    if (c === 96 /* ` */ || (c === 125 /* } */ && open[open.length - 1] === 1)) {
      // A template's text, from its start or the end of a substitution, to its end or its next substitution.
      if (c === 125) open.pop();
      i = skipTemplateText(code, i + 1);
      if (code.startsWith('${', i)) {
        open.push(1);
        if (open.length > limit) return i;
        i += 2;
        regexAllowed = true;
      } else {
        i++;
        regexAllowed = false;
      }
      continue;
    }
    if (c === 40 || c === 91 || c === 123) {
      open.push(0);
      if (open.length > limit) return i;
      i++;
      regexAllowed = true;
      continue;
    }
    if (c === 41 || c === 93 || c === 125) {
      open.pop();
      i++;
      regexAllowed = c === 125;
      continue;
    }
    if (isIdentifierChar(c)) {
      const start = i;
      while (i < n && isIdentifierChar(code.charCodeAt(i))) i++;
      regexAllowed = BEFORE_REGEX.has(code.slice(start, i));
      continue;
    }
    if (c > 32 && c !== 160 && !isLineEnd(c)) regexAllowed = true;
    i++;
  }
  return -1;
}

function isLineEnd(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}

function isIdentifierChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 36 || c === 95 || c === 92 || c > 127;
}

function skipString(code: string, i: number, quote: number): number {
  for (i++; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === 92) i++;
    else if (c === quote || c === 10 || c === 13) return i + 1;
  }
  return i;
}

/** From inside a template, to its closing backtick or the `${` of its next substitution. */
function skipTemplateText(code: string, i: number): number {
  for (; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 96 || (c === 36 && code.charCodeAt(i + 1) === 123)) return i;
  }
  return i;
}

function skipRegex(code: string, i: number): number {
  let inClass = false;
  for (i++; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 91) inClass = true;
    else if (c === 93) inClass = false;
    else if (c === 47 && !inClass) return i + 1;
    else if (isLineEnd(c)) return i;
  }
  return i;
}
