/** The statement count: the longest path through a call, and minified code counts about what its readable source counts. */
import { parse } from '@babel/parser';
import * as acorn from 'acorn';
import { countFunctionBody, countStatement, guardPrefixLength, hasOwnLoop, isFunctionNode, shouldInstrumentFunction } from '../src/statements';

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
    ['if (x) a(); else b();', 'x ? a() : b();', 2],
    ['if (x) { a(); b(); }', 'x && (a(), b());', 3],
    ['var a = 1; var b = 2; var c;', 'var a = 1, b = 2, c;', 3],
    ['let a = 1; let b = 2;', 'let a = 1, b = 2;', 2],
    ['a(); return b;', 'return a(), b;', 2],
    ['if (x) return a; return b;', 'return x ? a : b;', 1],
    ['if (x) return a; if (y) return b; return c;', 'return x ? a : y ? b : c;', 1],
    ['if (x) { a(); return b; } c();', 'if (x) return a(), b; c();', 2],
    ['if (x) { y = 1; } else { y = 2; }', 'y = x ? 1 : 2;', 2],
    ['if (x && y) z();', 'x && y && z();', 2],
    ['if (x || y) z();', '(x || y) && z();', 2],
    ['a(); y = b;', 'y = (a(), b);', 2],
    ['(function () { a(); b(); })();', '!function () { a(); b(); }();', 1],
    ['g(); void h();', 'g(), void h();', 2],
    ['for (var i = 0; i < n; i++) { a(i); b(i); }', 'for (var i = 0; i < n; i++) a(i), b(i);', 3],
    ['while (x) { if (y) { z(); } }', 'for (; x;) y && z();', 3],
    ['if (a) { throw e; }', 'if (a) throw e;', 1],
    ['a(); if (b) c();', 'if (a(), b) c();', 3],
    ['a(); if (b) return c; d();', 'if (a(), b) return c; d();', 2],
    ['a(); if (b && c) d();', 'if (a(), b && c) d();', 3],
    ['if (a) { b(); } else if (c) { d(); } else { e(); }', 'a ? b() : c ? d() : e();', 3],
  ];

  test.each(PAIRS)('%s  ~  %s', (readable, minified, expected) => {
    expect(count(readable)).toBe(expected);
    expect(count(minified)).toBe(expected);
  });

  test('an early return folded into ||', () => {
    expect(count('if (a) return; b();')).toBe(2);
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
    ['switch (x) { case 1: a(); break; case 2: default: b(); }', 1 + 2],
    ['label: for (const k in o) { if (k) continue label; }', 4],
    ['do { a(); } while (x);', 2],
    ['x = function () { a(); b(); };', 1],
    ['return;', 1],
    ['debugger;', 1],
  ])('%j counts %d', (body, expected) => {
    expect(count(body)).toBe(expected);
  });

  test.each([
    ['if (a) return b; c(); d();', 2],
    ['if (a) { b(); c(); d(); } else { e(); }', 4],
    ['switch (x) { case 1: return a(); case 2: return b(); case 3: return c(); default: return d(); }', 2],
    ['switch (x) { case 1: a(); case 2: b(); break; default: c(); }', 1 + 3],
    ['for (;;) { if (a) break; b(); c(); } d();', 1 + 3 + 1],
    ['while (a) { if (b) continue; c(); } d();', 1 + 2 + 1],
    ['outer: for (;;) { for (;;) { if (a) break outer; b(); } c(); }', 1 + 1 + 1 + 2 + 1],
    ['try { return a(); } finally { b(); }', 1 + 1 + 1],
    ['try { a(); b(); } catch (e) { c(); }', 1 + 2 + 1],
    ['try { a(); } finally { return b(); }', 1 + 1 + 1],
    ['if (c < 48) return c === 36; if (c < 58) return true; if (c < 65) return false; return c < 91;', 1],
  ])('one call runs at most the longest path: %j counts %d', (body, expected) => {
    expect(count(body)).toBe(expected);
    expect(countEstree(body)).toBe(expected);
  });

  test('an expression-bodied arrow counts like `return <expr>`', () => {
    const arrow: any = (parse('(a) => a ? b() : (c(), d())').program.body[0] as any).expression;
    expect(countFunctionBody(arrow.body)).toBe(2);
    expect(count('return a ? b() : (c(), d());')).toBe(2);
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

describe('which functions get checks', () => {
  const fn = (source: string): any => parse(source).program.body[0];
  const policy = { threshold: 10, loopingFunctions: true };

  test('one whose longest path reaches the threshold', () => {
    const branches = Array.from({ length: 12 }, (_, i) => `if (x === ${i}) return ${i};`).join(' ');
    expect(shouldInstrumentFunction(fn(`function f(x) { ${'a(); '.repeat(10)} }`), policy)).toBe(true);
    expect(shouldInstrumentFunction(fn(`function f(x) { ${'a(); '.repeat(9)} }`), policy)).toBe(false);
    // twelve guard clauses and a call after them: tests on the way out do not count
    expect(shouldInstrumentFunction(fn(`function f(x) { ${branches} a(); }`), { ...policy, threshold: 1 })).toBe(true);
    expect(shouldInstrumentFunction(fn(`function f(x) { ${branches} a(); }`), { ...policy, threshold: 2 })).toBe(false);
    // twelve tests that do not leave: each counts
    expect(shouldInstrumentFunction(fn(`function f(x) { ${branches.replace(/return/g, 'y =')} }`), policy)).toBe(true);
  });

  test('one with a loop of its own, whatever its count, unless loopingFunctions is off', () => {
    const looping = fn('function f(a) { let s = 0; for (const x of a) s += x; return s; }');
    expect(countFunctionBody(looping.body)).toBe(4);
    expect(shouldInstrumentFunction(looping, policy)).toBe(true);
    expect(shouldInstrumentFunction(looping, { ...policy, loopingFunctions: false })).toBe(false);
  });

  test("one inside a jest.mock call never (babel-jest's hoisting refuses the checks' names there)", () => {
    const call: any = (acorn.parse("jest.mock('./a', () => { for (;;) return { f() { a(); } }; });", { ecmaVersion: 'latest' }) as any).body[0].expression;
    const factory = call.arguments[1];
    expect(shouldInstrumentFunction(factory, policy, [call])).toBe(false);
    expect(shouldInstrumentFunction(factory, policy, [{ ...call, callee: { ...call.callee, property: { type: 'Identifier', name: 'doMock' } } }])).toBe(true);
  });

  test('an empty function never, even at threshold 0', () => {
    expect(shouldInstrumentFunction(fn('function f() {}'), { threshold: 0, loopingFunctions: true })).toBe(false);
    expect(shouldInstrumentFunction(fn('function f() { a(); }'), { threshold: 0, loopingFunctions: true })).toBe(true);
  });

  test.each([
    ['for (;;) break;', true],
    ['if (a) { try { b(); } finally { while (c) d(); } }', true],
    ['switch (a) { case 1: do b(); while (c); }', true],
    ['label: for (const k in o) ;', true],
    ['const g = () => { for (;;) break; }; class K { m() { while (a); } static { for (;;); } }', false],
    ['a(); return [1, 2].map((x) => { for (;;) return x; });', false],
  ])('hasOwnLoop %j is %s (loops of nested functions and classes are theirs)', (body, expected) => {
    expect(hasOwnLoop(fn(`function f() { ${body} }`).body)).toBe(expected);
  });

  test('a static block with a loop of its own', () => {
    const block: any = (parse('class K { static { for (;;) break; } }').program.body[0] as any).body.body[0];
    expect(shouldInstrumentFunction(block, policy)).toBe(true);
    expect(shouldInstrumentFunction(block, { ...policy, loopingFunctions: false })).toBe(false);
  });
});

describe('the guard prefix: the statements before the entry check', () => {
  const prefixOf = (body: string) => guardPrefixLength((parse(`function f() { ${body} }`).program.body[0] as any).body.body);
  const prefixOfEstree = (body: string) => guardPrefixLength((acorn.parse(`function f() { ${body} }`, { ecmaVersion: 'latest' }) as any).body[0].body.body);

  test.each([
    ['var ch = s.charCodeAt(0); if (ch !== 33) return false; a(); b();', 2],
    ['const n = x.length; ; if (!n) return; if (n > 9) throw new RangeError(); let y = a(n); return y;', 4],
    ['if (a) { b(); return c; } d();', 1],
    // the run ends at the last guard clause in it
    ['if (a) return 1; b(); for (;;) break; if (c) return 2;', 1],
    ['a(); b();', 0],
    ['if (a) return 1; else b(); c();', 0],
    ['if (a) b(); c();', 0],
    ['for (;;) break; if (a) return; b();', 0],
    // never the whole body
    ['if (a) return 1; if (b) return 2;', 1],
    ['if (a) return 1;', 0],
  ])('%j: %d', (body, expected) => {
    expect(prefixOf(body)).toBe(expected);
    expect(prefixOfEstree(body)).toBe(expected);
  });

  test('none where the prefix names what the rest declares for its block, which the labelled body would hide', () => {
    expect(prefixOf('const f = () => later; if (!x) return f; let later = 1; g();')).toBe(0);
    expect(prefixOf('if (!valid(x)) return; g(); function valid(v) { return v; }')).toBe(0);
    expect(prefixOf('if (!x) return new K(); a(); class K {}')).toBe(0);
    expect(prefixOf('if (!x) return; const { a, b: [c] } = x; c();')).toBe(1);
    expect(prefixOf('if (!c) return; const { a, b: [c] } = x; c();')).toBe(0);
    // `var`s are the function's: the prefix sees them wherever they are declared
    expect(prefixOf('if (!later) return; var later = 1; g();')).toBe(1);
  });
});
