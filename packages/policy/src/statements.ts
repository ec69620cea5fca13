/**
 * The statement count that decides whether a function gets a check: the most statements one call of
 * the function can run, going once through each loop. A check costs about the same in every call, so
 * what matters is how much a call does, not how much code the function has: a dispatch `switch` of
 * fifty one-line cases, or a chain of guard clauses, runs a few statements per call and would pay for
 * its checks many times over.
 *
 * It counts in a way a minifier cannot shrink much:
 * - every statement on the path counts 1, statements in nested blocks, branches and loop bodies too;
 *   an `if` counts 1 and the longer of its branches; a `switch` 1 and the longest run of cases from one
 *   label to a `break` (the labels themselves do not count); a loop 1 and its body once; `try` 1, its
 *   block, its handler (after all of the block) and its finalizer;
 * - a `return` or `throw` ends the path, and a guard clause (an `if` without `else` whose branch
 *   always leaves the function, other than by a bare `return;`) does not count: `if (a) return b;
 *   c(); d();` is 2, and a chain of guard clauses returning a value at each test (a character
 *   classifier) is 1; so a conditional in a `return` or `throw` argument, their folded form, counts
 *   its longest branch only. `if (a) return; b();` is 2, as its folded form `a || b();`;
 * - nested functions and classes count 1 where they stand; their bodies are their own;
 * - an expression statement counts the statements a minifier folds into one: `a(), b()` is 2;
 *   `a && b()` is 2, as `if (a) b();`, and `a && b && c()` too, as `if (a && b) c();` (the left
 *   operand is the test); `c ? d() : e()` is 2, as `if (c) d(); else e();`; an assignment of them
 *   counts the same: `x = c ? d : e` is 2;
 * - `var a = 1, b = 2` counts one per declarator; `return a(), b` counts its sequence, and `if (a(), b)`
 *   counts as `a(); if (b)`.
 *
 * A `break` or `continue` is taken to go on after the innermost loop, `switch` or labelled statement
 * around it (one naming a target further out can only make the count longer). It reads only `type`
 * and child fields common to Babel's AST and ESTree, so every front end shares it.
 */

import { PolicyOptions } from './options';

type Node = { type: string; [key: string]: any };

const FUNCTION_TYPES = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ObjectMethod',
  'ClassMethod',
  'ClassPrivateMethod',
]);

/** Calls and `new`, in Babel's AST and in ESTree. */
export const CALL_TYPES = new Set(['CallExpression', 'OptionalCallExpression', 'NewExpression']);

/** The expression inside any parentheses (and ESTree's optional chain). */
export function withoutParentheses<T extends Node>(node: T): T {
  while (node.type === 'ParenthesizedExpression' || node.type === 'ChainExpression') node = node.expression;
  return node;
}

export function isFunctionNode(node: Node | null | undefined): boolean {
  return !!node && FUNCTION_TYPES.has(node.type);
}

/** Keys that hold no child node, in Babel's AST and in ESTree. */
const NOT_CHILDREN = new Set(['type', 'start', 'end', 'loc', 'range', 'extra', 'leadingComments', 'trailingComments', 'innerComments', 'comments']);

/** Calls `fn` with each child node of `node`, in Babel's AST or ESTree. */
export function forEachChild<T extends Node>(node: T, fn: (child: T) => void): void {
  for (const key in node) {
    const value: any = node[key];
    if (value === null || typeof value !== 'object' || NOT_CHILDREN.has(key)) continue;
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === 'string') fn(child);
    } else if (typeof value.type === 'string') {
      fn(value);
    }
  }
}

/** Effects chained in an expression used as a statement (or as a `return`/`throw` argument), on its longest path. */
export function countExpression(node: Node | null | undefined): number {
  if (!node) return 1;
  switch (node.type) {
    case 'SequenceExpression':
      return node.expressions.reduce((sum: number, e: Node) => sum + countExpression(e), 0);
    case 'LogicalExpression':
      // The `if` it folds: `a && b()` is `if (a) b();`, and `a && b && c()` is `if (a && b) c();`.
      return 1 + countExpression(node.right);
    case 'ConditionalExpression':
      return 1 + Math.max(countExpression(node.consequent), countExpression(node.alternate));
    case 'AssignmentExpression':
      return countExpression(node.right);
    case 'ParenthesizedExpression':
      return countExpression(node.expression);
    case 'UnaryExpression':
      // `!function(){}()` and `void a()` are statements in minified code.
      return node.operator === '!' || node.operator === 'void' ? countExpression(node.argument) : 1;
    default:
      return 1;
  }
}

function isBareReturn(node: Node): boolean {
  if (node.type === 'BlockStatement') return node.body.length === 1 && isBareReturn(node.body[0]);
  return node.type === 'ReturnStatement' && !node.argument;
}

/** A `return` or `throw` argument: its conditional's tests are guard clauses folded into it (`if (a) return b; return c;`), and do not count. */
function countLeaving(node: Node): number {
  if (node.type === 'ConditionalExpression') return Math.max(countLeaving(node.consequent), countLeaving(node.alternate));
  if (node.type === 'ParenthesizedExpression') return countLeaving(node.expression);
  return countExpression(node);
}

/**
 * The longest paths through a piece of code that end each way: by going on to what follows
 * (`next`), at a `break` or `continue` (`jump`), or at a `return` or `throw` (`exit`); -Infinity
 * where it cannot end that way.
 */
interface Paths {
  next: number;
  jump: number;
  exit: number;
}

const NEVER = -Infinity;

function paths(next: number, jump = NEVER, exit = NEVER): Paths {
  return { next, jump, exit };
}

/** `a` and then `b`. */
function then(a: Paths, b: Paths): Paths {
  return paths(a.next + b.next, Math.max(a.jump, a.next + b.jump), Math.max(a.exit, a.next + b.exit));
}

/** Either `a` or `b`. */
function either(a: Paths, b: Paths): Paths {
  return paths(Math.max(a.next, b.next), Math.max(a.jump, b.jump), Math.max(a.exit, b.exit));
}

function longest(p: Paths): number {
  return Math.max(p.next, p.jump, p.exit, 0);
}

/** A loop, `switch` or labelled statement, where the paths ending at a `break` or `continue` go on. */
function catchingJumps(p: Paths): Paths {
  return paths(Math.max(p.next, p.jump), NEVER, p.exit);
}

function statementPaths(node: Node | null | undefined): Paths {
  if (!node) return paths(0);
  switch (node.type) {
    case 'BlockStatement':
    case 'StaticBlock':
    case 'Program':
      return listPaths(node.body);
    case 'ExpressionStatement':
      return paths(node.directive !== undefined ? 0 : countExpression(node.expression));
    case 'VariableDeclaration':
      return paths(Math.max(1, node.declarations.length));
    case 'ReturnStatement':
    case 'ThrowStatement':
      return paths(NEVER, NEVER, node.argument ? countLeaving(node.argument) : 1);
    case 'BreakStatement':
    case 'ContinueStatement':
      return paths(NEVER, 1);
    case 'IfStatement': {
      const consequent = statementPaths(node.consequent);
      // A guard clause (`if (a) return b;`, no `else`) is a test on the way out: it does not count,
      // as its folded form `return a ? b : …` does not. A bare `if (a) return;` does, as its folded
      // form `a || b();` does.
      const guard = !node.alternate && consequent.next === NEVER && consequent.jump === NEVER && !isBareReturn(node.consequent);
      // `if (a(), b)` is `a(); if (b)`, as a minifier folds it.
      const before = node.test?.type === 'SequenceExpression' ? node.test.expressions.slice(0, -1) : [];
      const test = before.reduce((sum: number, e: Node) => sum + countExpression(e), guard ? 0 : 1);
      return then(paths(test), either(consequent, statementPaths(node.alternate)));
    }
    case 'ForStatement':
    case 'ForInStatement':
    case 'ForOfStatement':
    case 'WhileStatement':
    case 'DoWhileStatement':
    case 'LabeledStatement':
      return then(paths(1), catchingJumps(either(paths(0), statementPaths(node.body))));
    case 'WithStatement':
      return then(paths(1), statementPaths(node.body));
    case 'TryStatement': {
      const block = statementPaths(node.block);
      // The handler may run after any part of the block; the finalizer after however they ended.
      const handled = node.handler ? either(block, then(paths(longest(block)), statementPaths(node.handler.body))) : block;
      const finalizer = statementPaths(node.finalizer);
      const any = longest(handled);
      return then(
        paths(1),
        paths(handled.next + finalizer.next, Math.max(handled.jump + finalizer.next, any + finalizer.jump), Math.max(handled.exit + finalizer.next, any + finalizer.exit)),
      );
    }
    case 'SwitchStatement': {
      // From each label, the cases run on until a `break`.
      let fromHere = paths(0);
      let longestCase = paths(0);
      for (let i = node.cases.length - 1; i >= 0; i--) {
        fromHere = then(listPaths(node.cases[i].consequent), fromHere);
        longestCase = either(longestCase, fromHere);
      }
      return then(paths(1), catchingJumps(longestCase));
    }
    case 'EmptyStatement':
      return paths(0);
    default:
      return paths(1);
  }
}

function listPaths(list: Node[] = []): Paths {
  let result = paths(0);
  for (let i = list.length - 1; i >= 0; i--) result = then(statementPaths(list[i]), result);
  return result;
}

/** The count for a statement (a static block's, for one). */
export function countStatement(node: Node | null | undefined): number {
  return longest(statementPaths(node));
}

/** The statements of a function's body or a static block; null for an arrow's expression body. */
function statementsOf(body: Node): Node[] | null {
  return body.type === 'BlockStatement' || body.type === 'StaticBlock' || body.type === 'FunctionBody' ? (body.body ?? body.stmts) : null;
}

/** The count for a function's body (or a static block); an expression-bodied arrow counts like `return <expr>`. */
export function countFunctionBody(body: Node): number {
  const statements = statementsOf(body);
  return statements ? longest(listPaths(statements)) : countLeaving(body);
}

const LOOP_TYPES = new Set(['ForStatement', 'ForInStatement', 'ForOfStatement', 'WhileStatement', 'DoWhileStatement']);

export function isLoopNode(node: Node): boolean {
  return LOOP_TYPES.has(node.type);
}

/**
 * Whether a statement (a function's body, a static block) holds a loop of its own, not one of a nested
 * function or class. Loops are statements, and only functions and classes put statements in
 * expressions, so the statements are all there is to look through.
 */
export function hasOwnLoop(node: Node | null | undefined): boolean {
  if (!node) return false;
  if (isLoopNode(node)) return true;
  switch (node.type) {
    case 'BlockStatement':
    case 'StaticBlock':
    case 'Program':
    case 'FunctionBody':
      return (node.body ?? node.stmts).some(hasOwnLoop);
    case 'IfStatement':
      return hasOwnLoop(node.consequent) || hasOwnLoop(node.alternate);
    case 'LabeledStatement':
    case 'WithStatement':
      return hasOwnLoop(node.body);
    case 'TryStatement':
      return hasOwnLoop(node.block) || hasOwnLoop(node.handler?.body) || hasOwnLoop(node.finalizer);
    case 'SwitchStatement':
      return node.cases.some((c: Node) => c.consequent.some(hasOwnLoop));
    default:
      return false;
  }
}

/**
 * Whether a statement holds a `with` statement of its own (not one of a nested function or class).
 * Inside a `with` body every name is looked up on its object first, the checks' names and the
 * exit check's return value too: a sandbox's Proxy would see them, or answer for them.
 */
function hasOwnWith(node: Node | null | undefined): boolean {
  if (!node) return false;
  if (node.type === 'WithStatement') return true;
  switch (node.type) {
    case 'BlockStatement':
    case 'StaticBlock':
    case 'FunctionBody':
      return (node.body ?? node.stmts).some(hasOwnWith);
    case 'IfStatement':
      return hasOwnWith(node.consequent) || hasOwnWith(node.alternate);
    case 'LabeledStatement':
      return hasOwnWith(node.body);
    case 'TryStatement':
      return hasOwnWith(node.block) || hasOwnWith(node.handler?.body) || hasOwnWith(node.finalizer);
    case 'SwitchStatement':
      return node.cases.some((c: Node) => c.consequent.some(hasOwnWith));
    default:
      return isLoopNode(node) && hasOwnWith(node.body);
  }
}

/**
 * `jest.mock(path, factory)`: babel-plugin-jest-hoist (in babel-jest) refuses to compile a factory
 * that names anything from outside it but a few globals, the checks' names among them.
 */
function isJestMockCall(node: Node): boolean {
  const callee = node.type === 'CallExpression' ? node.callee : null;
  return callee?.type === 'MemberExpression' && !callee.computed && callee.object.type === 'Identifier' && callee.object.name === 'jest' && callee.property.type === 'Identifier' && callee.property.name === 'mock';
}

/**
 * Whether a function (or a static block) gets checks: one whose count reaches the threshold, and
 * (with `loopingFunctions`) one with a loop of its own, which may run for any time whatever its count.
 * An empty one never does, nor one inside a `with` statement or holding one (see hasOwnWith), nor one
 * inside a `jest.mock` call (isJestMockCall): `ancestors` are the nodes above it, nearest first.
 */
export function shouldInstrumentFunction(node: Node, options: Pick<PolicyOptions, 'threshold' | 'loopingFunctions'>, ancestors: readonly Node[] = []): boolean {
  const body = node.type === 'StaticBlock' ? node : node.body;
  if (hasOwnWith(body) || ancestors.some((a) => a.type === 'WithStatement' || isJestMockCall(a))) return false;
  const count = countFunctionBody(body);
  if (count === 0) return false;
  return count >= options.threshold || (options.loopingFunctions && hasOwnLoop(body));
}

/** Statements that may stand before a guard clause in a body's guard prefix. */
const PREFIX_STATEMENTS = new Set(['ExpressionStatement', 'VariableDeclaration', 'EmptyStatement']);

/**
 * How many of a body's first statements (directives left out) run before its entry check, its
 * guard prefix: a run of expression statements and declarations up to the last guard clause in it
 * (an `if` without `else` whose branch always leaves the function, by `return` or `throw`). A call
 * that leaves at a guard runs no check at all: the few statements it ran go to the next check, in
 * its caller. None where the prefix names something the rest of the body declares for its block
 * (let, const, class, a function declaration), which the labelled block around the rest (check.ts)
 * would hide from it; and never the whole body.
 */
export function guardPrefixLength(statements: Node[]): number {
  let length = 0;
  for (let i = 0; i < statements.length - 1; i++) {
    const statement = statements[i];
    if (statement.type === 'IfStatement') {
      if (!isGuardClause(statement)) break;
      length = i + 1;
    } else if (!PREFIX_STATEMENTS.has(statement.type)) {
      break;
    }
  }
  if (length === 0) return 0;
  const declaredLater = new Set(statements.slice(length).flatMap(blockScopedNames));
  const named = statements.slice(0, length).flatMap((statement) => identifierNames(statement));
  return named.some((name) => declaredLater.has(name)) ? 0 : length;
}

function isGuardClause(node: Node): boolean {
  const consequent = statementPaths(node.consequent);
  return !node.alternate && consequent.next === NEVER && consequent.jump === NEVER;
}

const BLOCK_DECLARATIONS = new Set(['ClassDeclaration', 'FunctionDeclaration', 'TSEnumDeclaration', 'TSModuleDeclaration']);

/** The names a statement declares for the block it stands in. */
function blockScopedNames(statement: Node): string[] {
  if (statement.type === 'VariableDeclaration') return statement.kind === 'var' ? [] : statement.declarations.flatMap((d: Node) => identifierNames(d.id));
  return BLOCK_DECLARATIONS.has(statement.type) && statement.id ? identifierNames(statement.id) : [];
}

/** Every identifier's name in a node (property keys too: a name too many only costs the prefix). */
function identifierNames(node: Node, names: string[] = []): string[] {
  if (node.type === 'Identifier' || node.type === 'JSXIdentifier') names.push(node.name);
  forEachChild(node, (child) => identifierNames(child, names));
  return names;
}
