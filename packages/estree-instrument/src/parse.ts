/**
 * Parsing with acorn for the front ends that have no parser of their own (`jsprof instrument`, the
 * webpack plugin): as the file's extension says, and a `.js` file (or none) as a module, then as a
 * script if that fails. A byte order mark and a hashbang line are blanked (offsets unchanged).
 */
import * as acorn from 'acorn';
import type { Node } from './index';

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

export function parseJs(code: string, file = ''): Node {
  let text = code;
  if (text.charCodeAt(0) === 0xfeff) text = ` ${text.slice(1)}`;
  const bang = /^\s?#!/.test(text) ? text.indexOf('#!') : -1;
  if (bang >= 0) {
    const eol = text.slice(bang).search(/[\n\r\u2028\u2029]/);
    const end = eol < 0 ? text.length : bang + eol;
    text = text.slice(0, bang) + ' '.repeat(end - bang) + text.slice(end);
  }
  const as = (sourceType: 'script' | 'module') =>
    acorn.parse(text, { ecmaVersion: 'latest', sourceType, allowReturnOutsideFunction: sourceType === 'script' }) as unknown as Node;
  try {
    if (file.endsWith('.mjs')) return as('module');
    if (file.endsWith('.cjs')) return as('script');
    try {
      return as('module');
    } catch {
      return as('script');
    }
  } catch (error: any) {
    if (!error?.loc) throw error;
    throw new JsSyntaxError(file, error.loc.line, error.loc.column + 1, String(error.message).replace(/ \(\d+:\d+\)$/, ''));
  }
}
