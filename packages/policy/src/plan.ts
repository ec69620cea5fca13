/**
 * The rewrite plan of one function that gets checks: where they go, which `return`s are rewritten
 * and which function declarations move. Decided once, here, and applied by every front end (Babel
 * nodes in @jsprof/babel-plugin, text edits in @jsprof/estree-instrument), so they cannot differ.
 * It reads only what Babel's AST and ESTree share; the texts inserted are check.ts's.
 *
 * - An arrow with an expression body becomes `{ entry; let R = (expr); exit; return R; }`, or
 *   `{ entry; return (expr); }` where storing the value would name a function (`keepsValue`).
 * - A body gets the entry check after its directives and its guard prefix (statements.ts), and
 *   checks at the top of its loops' bodies with `loops`.
 * - With `exits`, a body without `return`s gets the exit check last. One with `return`s runs the
 *   statements after the guard prefix in a labelled block; each `return x;` in it becomes
 *   `{ R = x; break L; }`, and the block is followed by the exit check and `return R;`. Function
 *   declarations stay in the block, where they are, if a block hoists them as the body did (each
 *   name declared once, and by no `var` or parameter); if not, they move before the block, in their
 *   order, unless the body declares let/const/class at its top, which they could not see from
 *   there: then the function gets no exit check. An async generator with `return`s gets none
 *   either (see planFunction).
 * - With `exits`, a function with loops of its own checks before each of its own `await`s and
 *   `yield`s, which leave it as an exit does: time its loops spent before it suspends is its own,
 *   not its caller's, whose check would otherwise come next.
 */
import type { PolicyOptions } from './options';
import { ExitReturn, bodyEndReturn, canKeepReturnValue, exitSlot } from './check';
import { forEachChild, guardPrefixLength, isFunctionNode, isLoopNode } from './statements';

type Node = { type: string; [key: string]: any };

/** A plan over the nodes of the front end's tree (Babel's, or ESTree). */
export type FunctionPlan<N extends Node = Node> = ExpressionBodyPlan<N> | BlockBodyPlan<N>;

interface PlanBase<N extends Node> {
  /** Its own loops (not those of nested functions or classes), inner ones before the loops around them. */
  loops: N[];
  /** With `exits` and loops of its own: its own `await` and `yield` expressions, each to get the exit check before it. */
  suspensions: Suspension<N>[];
  /** Whether to put a check at the top of each of them. */
  loopChecks: boolean;
  /** The exit slot its exit check counts on, if it has loops of its own (check.ts). */
  hasOwnLoops: boolean;
  slot: number;
}

export interface ExpressionBodyPlan<N extends Node = Node> extends PlanBase<N> {
  kind: 'expression';
  /** Whether the value is kept in `R` for an exit check (false: exits off, or storing it would name a function). */
  keepsValue: boolean;
}

export interface BlockBodyPlan<N extends Node = Node> extends PlanBase<N> {
  kind: 'block';
  /** The body's statements, directives left out (ESTree lists them among the statements, Babel apart). */
  statements: N[];
  /** How many of `statements` run before the entry check: the guard prefix. */
  entryAfter: number;
  /** What the exit check ending the body returns: 'value' after the labelled block; null for no exit check. */
  exit: ExitReturn | null;
  /** With `exit: 'value'`: the `return`s to rewrite, all in the labelled block. */
  returns: N[];
  /** With `exit: 'value'`: the function declarations after the guard prefix that stand before the labelled block; every other statement after it goes in. */
  hoisted: N[];
}

/**
 * An `await` or `yield`, and the statement of a statement list it starts, if it does: the check
 * goes before that statement (text written in front of the `await` there could join the statement
 * before), else around the `await` (check.ts, suspensionCheckSource).
 */
export interface Suspension<N extends Node = Node> {
  node: N;
  statement: N | null;
}

export function planFunction<N extends Node>(src: string, fn: N, options: Pick<PolicyOptions, 'exits' | 'loops'>): FunctionPlan<N> {
  const body = fn.type === 'StaticBlock' ? fn : fn.body;
  const loops: N[] = [];
  const base = { loops, suspensions: [] as Suspension<N>[], loopChecks: options.loops, hasOwnLoops: false, slot: exitSlot(src, fn) };
  if (fn.type === 'ArrowFunctionExpression' && body.type !== 'BlockStatement') {
    return { ...base, kind: 'expression', keepsValue: options.exits && canKeepReturnValue(body) };
  }
  const all: N[] = fn.type === 'StaticBlock' ? fn.body : fn.body.body;
  let directives = 0;
  while (directives < all.length && all[directives].directive !== undefined) directives++;
  const statements = all.slice(directives);
  const entryAfter = guardPrefixLength(statements);
  const rest = statements.slice(entryAfter);
  const returns: N[] = [];
  statements.forEach((statement, i) => collectOwn(statement, loops, i >= entryAfter ? returns : null));
  base.hasOwnLoops = loops.length > 0;
  if (options.exits && base.hasOwnLoops && (fn.async || fn.generator)) collectSuspensions(body, null, base.suspensions);
  const plan: BlockBodyPlan<N> = { ...base, kind: 'block', statements, entryAfter, exit: null, returns: [], hoisted: [] };
  if (!options.exits) return plan;
  if (returns.length === 0) return { ...plan, exit: bodyEndReturn(fn) };
  // An async generator's `return x` awaits x, but `return;` and the end of its body do not: the
  // labelled body's `return R` would add a tick to every bare return (test262 saw it).
  if (fn.async && fn.generator) return plan;
  // Function declarations stay where they are, in the block, wherever a block hoists them the same:
  // moved, their text would move the lines after them (the program's own stack traces would change).
  const functions = rest.filter((st) => st.type === 'FunctionDeclaration');
  if (functions.length === 0 || canMoveIntoBlock(fn, functions)) return { ...plan, exit: 'value', returns, hoisted: [] };
  if (rest.some(isLexicalDeclaration)) return plan;
  return { ...plan, exit: 'value', returns, hoisted: functions };
}

/** Loops (inner first) and `return`s whose value the exit check may keep, not looking into nested functions or classes. */
function collectOwn<N extends Node>(node: N, loops: N[], returns: N[] | null) {
  if (isFunctionNode(node) || node.type === 'ClassDeclaration' || node.type === 'ClassExpression') return;
  if (returns && node.type === 'ReturnStatement' && canKeepReturnValue(node.argument)) returns.push(node);
  forEachChild(node, (child) => collectOwn(child, loops, returns));
  if (isLoopNode(node)) loops.push(node);
}

/** Nodes whose expression statements are items of a statement list (a SwitchCase's test is no statement). */
const STATEMENT_LISTS = new Set(['BlockStatement', 'Program', 'StaticBlock', 'SwitchCase']);

/**
 * The function's own `await`s and `yield`s, outermost first, not looking into nested functions or
 * classes; `statement` is the statement of a statement list that `node` starts, if any.
 */
function collectSuspensions<N extends Node>(node: N, statement: N | null, out: Suspension<N>[]) {
  if (isFunctionNode(node) || node.type === 'ClassDeclaration' || node.type === 'ClassExpression') return;
  if (node.type === 'AwaitExpression' || node.type === 'YieldExpression') out.push({ node, statement });
  forEachChild(node, (child) => {
    const listed = child.type === 'ExpressionStatement' && STATEMENT_LISTS.has(node.type);
    collectSuspensions(child, listed ? child : statement?.start === child.start ? statement : null, out);
  });
}

function isLexicalDeclaration(node: Node): boolean {
  return (
    (node.type === 'VariableDeclaration' && node.kind !== 'var') ||
    node.type === 'ClassDeclaration' ||
    node.type === 'TSEnumDeclaration' ||
    node.type === 'TSModuleDeclaration'
  );
}

/**
 * Whether the body's function declarations keep their meaning inside the block (the guard prefix
 * before it names none of them, statements.ts): each name declared once (a block rejects
 * duplicates in strict code), and by no `var`, parameter or function declaration nested in a block
 * (a block rejects the first; sloppy `arguments` would stop seeing the second replaced by the
 * function; the third, in sloppy code, is also bound in the function's scope, Annex B, which the
 * block's own binding would hide), and no direct `eval`, which may declare any name.
 */
function canMoveIntoBlock(fn: Node, functions: Node[]): boolean {
  const names = functions.map((f) => f.id.name as string);
  if (new Set(names).size !== names.length) return false;
  const taken = new Set<string>();
  for (const param of fn.params ?? []) collectPatternNames(param, taken);
  let evals = false;
  const statements: Node[] = fn.type === 'StaticBlock' ? fn.body : fn.body.body;
  for (const statement of statements) {
    if (statement.type !== 'FunctionDeclaration') collectHoisted(statement, taken, () => (evals = true));
  }
  return !evals && names.every((name) => !taken.has(name));
}

function collectPatternNames(node: Node | null, out: Set<string>) {
  if (!node) return;
  switch (node.type) {
    case 'Identifier':
      out.add(node.name);
      break;
    case 'AssignmentPattern':
      collectPatternNames(node.left, out);
      break;
    case 'RestElement':
      collectPatternNames(node.argument, out);
      break;
    case 'ArrayPattern':
      for (const element of node.elements) collectPatternNames(element, out);
      break;
    case 'ObjectPattern':
      for (const property of node.properties) collectPatternNames(property.type === 'RestElement' ? property : property.value, out);
      break;
    case 'TSParameterProperty':
      collectPatternNames(node.parameter, out);
      break;
  }
}

/**
 * Names a statement of a function body binds in the function's scope: its `var`s and the function
 * declarations in its blocks, nested functions' insides excluded; `onEval` for a direct `eval(…)`.
 */
function collectHoisted(node: Node, out: Set<string>, onEval: () => void) {
  if (node.type === 'FunctionDeclaration' && node.id) out.add(node.id.name);
  if (isFunctionNode(node) || node.type === 'ClassDeclaration' || node.type === 'ClassExpression') return;
  if (node.type === 'VariableDeclaration' && node.kind === 'var') for (const d of node.declarations) collectPatternNames(d.id, out);
  if (node.type === 'CallExpression' && node.callee?.type === 'Identifier' && node.callee.name === 'eval') onEval();
  forEachChild(node, (child) => collectHoisted(child, out, onEval));
}
