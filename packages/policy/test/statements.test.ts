/** The statement count: minified code counts about what its readable source counts. */
import { parse } from '@babel/parser';
import * as acorn from 'acorn';
import { countFunctionBody, countStatement, isFunctionNode } from '../src/statements';

/** Count of the body of the first function in `source` (Babel's AST). */
function count(body: string): number {
  const fn: any = parse(`function f() { ${body} }`).program.body[0];
  return countFunctionBody(fn.body);
}

/** The same with an ESTree AST (acorn). */
function countEstree(body: string): number {
  const fn: any = (acorn.parse(`function f() { ${body} }`, { ecmaVersion: 'latest' }) as any).body[0];
  return countFunctionBody(fn.body);
}

describe('minified forms count like the readable forms they come from', () => {
  const PAIRS: Array<[string, string, number]> = [
    ['a(); b(); c();', 'a(), b(), c();', 3],
    ['if (x) y();', 'x && y();', 2],
    ['if (!x) y();', 'x || y();', 2],
    ['if (x) a(); else b();', 'x ? a() : b();', 3],
    ['if (x) { a(); b(); }', 'x && (a(), b());', 3],
    ['var a = 1; var b = 2; var c;', 'var a = 1, b = 2, c;', 3],
    ['let a = 1; let b = 2;', 'let a = 1, b = 2;', 2],
    ['a(); return b;', 'return a(), b;', 2],
    ['if (x) return a; return b;', 'return x ? a : b;', 3],
    ['if (x) { a(); return b; } c();', 'if (x) return a(), b; c();', 4],
    ['if (x) { y = 1; } else { y = 2; }', 'y = x ? 1 : 2;', 3],
    ['a(); y = b;', 'y = (a(), b);', 2],
    ['(function () { a(); b(); })();', '!function () { a(); b(); }();', 1],
    ['g(); void h();', 'g(), void h();', 2],
    ['for (var i = 0; i < n; i++) { a(i); b(i); }', 'for (var i = 0; i < n; i++) a(i), b(i);', 3],
    ['while (x) { if (y) { z(); } }', 'for (; x;) y && z();', 3],
    ['if (a) { throw e; }', 'if (a) throw e;', 2],
    ['if (a) { b(); } else if (c) { d(); } else { e(); }', 'a ? b() : c ? d() : e();', 5],
  ];

  test.each(PAIRS)('%s  ~  %s', (readable, minified, expected) => {
    expect(count(readable)).toBe(expected);
    expect(count(minified)).toBe(expected);
  });

  test('an early return folded into || stays within one', () => {
    expect(count('if (a) return; b();')).toBe(3);
    expect(count('a || b();')).toBe(2);
  });
});

describe('what counts', () => {
  test.each([
    ['', 0],
    [';;;', 0],
    ['"use strict";', 0],
    ['"use strict"; a();', 1],
    ['{ a(); { b(); } }', 2],
    ['function g() { a(); b(); c(); } class K { m() { a(); } } const h = () => { a(); b(); };', 3],
    ['try { a(); } catch (e) { b(); } finally { c(); }', 4],
    ['try { a(); } catch { }', 2],
    ['switch (x) { case 1: a(); break; case 2: default: b(); }', 1 + 1 + 2 + 1 + 1],
    ['label: for (const k in o) { if (k) continue label; }', 4],
    ['do { a(); } while (x);', 2],
    ['x = function () { a(); b(); };', 1],
    ['return;', 1],
    ['debugger;', 1],
  ])('%j counts %d', (body, expected) => {
    expect(count(body)).toBe(expected);
  });

  test('an expression-bodied arrow counts like `return <expr>`', () => {
    const arrow: any = (parse('(a) => a ? b() : (c(), d())').program.body[0] as any).expression;
    expect(countFunctionBody(arrow.body)).toBe(4);
    expect(count('return a ? b() : (c(), d());')).toBe(4);
  });

  test('a static block counts its statements', () => {
    const cls: any = parse('class K { static { a(); b(); } }').program.body[0];
    expect(countStatement(cls.body.body[0])).toBe(2);
  });

  test('ESTree (acorn) counts the same as Babel, directives included', () => {
    for (const body of ['"use strict"; a(); b();', 'x ? a() : b();', 'var a, b; return a(), b;', 'if (x) { y(); }']) {
      expect(countEstree(body)).toBe(count(body));
    }
  });

  test('isFunctionNode knows every function node type', () => {
    const types = ['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod'];
    for (const type of types) expect(isFunctionNode({ type })).toBe(true);
    expect(isFunctionNode({ type: 'ClassDeclaration' })).toBe(false);
    expect(isFunctionNode(null)).toBe(false);
  });
});
