/**
 * `@jsprof/estree-instrument`: inserts jsprof's checks into source text, following `@jsprof/policy`,
 * from an ESTree AST with UTF-16 offsets (acorn, oxc-parser, or another front end's AST converted to
 * ESTree). Edits are insertions and moves only (magic-string), so the source map is exact and every
 * original character stays where a reader expects it; no line is added.
 *
 * What it inserts is what `@jsprof/babel-plugin` inserts, under the same rules: the entry check
 * first in the body (after directives and the guard clauses the body starts with), the exit check
 * last, after a labelled block around the rest where the function has `return`s (function
 * declarations stay outside the block, so they hoist as before), loop checks under `loops`, and the
 * prelude after the program's directives.
 */
import * as vm from 'node:vm';
import MagicString from 'magic-string';
import { TraceMap, originalPositionFor, traceSegment } from '@jridgewell/trace-mapping';
import { OutputOffsets, outputOffsets } from './offsets';
import { JsSyntaxError, MAX_NESTING, Node, TooDeeplyNestedError, parseJs } from './parse';
import {
  BODY_LABEL,
  CHECK_SOURCE,
  ENTRY_CHECK_PATTERN,
  ENTRY_CHECK_SOURCE,
  INSERTED_BRACE_MARK,
  INSERTED_PAREN_MARK,
  LABELLED_BODY_OPEN,
  RETURN_VALUE_ID,
  TABLE_REGISTRY_ID,
  labelledBodyClose,
  FunctionRecord,
  LIST_ONLY_OPTIONS,
  LineIndex,
  PolicyOptions,
  exitCheckSource,
  forEachChild,
  ecmaScriptName,
  ecmaScriptNameNode,
  functionName,
  isFunctionNode,
  instrumentedProtocol,
  movedClose,
  movedFrom,
  movedOpen,
  needsPrelude,
  normalizeOptions,
  planFunction,
  preludeSource,
  shouldInstrumentFile,
  shouldInstrumentFunction,
  skipTrivia,
  suspensionCheckSource,
  v8FunctionStart,
} from '@jsprof/policy';

export type { Node } from './parse';

export interface InstrumentInput {
  /** The source text the AST was parsed from. */
  code: string;
  /** Its ESTree `Program`, with `start`/`end` as UTF-16 offsets into `code`. */
  program: Node;
  /** Used in the source map and for include/exclude. */
  filename?: string;
  /** A source map of `code` to chain the output map onto. */
  inputSourceMap?: any;
  /** Whether to make a source map (default true); making one is most of the time spent on a large file. */
  sourceMap?: boolean;
  /** Whether to make the output's function table (see `functionTable`). */
  functionTable?: boolean;
}

export interface InstrumentResult {
  code: string;
  /** Source map from the output to `code` (or, with `inputSourceMap`, to its sources); null if unchanged or not asked for. */
  map: any | null;
  /** Every function of the file, sorted by start, in the coordinates of `code`. */
  functions: FunctionRecord[];
  /** The output's function table, when asked for. */
  table: FunctionTable | null;
  stats: { functions: number; instrumented: number };
  changed: boolean;
  /**
   * The protocol of the checks `code` already carried (it is then left as it is), or null. Not
   * CHECK_PROTOCOL: no runtime of this jsprof arms them; say so (protocolWarning).
   */
  protocol: number | null;
}

/** Instruments `input.code`; `options` are the Babel plugin's, validated the same way. */
export function instrument(input: InstrumentInput, rawOptions: unknown = {}): InstrumentResult {
  const options = normalizeOptions(rawOptions);
  const { code, program } = input;
  const lines = new LineIndex(code);
  const protocol = instrumentedProtocol(code);
  const enabled = shouldInstrumentFile(options, input.filename) && protocol === null;

  // Functions in post-order (inner before outer), so insertions at one offset nest correctly.
  const found: Node[] = [];
  const records: FunctionRecord[] = [];
  const s = new MagicString(code);
  const wantMap = input.sourceMap !== false;
  /** The source map gets a segment at every node's start (as a parser's tokens would) and at V8's function starts. */
  const mapHere = (at: number) => {
    if (wantMap && at >= 0) s.addSourcemapLocation(at);
  };
  const path: Node[] = []; // the nodes above the one visited, outermost first
  const visit = (node: Node) => {
    mapHere(node.start);
    const isClass = node.type === 'ClassDeclaration' || node.type === 'ClassExpression';
    const isStaticBlock = node.type === 'StaticBlock';
    const ancestors = isFunctionNode(node) || isClass || isStaticBlock ? path.slice().reverse() : null;
    if (path.length > MAX_TREE_DEPTH) refuseDeepTree(code, node, input.filename);
    path.push(node);
    forEachChild(node, visit);
    path.pop();
    if (ancestors) {
      const instrumented = enabled && !isClass && shouldInstrumentFunction(node, options, ancestors);
      if (instrumented) found.push(node);
      const recorded = isClass ? !node.body.body.some((m: Node) => m.kind === 'constructor') : !isStaticBlock;
      if (recorded) {
        const fn = record(code, lines, node, ancestors, instrumented);
        records.push(fn);
        mapHere(lines.offset(fn.line, fn.column));
      }
    }
  };
  try {
    visit(program);
  } catch (error) {
    // Out of stack below the depth limit (a long chain of `+`): the path still ends at the deepest node.
    if (error instanceof RangeError && path.length > 0) refuseDeepTree(code, path[path.length - 1], input.filename, 'too deeply nested to walk here');
    throw error;
  }
  records.sort((a, b) => a.start - b.start);

  const edits: EditState = { moves: 0, closings: new Map() };
  const result = (changed: boolean): InstrumentResult => {
    const out = changed ? s.toString() : code;
    if (changed) refuseUnparsable(code, out, program, input.filename ?? '', s);
    return {
      code: out,
      map: changed && wantMap ? chainSourceMaps(s.generateMap({ source: input.filename ?? '', includeContent: true, hires: false }), input.inputSourceMap) : null,
      functions: records,
      table: input.functionTable ? outputTable(records, code, out, changed ? s : null, edits.closings, input.inputSourceMap) : null,
      stats: { functions: records.length, instrumented: changed ? found.length : 0 },
      changed,
      protocol,
    };
  };
  if (!enabled || !needsPrelude(options, program.sourceType === 'module', found.length)) return result(false);

  for (const fn of found) instrumentFunction(s, code, fn, options, edits);
  s.prependRight(preludeOffset(code, program), preludeText(program, options));
  return result(true);
}

/**
 * How deep the walk below may go into a tree, whichever parser made it: as deep as brackets may
 * nest in a file jsprof parses (MAX_NESTING), with room for the nodes between two brackets
 * (`if (a) {` is an IfStatement and a BlockStatement) and around them. The walk and the policy's
 * counts ran out of stack from about 2,000 nested blocks.
 */
const MAX_TREE_DEPTH = 2 * MAX_NESTING + 100;

function refuseDeepTree(code: string, node: Node, file = '', reason = `the syntax tree nests more than ${MAX_TREE_DEPTH} deep here`): never {
  const { line, column } = new LineIndex(code).position(node.start);
  throw new TooDeeplyNestedError(file, line, column, `${reason}; jsprof leaves the file as it is`);
}

/**
 * Output that does not parse is never returned: that would be a bug in the edits above, and the
 * file would be broken where it ran. The error names the input's position nearest the fault.
 * Where acorn cannot read the input either, the front's own parser read it, and has the last word.
 */
function refuseUnparsable(code: string, out: string, program: Node, file: string, s: MagicString) {
  const sourceType = program.sourceType === 'module' ? 'module' : 'script';
  // A module that imports and exports nothing reads as a strict script does (top-level await aside, which V8 refuses there).
  const asScript = sourceType === 'script' ? out : program.body.some((st: Node) => MODULE_DECLARATIONS.has(st.type)) ? null : `"use strict";${out}`;
  if (asScript !== null && compilesAsScript(asScript)) return;
  try {
    // Checks nest the body of a function with `return`s two levels deeper.
    parseJs(out, file, sourceType, 3 * MAX_NESTING);
  } catch (error) {
    if (!(error instanceof JsSyntaxError) || error instanceof TooDeeplyNestedError) throw error;
    // Syntax acorn does not know (SWC's `accessor` fields) is the front's parser's to judge.
    if (!parses(code, file, sourceType)) return;
    const map = new TraceMap(s.generateMap({ hires: true, source: file }) as any);
    const at = originalPositionFor(map, { line: error.line, column: error.column - 1 });
    const line = at.line ?? error.line;
    const column = at.column == null ? error.column : at.column + 1;
    throw new JsSyntaxError(file, line, column, `jsprof's checks here would not parse (${error.reason}); nothing was written. Please report this file.`);
  }
}

const MODULE_DECLARATIONS = new Set(['ImportDeclaration', 'ExportNamedDeclaration', 'ExportDefaultDeclaration', 'ExportAllDeclaration']);

function parses(code: string, file: string, sourceType: 'script' | 'module'): boolean {
  try {
    parseJs(code, file, sourceType, 3 * MAX_NESTING);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether V8 compiles the code as a script (a compile is several times faster than acorn's parse of
 * the whole file, and V8's pre-parser finds the syntax errors of the functions it leaves for later).
 * Where V8 refuses it, acorn has the last word: Node's V8 may not know all the syntax acorn does,
 * and a CommonJS file may `return` at its top level.
 */
function compilesAsScript(code: string): boolean {
  try {
    new vm.Script(code);
    return true;
  } catch {
    return false;
  }
}

/**
 * The node a frame's position is found in: an ESTree method's function starts at its `(`, but V8
 * (and the Babel AST) start a method at its key.
 */
function headNode(node: Node, ancestors: Node[]): Node {
  const parent = ancestors[0];
  const isMethod = parent && parent.value === node && (parent.type === 'MethodDefinition' || (parent.type === 'Property' && (parent.method || parent.kind !== 'init')));
  return isMethod ? parent : node;
}

function record(code: string, lines: LineIndex, node: Node, ancestors: Node[], instrumented: boolean): FunctionRecord {
  const at = v8FunctionStart(code, node);
  const { line, column } = lines.position(at < 0 ? node.start : at);
  return {
    start: headNode(node, ancestors).start,
    end: node.end,
    bodyStart: Array.isArray(node.body) ? node.start : (node.body?.start ?? node.end),
    name: functionName(node, ancestors),
    ecmaName: ecmaScriptName(node, ancestors),
    ecmaNameStart: ecmaScriptNameNode(node, ancestors)?.start ?? undefined,
    line,
    column,
    instrumented,
  };
}

interface EditState {
  /** How many function declarations moved so far (their markers' number). */
  moves: number;
  /** The arrows with an expression body closed with inserted text, by their end: their start and the text's length. */
  closings: Map<number, { start: number; length: number }[]>;
}

/**
 * Edits at one offset compose by one rule: constructs are edited inner first (functions in
 * post-order; in a function, its returns, then its loops, inner first, then its entry, exit and
 * labelled body), text opening a construct goes before what is already at its start
 * (prependRight), and text closing one after what is already at its end (appendLeft). So a loop
 * check's braces wrap a rewritten `return` that is the loop's whole body, and an arrow's closing
 * comes before the `;` of the statement it ends.
 *
 * Every insertion can be told from the program's text, and removed to give it back exactly
 * (@jsprof/policy's check.ts, its marks): a check written after the program's own `;` or `{` is
 * preceded by a space, one that ends the statement before it by `;`.
 */
function instrumentFunction(s: MagicString, code: string, node: Node, options: PolicyOptions, edits: EditState) {
  const plan = planFunction(code, node, options);
  const { hasOwnLoops, slot } = plan;
  if (plan.kind === 'expression') {
    // `a => expr` becomes `a => {entry; let r = (expr); exit; return r; }`.
    const at = arrowBodyStart(code, node);
    const keep = plan.keepsValue;
    s.prependRight(at, `{${ENTRY_CHECK_SOURCE} ${keep ? `let ${RETURN_VALUE_ID} = (` : 'return ('}`);
    const closing = keep ? `); ${exitCheckSource(hasOwnLoops, 'value', slot)} return ${RETURN_VALUE_ID}; }` : `)${INSERTED_BRACE_MARK}}`;
    s.appendLeft(node.end, closing);
    const atEnd = edits.closings.get(node.end) ?? [];
    atEnd.push({ start: node.start, length: closing.length });
    edits.closings.set(node.end, atEnd);
    return;
  }
  const { statements, entryAfter } = plan;
  const all: Node[] = node.type === 'StaticBlock' ? node.body : node.body.body;
  const open = node.type === 'StaticBlock' ? skipTrivia(code, node.start + 'static'.length) : node.body.start;
  const close = node.end - 1;
  const directives = all.length - statements.length;
  const entryAt = entryAfter > 0 ? statements[entryAfter - 1].end : directives > 0 ? all[directives - 1].end : open + 1;

  for (const ret of plan.returns) rewriteReturn(s, code, ret);
  for (const { node: suspension, statement } of plan.suspensions) {
    if (statement) {
      // `;` first: the statement before may end at the line break before this one.
      s.prependRight(statement.start, `;${suspensionCheckSource(slot, true)}`);
    } else {
      s.prependRight(suspension.start, `(${suspensionCheckSource(slot, false)}, `);
      s.appendLeft(suspension.end, `)${INSERTED_PAREN_MARK}`);
    }
  }
  if (plan.loopChecks) for (const loop of plan.loops) addLoopCheck(s, loop);
  const separator = entryAt > open + 1 && code[entryAt - 1] !== ';' ? ';' : ' ';
  s.appendLeft(entryAt, separator + ENTRY_CHECK_SOURCE);
  if (plan.exit === null) return;
  if (plan.exit !== 'value') {
    // After the last statement, which may end without a semicolon.
    const last = all[all.length - 1];
    s.prependRight(close, `${last && code[last.end - 1] !== ';' ? ';' : ' '}${exitCheckSource(hasOwnLoops, plan.exit, slot)}`);
    return;
  }
  const rest = statements.slice(entryAfter);
  const blockAt = rest.find((st: Node) => !plan.hoisted.includes(st))!.start;
  let previous: { end: number; from: number } | null = null;
  for (const fn of plan.hoisted) {
    if (fn.start < blockAt) continue;
    // The statement before it must not run into the one after it once it is gone. One that ends
    // without a semicolon and a line break ends by itself (a declaration, a block); one ended by
    // a line break gets a semicolon, after the break, not on a function it may end with.
    const before = statements[statements.indexOf(fn) - 1];
    const semicolon = code[before.end - 1] !== ';' && /[\n\r\u2028\u2029]/.test(code.slice(before.end, fn.start));
    // Where it was, on the text before it: on the first of declarations that follow each other
    // with nothing between, as the others move too.
    const from: number = previous && previous.end === fn.start ? previous.from : fn.start;
    const n = edits.moves++;
    s.appendLeft(from, movedFrom(n, semicolon));
    s.prependRight(fn.start, movedOpen(n));
    s.appendLeft(fn.end, movedClose(n));
    s.move(fn.start, fn.end, blockAt);
    previous = { end: fn.end, from };
  }
  s.prependRight(blockAt, `${LABELLED_BODY_OPEN} `);
  // Before the closing brace, never with a statement a move may take away.
  s.prependRight(close, ` ${labelledBodyClose(hasOwnLoops, slot)} `);
}

/**
 * `return x;` becomes `{ R = x; break L; }` (see @jsprof/policy's check.ts), with the keyword left
 * in a comment after `R =` (or in `R = void 0` for a bare `return`), so that every edit is an
 * insertion. Only a sequence needs parentheses there (`R = (a, b)`): they are marked.
 */
function rewriteReturn(s: MagicString, code: string, ret: Node) {
  const sequence = ret.argument?.type === 'SequenceExpression';
  s.prependRight(ret.start, `{ ${RETURN_VALUE_ID} = ${ret.argument ? '' : 'void '}/*`);
  s.appendLeft(ret.start + 'return'.length, ret.argument ? (sequence ? `*/(${INSERTED_PAREN_MARK}` : '*/') : '*/ 0');
  if (sequence) s.appendLeft(ret.argument.end, `)${INSERTED_PAREN_MARK}`);
  s.appendLeft(ret.end, `${code[ret.end - 1] === ';' ? ' ' : ';'}break ${BODY_LABEL}; }`);
}

function addLoopCheck(s: MagicString, loop: Node) {
  const body = loop.body;
  if (body.type === 'BlockStatement') {
    s.appendLeft(body.start + 1, ` ${CHECK_SOURCE}`);
  } else {
    s.prependRight(body.start, `{${CHECK_SOURCE} `);
    s.appendLeft(body.end, ` ${INSERTED_BRACE_MARK}}`);
  }
}

/** The offset just after an arrow's `=>`. */
function arrowBodyStart(code: string, node: Node): number {
  let pos = node.params.length ? node.params[node.params.length - 1].end : node.start;
  for (;;) {
    pos = skipTrivia(code, pos);
    if (code.startsWith('=>', pos)) return pos + 2;
    pos++;
  }
}

/** Where the prelude goes: after a byte order mark, a hashbang line and the program's directives. */
function preludeOffset(code: string, program: Node): number {
  let at = code.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (code.startsWith('#!', at)) {
    const eol = code.slice(at).search(/[\n\r\u2028\u2029]/);
    at = eol < 0 ? code.length : at + eol + (code.startsWith('\r\n', at + eol) ? 2 : 1);
  }
  for (const st of program.body) {
    if (st.directive === undefined) break;
    at = st.end;
  }
  return at;
}

function preludeText(program: Node, options: PolicyOptions): string {
  return `;${preludeSource(options, program.sourceType === 'module')}`;
}

// Its published types do not parse (TypeScript 5.9), so it is typed here.
const remapping: (maps: any[], loader: () => null) => any = require('@jridgewell/remapping');

/** A plain source map object: ours, or ours traced through the input's. */
export function chainSourceMaps(map: any, input: any): any {
  const out = { version: 3, file: map.file, sources: map.sources, sourcesContent: map.sourcesContent, names: map.names, mappings: map.mappings };
  if (!input) return out;
  return { ...remapping([out, typeof input === 'string' ? JSON.parse(input) : input], () => null) };
}

export { parseJs, JsSyntaxError, MAX_NESTING, TooDeeplyNestedError };
export { inlineSourceMap, loadSourceMap, readSourceMap, relocateSources, splitSourceMappingUrl, withInlineSourceMap } from './source-map-comment';
export type { OwnSourceMap, UnusableSourceMap } from './source-map-comment';
export { isWebpackAsset, webpackDevtoolProblem } from './webpack-devtool';

/**
 * The function table of a script as it will run (`<script>.jsprof.json` beside it; see
 * @jsprof/runtime's function-tables.ts): every function's start, body start and end, V8's start
 * and ECMAScript name (Chromium's Profiler reports no inferred names), 1-based, sorted by start.
 * Browsers' runtimes name and place frames with it. Where the script has a source map that records
 * the names a minifier changed, a function has the name it has in the sources.
 */
export interface FunctionTable {
  version: 1;
  functions: Array<[name: string, line: number, column: number, bodyLine: number, bodyColumn: number, endLine: number, endColumn: number, v8Line: number, v8Column: number, checks: 0 | 1]>;
}

export const FUNCTION_TABLE_SUFFIX = '.jsprof.json';

/** The global array where scripts with a function table beside them say so (see TABLE_REGISTRATION). */
export const TABLE_REGISTRY = TABLE_REGISTRY_ID;

/**
 * The statement `jsprof instrument` and the bundler plugins append to each script they write a
 * function table for. It pushes a function of the script that makes an Error, whose stack names the
 * script as the engine names its frames; the runtime fetches tables for those scripts only, so a page
 * whose scripts have none (built with Babel, or not instrumented) requests nothing. Not the Error
 * itself: made by a script's top-level code, an Error costs Chromium the source positions of all of
 * that code, as it loads (typescript.js took 100 ms longer to load, +50%); made later by this small
 * function, the positions of the function alone. The array is not enumerable, as the runtime's
 * globals are not: a program listing the global's keys (a test runner's leak check) finds nothing new.
 */
export const TABLE_REGISTRATION = `;try { (function (g, k) { g[k] || g.Object.defineProperty(g, k, { value: [], writable: true, configurable: true }); g[k].push(function () { return new Error(); }); })(globalThis, "${TABLE_REGISTRY}"); } catch (e) {}`;

export function functionTable(code: string, program: Node, sourceMap?: any): FunctionTable {
  const { functions } = instrument({ code, program, sourceMap: false }, LIST_ONLY_OPTIONS);
  const lines = new LineIndex(code);
  return tableOf(functions, lines, { to: UNCHANGED, closings: new Map(), nameOf: originalNames(sourceMap, lines), checked: withChecks(code, functions) });
}

/**
 * The functions (of `functions`, sorted by start) whose body has an entry check before any function
 * nested in it: checks any front wrote, minified or not (the runtime passes over callers without
 * checks at an entry, see its trace.ts).
 */
function withChecks(code: string, functions: FunctionRecord[]): Set<FunctionRecord> {
  const found = new Set<FunctionRecord>();
  functions.forEach((f, i) => {
    const nested = functions[i + 1];
    const end = nested && nested.start < f.end ? Math.max(f.bodyStart, nested.start) : f.end;
    if (ENTRY_CHECK_PATTERN.test(code.slice(f.bodyStart, end))) found.add(f);
  });
  return found;
}

const UNCHANGED: OutputOffsets = { at: (offset) => offset, end: (offset) => offset };

/**
 * A function's name as the source map of the code it is in records it for the identifier the name
 * is read from (what a minifier renamed), or else its ECMAScript name.
 */
function originalNames(sourceMap: any, lines: LineIndex): (f: FunctionRecord) => string {
  let map: TraceMap | null = null;
  try {
    if (sourceMap) map = new TraceMap(sourceMap);
  } catch {
    // an unreadable map names nothing
  }
  if (!map) return (f) => f.ecmaName;
  return (f) => {
    if (f.ecmaNameStart === undefined || !f.ecmaName) return f.ecmaName;
    const { line, column } = lines.position(f.ecmaNameStart);
    const segment = traceSegment(map, line - 1, column - 1);
    const original = segment && segment.length === 5 && segment[0] === column - 1 ? map.names[segment[4]] : undefined;
    if (!original) return f.ecmaName;
    const accessor = /^[gs]et /.test(f.ecmaName) ? f.ecmaName.slice(0, 4) : '';
    const hash = f.ecmaName.startsWith('#', accessor.length) && !original.startsWith('#') ? '#' : '';
    return accessor + hash + original;
  };
}

/** How tableOf reads the records: where their offsets land in the code `lines` indexes, and what to call each. */
interface TableSource {
  to: OutputOffsets;
  closings: EditState['closings'];
  /** Where V8 starts each function, as an offset in the records' code (else their own line and column). */
  v8Offset?: (f: FunctionRecord) => number;
  nameOf: (f: FunctionRecord) => string;
  /** Functions that carry checks the records do not count (written before). */
  checked: Set<FunctionRecord>;
}

function tableOf(functions: FunctionRecord[], lines: LineIndex, { to, closings, v8Offset, nameOf, checked }: TableSource): FunctionTable {
  // A function ends after its last character and the closings of the arrows ending there inside it
  // (its own, if it is one), not text a construct around it added there (a marker, a loop's brace).
  const endOf = (f: FunctionRecord) => to.at(f.end - 1) + 1 + (closings.get(f.end) ?? []).reduce((n, c) => n + (c.start >= f.start ? c.length : 0), 0);
  const entries: FunctionTable['functions'] = functions.map((f) => {
    const start = lines.position(to.at(f.start));
    const body = lines.position(to.end(f.bodyStart)); // text inserted at the body's start is in the body
    const end = lines.position(endOf(f));
    const v8 = v8Offset ? lines.position(to.at(v8Offset(f))) : f;
    const checks = f.instrumented || checked.has(f) ? 1 : 0;
    return [nameOf(f), start.line, start.column, body.line, body.column, end.line, end.column, v8.line, v8.column, checks];
  });
  // Moved function declarations keep their order among themselves, not with the rest: sort by start.
  return { version: 1, functions: entries.sort((a, b) => a[1] - b[1] || a[2] - b[2]) };
}

/**
 * The function table of the instrumented output, from the input's records: positions are carried
 * through the edits (insertions and moves only; an arrow's end takes the text that closes its
 * expression body) and checked on the output's characters; where that does not hold, the output is parsed
 * again. The prelude's own functions are left out: they never run under a profiler.
 */
function outputTable(records: FunctionRecord[], code: string, out: string, s: MagicString | null, closings: EditState['closings'], inputMap: any): FunctionTable {
  const inputLines = new LineIndex(code);
  const names = { nameOf: originalNames(inputMap, inputLines), checked: withChecks(code, records) }; // the records' offsets are the input's
  if (!s) return tableOf(records, inputLines, { to: UNCHANGED, closings, ...names });
  const v8Offset = (f: FunctionRecord) => inputLines.offset(f.line, f.column);
  const to = outputOffsets(s);
  const carried = (offset: number) => to !== null && out.charCodeAt(to.at(offset)) === code.charCodeAt(offset);
  if (records.every((f) => carried(f.start) && carried(f.bodyStart) && carried(f.end - 1) && carried(v8Offset(f)))) {
    return tableOf(records, new LineIndex(out), { to: to!, closings, v8Offset, ...names });
  }
  return functionTable(out, parseJs(out), inputMap && chainSourceMaps(s.generateMap({ hires: true }), inputMap));
}
