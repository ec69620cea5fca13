/**
 * How a function is named and where it starts, as native Chromium's profiler (V8) reports them:
 * the ECMAScript `name` a function gets (including names inferred by `const f = () => {}`), and
 * the start of its parameter list — the `(`, or the lone parameter of `a => …`, or the `class`
 * keyword for an implicit constructor.
 *
 * Works on Babel's AST and on ESTree; positions come from the source text, so no parser's
 * token list is needed.
 */

type Node = { type: string; start?: number | null; end?: number | null; [key: string]: any };

/** One function of a file, in that file's own coordinates (offsets are UTF-16 indices). */
export interface FunctionRecord {
  /** Offset where the function's node starts and ends. */
  start: number;
  end: number;
  /** Offset where its body starts: everything before is its head. */
  bodyStart: number;
  name: string;
  /** 1-based line and column of the start V8 records. */
  line: number;
  column: number;
  /** Whether the function carries checks. */
  instrumented: boolean;
}

export function skipTrivia(src: string, pos: number): number {
  while (pos < src.length) {
    const ch = src.charCodeAt(pos);
    if (ch === 0x2f /* / */ && src.charCodeAt(pos + 1) === 0x2f) {
      while (pos < src.length && !isLineBreak(src.charCodeAt(pos))) pos++;
    } else if (ch === 0x2f && src.charCodeAt(pos + 1) === 0x2a /* * */) {
      const close = src.indexOf('*/', pos + 2);
      pos = close < 0 ? src.length : close + 2;
    } else if (isSpace(ch)) {
      pos++;
    } else {
      break;
    }
  }
  return pos;
}

function isLineBreak(ch: number): boolean {
  return ch === 10 || ch === 13 || ch === 0x2028 || ch === 0x2029;
}

function isSpace(ch: number): boolean {
  return ch === 32 || ch === 9 || ch === 11 || ch === 12 || ch === 0xa0 || ch === 0xfeff || isLineBreak(ch) || (ch > 0x1680 && /\s/.test(String.fromCharCode(ch)));
}

/** The first `(` at or after `pos`, stepping over keywords, names, `*`, `]` and comments. */
function nextParen(src: string, pos: number, limit: number): number {
  while (pos < limit) {
    pos = skipTrivia(src, pos);
    if (src[pos] === '(') return pos;
    pos++;
  }
  return -1;
}

/** Offset of the start V8 records for a function node, or -1 when it cannot be found. */
export function v8FunctionStart(src: string, fn: Node): number {
  const start = fn.start ?? 0;
  const params: Node[] = fn.params ?? fn.value?.params ?? [];
  const bodyStart = (fn.body ?? fn.value?.body)?.start ?? fn.end ?? src.length;
  if (fn.type === 'ArrowFunctionExpression') {
    let pos = start;
    if (fn.async && src.startsWith('async', pos)) pos = skipTrivia(src, pos + 5);
    pos = skipTrivia(src, pos);
    if (src[pos] === '(') return pos;
    return params.length ? (params[0].start ?? pos) : pos;
  }
  if (fn.type === 'ClassDeclaration' || fn.type === 'ClassExpression') {
    const at = src.indexOf('class', start);
    return at < 0 ? start : at;
  }
  let from = start;
  if (fn.key) from = fn.key.end ?? start;
  else if (fn.id) from = fn.id.end ?? start;
  return nextParen(src, from, bodyStart);
}

function keyName(key: Node | null | undefined, computed: boolean): string {
  if (!key || computed) return '';
  switch (key.type) {
    case 'Identifier':
      return key.name;
    case 'PrivateName':
      return '#' + key.id.name;
    case 'PrivateIdentifier':
      return '#' + key.name;
    case 'StringLiteral':
      return key.value;
    case 'NumericLiteral':
      return String(key.value);
    case 'BigIntLiteral':
      return String(key.value);
    case 'Literal':
      return key.bigint !== undefined ? String(key.bigint) : String(key.value);
    default:
      return '';
  }
}

/** The name a class gets: its own, or the one its position gives it. */
function className(cls: Node, ancestors: Node[]): string {
  if (cls.id) return cls.id.name;
  return contextualName(cls, ancestors);
}

/** The name NamedEvaluation gives an anonymous function or class from where it stands. */
function contextualName(node: Node, ancestors: Node[]): string {
  const parent = ancestors[0];
  if (!parent) return '';
  switch (parent.type) {
    case 'VariableDeclarator':
      return parent.init === node && parent.id.type === 'Identifier' ? parent.id.name : '';
    case 'AssignmentExpression':
      return parent.right === node && parent.left.type === 'Identifier' && ['=', '||=', '&&=', '??='].includes(parent.operator)
        ? parent.left.name
        : '';
    case 'AssignmentPattern':
      return parent.right === node && parent.left.type === 'Identifier' ? parent.left.name : '';
    case 'ObjectProperty':
    case 'Property':
    case 'ClassProperty':
    case 'ClassPrivateProperty':
    case 'PropertyDefinition':
    case 'ClassAccessorProperty':
      return parent.value === node && !parent.shorthand ? keyName(parent.key, !!parent.computed) : '';
    case 'ExportDefaultDeclaration':
      return 'default';
    case 'ParenthesizedExpression':
      return contextualName(parent, ancestors.slice(1));
    default:
      return '';
  }
}

/**
 * The name native Chromium gives a function. `ancestors` lists the function's parents, nearest
 * first (for ESTree methods, the function's parent is the MethodDefinition/Property).
 */
export function functionName(fn: Node, ancestors: Node[]): string {
  const parent = ancestors[0];
  // ESTree: a method is a FunctionExpression whose parent is MethodDefinition or Property(method).
  const method =
    fn.type === 'ObjectMethod' || fn.type === 'ClassMethod' || fn.type === 'ClassPrivateMethod'
      ? fn
      : parent && (parent.type === 'MethodDefinition' || (parent.type === 'Property' && (parent.method || parent.kind !== 'init'))) && parent.value === fn
        ? parent
        : null;
  if (method) {
    if (method.kind === 'constructor') {
      const body = method === fn ? ancestors[0] : ancestors[1];
      const cls = method === fn ? ancestors[1] : ancestors[2];
      return cls && body ? className(cls, method === fn ? ancestors.slice(2) : ancestors.slice(3)) : '';
    }
    const name = keyName(method.key, !!method.computed);
    if (method.computed) return '';
    if (method.kind === 'get' || method.kind === 'set') return `${method.kind} ${name}`;
    return name;
  }
  if (fn.type === 'ClassDeclaration' || fn.type === 'ClassExpression') return className(fn, ancestors);
  if (fn.id) return fn.id.name;
  return contextualName(fn, ancestors);
}

/** 1-based line and column of an offset, with a table built once per file. */
export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(src: string) {
    for (let i = 0; i < src.length; i++) {
      const ch = src.charCodeAt(i);
      if (ch === 10 || ch === 0x2028 || ch === 0x2029 || (ch === 13 && src.charCodeAt(i + 1) !== 10)) this.starts.push(i + 1);
    }
  }
  position(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo] + 1 };
  }
  offset(line: number, column: number): number {
    const start = this.starts[line - 1];
    return start === undefined ? -1 : start + column - 1;
  }
}

/**
 * Finds the function a position (in the file's own coordinates) belongs to: the innermost function
 * whose range holds it. Records must be sorted by start (as `collectFunctions` yields them).
 */
export function functionAt(records: readonly FunctionRecord[], offset: number): FunctionRecord | undefined {
  let found: FunctionRecord | undefined;
  for (const r of records) {
    if (r.start > offset) break;
    if (offset < r.end) found = r;
  }
  return found;
}
