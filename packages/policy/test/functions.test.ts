/**
 * Function names and V8 starts from ESTree (acorn) equal those from Babel's AST; the small helpers
 * (line index, trivia, innermost function) handle the edge cases.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as acorn from 'acorn';
import { parse } from '@babel/parser';
import { FunctionRecord, LineIndex, functionAt, functionName, skipTrivia, v8FunctionStart } from '../src/functions';

const FORMS = fs.readFileSync(path.join(__dirname, '../../../fixtures/corpus/forms.js'), 'utf8');

type Node = { type: string; start: number; end: number; [key: string]: any };

/** Every function (and constructor-less class) with its ancestors, nearest first, in source order. */
function functionsOf(root: Node, isFunction: (n: Node) => boolean): Array<{ node: Node; ancestors: Node[] }> {
  const found: Array<{ node: Node; ancestors: Node[] }> = [];
  const visit = (node: Node, ancestors: Node[]) => {
    const isClass = node.type === 'ClassDeclaration' || node.type === 'ClassExpression';
    const hasConstructor = isClass && node.body.body.some((m: Node) => m.kind === 'constructor');
    if (isFunction(node) || (isClass && !hasConstructor)) found.push({ node, ancestors });
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc' || !value || typeof value !== 'object') continue;
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child && typeof child.type === 'string') visit(child, [node, ...ancestors]);
      }
    }
  };
  visit(root, []);
  return found.sort((a, b) => a.node.start - b.node.start);
}

function describeAll(source: string, root: Node, isFunction: (n: Node) => boolean) {
  const lines = new LineIndex(source);
  return functionsOf(root, isFunction).map(({ node, ancestors }) => {
    const { line, column } = lines.position(v8FunctionStart(source, node));
    return `${functionName(node, ancestors)}@${line}:${column}`;
  });
}

const babelFunction = (n: Node) => /Function|Method/.test(n.type) && n.type !== 'TSDeclareMethod';
const estreeFunction = (n: Node) => /Function(Declaration|Expression)$/.test(n.type);

test('ESTree and Babel ASTs give the same names and starts for every form', () => {
  const babel = describeAll(FORMS, parse(FORMS).program as any, babelFunction);
  // acorn puts a method's FunctionExpression at its `(`: sort order differs only by that.
  const estree = describeAll(FORMS, acorn.parse(FORMS, { ecmaVersion: 'latest' }) as any, estreeFunction);
  expect(estree.slice().sort()).toEqual(babel.slice().sort());
  expect(babel).toContain('get g@16:8');
  expect(babel).toContain('Foo.bar@42:30');
  expect(babel.length).toBeGreaterThan(50);
});

test('v8FunctionStart skips comments between the name and the parameters', () => {
  const src = 'function /* ( */ f // (\n /* ( */ (a) {}';
  const fn: any = parse(src).program.body[0];
  expect(v8FunctionStart(src, fn)).toBe(src.lastIndexOf('(a)'));
});

test('functionName falls back to V8 inference only when there is no ECMAScript name', () => {
  const src = 'o.p = function q() {}; o.r = class {}; o.s = class S {};';
  const names = functionsOf(parse(src).program as any, babelFunction).map(({ node, ancestors }) => functionName(node, ancestors));
  expect(names).toEqual(['q', 'o.r', 'S']);
});

describe('LineIndex', () => {
  test('1-based lines and columns across \\n, \\r\\n, \\r and U+2028', () => {
    const src = 'a\nbc\r\nd\re\u2028f';
    const lines = new LineIndex(src);
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((ch) => lines.position(src.indexOf(ch)))).toEqual([
      { line: 1, column: 1 },
      { line: 2, column: 1 },
      { line: 2, column: 2 },
      { line: 3, column: 1 },
      { line: 4, column: 1 },
      { line: 5, column: 1 },
    ]);
    expect(lines.offset(2, 2)).toBe(src.indexOf('c'));
    expect(lines.offset(9, 1)).toBe(-1);
  });
});

test('skipTrivia stops at the first token', () => {
  const src = '  // line\n /* block */\t\u00a0x';
  expect(skipTrivia(src, 0)).toBe(src.indexOf('x'));
  expect(skipTrivia('/* unterminated', 0)).toBe(15);
});

test('functionAt finds the innermost function holding an offset', () => {
  const record = (start: number, end: number, name: string): FunctionRecord => ({ start, end, bodyStart: start + 1, name, ecmaName: name, line: 1, column: 1, instrumented: false });
  const records = [record(0, 100, 'outer'), record(10, 50, 'inner'), record(20, 30, 'innermost'), record(60, 70, 'sibling')];
  expect(functionAt(records, 5)?.name).toBe('outer');
  expect(functionAt(records, 25)?.name).toBe('innermost');
  expect(functionAt(records, 40)?.name).toBe('inner');
  expect(functionAt(records, 65)?.name).toBe('sibling');
  expect(functionAt(records, 80)?.name).toBe('outer');
  expect(functionAt(records, 100)).toBeUndefined();
});
