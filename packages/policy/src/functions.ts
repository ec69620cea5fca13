/**
 * How a function is named and where it starts, as native Chromium's profiler (V8) reports them:
 * the ECMAScript `name` a function gets (including names inferred by `const f = () => {}`), and
 * the start of its parameter list — the `(`, or the lone parameter of `a => …`, or the `class`
 * keyword for an implicit constructor.
 *
 * `async` arrows start at `async`. Names also follow V8: where a function has no ECMAScript name, the
 * one V8 infers from the assignment it stands in (`a.b = function () {}` is `a.b`).
 *
 * Works on Babel's AST and on ESTree; positions come from the source text, so no parser's
 * token list is needed.
 */

import { CALL_TYPES, forEachChild, isFunctionNode, withoutParentheses } from './statements';

type Node = { type: string; start?: number | null; end?: number | null; [key: string]: any };

/** One function of a file, in that file's own coordinates (offsets are UTF-16 indices). */
export interface FunctionRecord {
  /** Offset where the function's node starts and ends. */
  start: number;
  end: number;
  /** Offset where its body starts: everything before is its head. */
  bodyStart: number;
  name: string;
  /** Its ECMAScript name alone (`''` for `a.b = function () {}`), as Chromium's Profiler names it. */
  ecmaName: string;
  /** Offset of the identifier or key `ecmaName` is read from, if any (`ecmaScriptNameNode`). */
  ecmaNameStart?: number;
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
    // `async a => …` and `async (a) => …` start at `async`.
    if (fn.async) return start;
    if (fn.typeParameters) return nextParen(src, fn.typeParameters.end, bodyStart);
    const pos = skipTrivia(src, start);
    if (src[pos] === '(') return pos;
    return params.length ? (params[0].start ?? pos) : pos;
  }
  if (fn.type === 'ClassDeclaration' || fn.type === 'ClassExpression') {
    const at = src.indexOf('class', fn.decorators?.length ? fn.decorators[fn.decorators.length - 1].end : start);
    return at < 0 ? start : at;
  }
  let from = start;
  if (fn.key) from = fn.key.end ?? start;
  else if (fn.id) from = fn.id.end ?? start;
  if (fn.typeParameters) from = fn.typeParameters.end ?? from;
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

/** The method node (Babel) or MethodDefinition/Property (ESTree) a function is the body of, if any. */
function methodOf(fn: Node, parent: Node | undefined): Node | null {
  if (fn.type === 'ObjectMethod' || fn.type === 'ClassMethod' || fn.type === 'ClassPrivateMethod') return fn;
  if (!parent || parent.value !== fn) return null;
  if (parent.type === 'MethodDefinition') return parent;
  if (parent.type === 'Property' && (parent.method || parent.kind !== 'init')) return parent;
  return null;
}

/** Where NamedEvaluation takes an anonymous function's or class's name from: a binding or a key, or `export default`. */
function contextualNameSource(node: Node, ancestors: Node[]): { key: Node; computed: boolean } | 'default' | null {
  const parent = ancestors[0];
  if (!parent) return null;
  switch (parent.type) {
    case 'VariableDeclarator':
      return parent.init === node && parent.id.type === 'Identifier' ? { key: parent.id, computed: false } : null;
    case 'AssignmentExpression':
      return parent.right === node && parent.left.type === 'Identifier' && ['=', '||=', '&&=', '??='].includes(parent.operator)
        ? { key: parent.left, computed: false }
        : null;
    case 'AssignmentPattern':
      return parent.right === node && parent.left.type === 'Identifier' ? { key: parent.left, computed: false } : null;
    case 'ObjectProperty':
    case 'Property':
    case 'ClassProperty':
    case 'ClassPrivateProperty':
    case 'PropertyDefinition':
    case 'ClassAccessorProperty':
      return parent.value === node && !parent.shorthand ? { key: parent.key, computed: !!parent.computed } : null;
    case 'ExportDefaultDeclaration':
      return 'default';
    case 'ParenthesizedExpression':
      return contextualNameSource(parent, ancestors.slice(1));
    default:
      return null;
  }
}

/** The name NamedEvaluation gives an anonymous function or class from where it stands. */
function contextualName(node: Node, ancestors: Node[]): string {
  const source = contextualNameSource(node, ancestors);
  return source === 'default' ? 'default' : source ? keyName(source.key, source.computed) : '';
}

/**
 * The identifier or key a function's ECMAScript name is read from (see `ecmaScriptName`), or null
 * (anonymous, computed, `default`): where a minifier's source map records the name it had.
 */
export function ecmaScriptNameNode(fn: Node, ancestors: Node[]): Node | null {
  const method = methodOf(fn, ancestors[0]);
  if (method) {
    if (method.kind !== 'constructor') return method.computed ? null : method.key;
    const at = method === fn ? 1 : 2;
    return ancestors[at] ? ecmaScriptNameNode(ancestors[at], ancestors.slice(at + 1)) : null;
  }
  if (fn.id) return fn.id;
  const source = contextualNameSource(fn, ancestors);
  return source && source !== 'default' && !source.computed ? source.key : null;
}

/**
 * The ECMAScript `name` of a function or class (the class name for a constructor): what Chromium's
 * Profiler reports, where V8's own profiler (`node --cpu-prof`) reports `functionName`'s inferred names.
 */
export function ecmaScriptName(fn: Node, ancestors: Node[]): string {
  const method = methodOf(fn, ancestors[0]);
  if (method) {
    if (method.kind === 'constructor') {
      // Babel: ClassMethod < ClassBody < Class. ESTree: FunctionExpression < MethodDefinition < ClassBody < Class.
      const at = method === fn ? 1 : 2;
      return ancestors[at] ? functionName(ancestors[at], ancestors.slice(at + 1)) : '';
    }
    if (method.computed) return '';
    const name = keyName(method.key, false);
    return method.kind === 'get' || method.kind === 'set' ? `${method.kind} ${name}` : name;
  }
  if (fn.id) return fn.id.name;
  return contextualName(fn, ancestors);
}

/** Expressions V8's name inference looks through on its way to an assignment target. */
const TRANSPARENT = new Set([
  'ParenthesizedExpression',
  'LogicalExpression',
  'SequenceExpression',
  'ArrayExpression',
  'ObjectExpression',
  'TSAsExpression',
  'TSSatisfiesExpression',
  'TSNonNullExpression',
  'TSTypeAssertion',
  'TypeCastExpression',
]);

/** Names an assignment target contributes: `a.b['c']` gives a, b, c; `x[i]` gives x, <computed>. */
function targetNames(target: Node): string[] {
  switch (target.type) {
    case 'Identifier':
      return [target.name];
    case 'MemberExpression':
    case 'OptionalMemberExpression': {
      const names = targetNames(target.object);
      const property = target.property;
      let name: string;
      if (!target.computed) name = keyName(property, false);
      else if (property.type === 'StringLiteral' || (property.type === 'Literal' && typeof property.value === 'string')) name = property.value;
      else name = '<computed>';
      return name === 'prototype' ? names : [...names, name];
    }
    default:
      // `this`, calls and the like contribute nothing.
      return [];
  }
}

/**
 * The name V8 infers for a function without an ECMAScript name (what its profiler reports):
 * assignment targets and object keys on the way up, `Foo.bar` for `Foo.prototype.bar = function`,
 * `a.<computed>` for `a[0] = function`, prefixed with the enclosing function's name when that starts
 * with a capital (`function Ctor() { this.m = function () {} }` gives `Ctor.m`).
 *
 * A function passed to `new` or a call can take a name too, as V8 names every function still
 * waiting for one where it meets an object key or an assignment (`waitingFunctions`):
 * `{ k: new T(function () {}) }` names it `o.k` (acorn's token contexts), and
 * `{ k: wrap(function () {}, function () {}) }` the first of the two. A declaration or assignment
 * whose value is a call or `new` names none (`const f = debounce(() => {})`).
 */
function inferredName(node: Node, ancestors: Node[]): string {
  const names: string[] = [];
  // Whether V8 has named the function yet, at an object key or an assignment on the way up. Only
  // function expressions and arrows wait for one (`waitingFunctions`); methods and classes are
  // named where they stand.
  let named = node.type !== 'FunctionExpression' && node.type !== 'ArrowFunctionExpression';
  let child = node;
  let i = 0;
  for (; i < ancestors.length; i++) {
    const parent = ancestors[i];
    if (parent.type === 'ConditionalExpression' && parent.test !== child) {
      // the function is one of the branches
    } else if ((parent.type === 'ObjectProperty' || parent.type === 'Property') && parent.value === child) {
      if (!named && !waitingFunctions(child).includes(node)) return '';
      named = true;
      const key = keyName(parent.key, !!parent.computed);
      if (key) names.unshift(key);
    } else if (parent.type === 'AssignmentExpression' && parent.right === child) {
      if (!named && (isCall(child) || !waitingFunctions(child).includes(node))) return '';
      named = true;
      names.unshift(...targetNames(parent.left));
    } else if (parent.type === 'VariableDeclarator' && parent.init === child) {
      if (!named && (isCall(child) || !waitingFunctions(child).includes(node))) return '';
      if (parent.id.type === 'Identifier') names.unshift(parent.id.name);
      break;
    } else if (!named && CALL_TYPES.has(parent.type) && parent.callee !== child) {
      // an argument: whether it is still waiting for a name is decided where the name is given
    } else if (!TRANSPARENT.has(parent.type)) {
      break;
    }
    child = parent;
  }
  if (names.length === 0) return '';
  for (; i < ancestors.length; i++) {
    if (isFunctionLike(ancestors[i])) {
      const enclosing = functionName(ancestors[i], ancestors.slice(i + 1));
      if (/^\p{Lu}/u.test(enclosing)) names.unshift(enclosing);
      break;
    }
  }
  return names.join('.');
}

function isCall(node: Node): boolean {
  return CALL_TYPES.has(withoutParentheses(node).type);
}

/**
 * The functions of `value` still waiting for a name once V8's parser has read it, in order, as its
 * FuncNameInferrer keeps them: an anonymous function expression joins the list when read (its body
 * is read lazily, later), an arrow once its body has been read; a call (not `new`) takes the last
 * one off; an object key, or an assignment or declaration, inside gives every waiting one a name,
 * unless its value is a call or `new`, where it takes the last one off instead.
 */
export function waitingFunctions(value: Node): readonly Node[] {
  let waiting = waitingCache.get(value);
  if (!waiting) waitingCache.set(value, (waiting = readWaitingFunctions(value)));
  return waiting;
}

/** Every function of a long array of arrows asks about the same array: read it once. */
const waitingCache = new WeakMap<Node, Node[]>();

function readWaitingFunctions(value: Node): Node[] {
  const waiting: Node[] = [];
  const read = (node: Node): void => {
    switch (node.type) {
      case 'FunctionExpression':
        if (!node.id) waiting.push(node);
        return;
      case 'ArrowFunctionExpression':
        forEachChild(node, read);
        waiting.push(node);
        return;
      case 'CallExpression':
      case 'OptionalCallExpression':
        forEachChild(node, read);
        waiting.pop();
        return;
      case 'ObjectProperty':
      case 'Property':
        forEachChild(node, read);
        waiting.length = 0;
        return;
      case 'AssignmentExpression':
      case 'VariableDeclarator': {
        forEachChild(node, read);
        const assigned = node.type === 'AssignmentExpression' ? node.right : node.init;
        if (assigned && isCall(assigned)) waiting.pop();
        else if (assigned) waiting.length = 0;
        return;
      }
      default:
        if (!isFunctionNode(node) && !/^Class/.test(node.type)) forEachChild(node, read);
    }
  };
  read(value);
  return waiting;
}

function isFunctionLike(node: Node): boolean {
  return /Function(Declaration|Expression)$|^(Object|Class|ClassPrivate)Method$/.test(node.type);
}

/**
 * The name native Chromium gives a function (or, for a class, its constructor): the ECMAScript
 * name when there is one, else V8's inferred name (see `inferredName`); `''` for computed class members.
 * `ancestors` lists the node's parents, nearest first, up to the root (for ESTree methods, the
 * function's parent is the MethodDefinition/Property).
 */
export function functionName(fn: Node, ancestors: Node[]): string {
  const own = ecmaScriptName(fn, ancestors);
  if (own) return own;
  const method = methodOf(fn, ancestors[0]);
  if (method && method.kind === 'constructor') return '';
  // A computed method of an object literal takes the literal's inferred name; a class's gets none.
  return method ? inferredName(method, method === fn ? ancestors : ancestors.slice(1)) : inferredName(fn, ancestors);
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

/** The last record (so the innermost, records being sorted by start) whose range from its start to `endOf` holds `offset`. */
function innermostHolding(records: readonly FunctionRecord[], offset: number, endOf: (r: FunctionRecord) => number): FunctionRecord | undefined {
  let found: FunctionRecord | undefined;
  for (const r of records) {
    if (r.start > offset) break;
    if (offset < endOf(r)) found = r;
  }
  return found;
}

/**
 * Finds the function a position (in the file's own coordinates) belongs to: the innermost function
 * whose range holds it. Records must be sorted by start (as `collectFunctions` yields them).
 */
export function functionAt(records: readonly FunctionRecord[], offset: number): FunctionRecord | undefined {
  return innermostHolding(records, offset, (r) => r.end);
}

/** The function whose head (from its start to its body, where V8's start and CallSite's enclosing position lie) holds `offset`. */
export function functionByHead(records: readonly FunctionRecord[], offset: number): FunctionRecord | undefined {
  return innermostHolding(records, offset, (r) => r.bodyStart);
}
