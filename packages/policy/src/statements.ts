/**
 * The statement count that decides whether a function gets a check.
 *
 * It counts what a function *does*, in a way a minifier cannot shrink much:
 * - every statement counts 1, and statements in nested blocks, branches and loop bodies count too;
 * - nested functions and classes count 1 where they stand; their bodies are their own;
 * - an expression statement counts the effects it chains: `a(), b()` is 2, `a && b()` is 2,
 *   `c ? d() : e()` is 3 (the same as the `if` a minifier folded it from), and so does an
 *   assignment of them: `x = c ? d : e` is 3, as `if (c) x = d; else x = e;`;
 * - `var a = 1, b = 2` counts one per declarator; `return a(), b` counts its sequence like a statement.
 *
 * It reads only `type` and child fields common to Babel's AST and ESTree, so every front end shares it.
 */

type Node = { type: string; [key: string]: any };

const FUNCTION_TYPES = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ObjectMethod',
  'ClassMethod',
  'ClassPrivateMethod',
]);

export function isFunctionNode(node: Node | null | undefined): boolean {
  return !!node && FUNCTION_TYPES.has(node.type);
}

/** Effects chained in an expression used as a statement (or as a `return`/`throw` argument). */
export function countExpression(node: Node | null | undefined): number {
  if (!node) return 1;
  switch (node.type) {
    case 'SequenceExpression':
      return node.expressions.reduce((sum: number, e: Node) => sum + countExpression(e), 0);
    case 'LogicalExpression':
      return countExpression(node.left) + countExpression(node.right);
    case 'ConditionalExpression':
      return 1 + countExpression(node.consequent) + countExpression(node.alternate);
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

export function countStatement(node: Node | null | undefined): number {
  if (!node) return 0;
  switch (node.type) {
    case 'BlockStatement':
    case 'StaticBlock':
    case 'Program':
      return countList(node.body);
    case 'ExpressionStatement':
      return node.directive !== undefined ? 0 : countExpression(node.expression);
    case 'VariableDeclaration':
      return Math.max(1, node.declarations.length);
    case 'ReturnStatement':
    case 'ThrowStatement':
      return node.argument ? countExpression(node.argument) : 1;
    case 'IfStatement':
      return 1 + countStatement(node.consequent) + countStatement(node.alternate);
    case 'ForStatement':
    case 'ForInStatement':
    case 'ForOfStatement':
    case 'WhileStatement':
    case 'DoWhileStatement':
    case 'LabeledStatement':
    case 'WithStatement':
      return 1 + countStatement(node.body);
    case 'TryStatement':
      return (
        1 +
        countStatement(node.block) +
        (node.handler ? countStatement(node.handler.body) : 0) +
        countStatement(node.finalizer)
      );
    case 'SwitchStatement':
      return (
        1 +
        node.cases.reduce((sum: number, c: Node) => sum + (c.test ? 1 : 0) + countList(c.consequent), 0)
      );
    case 'EmptyStatement':
      return 0;
    default:
      return 1;
  }
}

function countList(list: Node[] | undefined): number {
  let sum = 0;
  for (const s of list ?? []) sum += countStatement(s);
  return sum;
}

/** The count for a function's body; an expression-bodied arrow counts like `return <expr>`. */
export function countFunctionBody(body: Node): number {
  if (body.type === 'BlockStatement' || body.type === 'FunctionBody') return countList(body.body ?? body.stmts);
  return countExpression(body);
}
