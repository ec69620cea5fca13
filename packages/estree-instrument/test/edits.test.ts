/**
 * Edits that cannot change what a program computes: semicolon-less code around moved function
 * declarations, edits sharing an offset, `with` statements, output that would not parse, and
 * files nested too deeply to walk.
 */
import * as vm from 'node:vm';
import { CHECK_SOURCE } from '@jsprof/policy';
import { instrument, parseJs, JsSyntaxError, MAX_NESTING, TooDeeplyNestedError } from '../src';
import { FakeRuntime } from '../../babel-plugin/test/helpers';
import { instrument as babelInstrument } from '../../babel-plugin/test/helpers';

const run = (code: string, options: object) => instrument({ code, program: parseJs(code, 'case.js'), filename: 'case.js' }, options).code;
const evaluate = (code: string, globals: object = {}) => vm.runInNewContext(code, { ...globals });

/** Each computes the same with checks that always fire, without the runtime, and through both fronts. */
function expectSameResult(code: string, options: object = { threshold: 1 }) {
  const expected = evaluate(code);
  const outputs = { estree: run(code, options), babel: babelInstrument(code, options).code };
  for (const [front, out] of Object.entries(outputs)) {
    const runtime = new FakeRuntime();
    expect([front, evaluate(out, { __jsprof: runtime.hook })]).toEqual([front, expected]);
    expect([front, evaluate(out)]).toEqual([front, expected]);
    expect(runtime.calls).toBeGreaterThan(0);
  }
}

describe('semicolon-less code: a function declaration moved out of the labelled body leaves its neighbours apart', () => {
  test('an array literal on the line after', () => {
    expectSameResult(`function sum(list) {
  var total = 0
  function add(x) { total += x }
  [1, 2, 3].forEach(add)
  for (const x of list) add(x)
  return total
}
sum([4])`);
  });

  test('a regular expression on the line after', () => {
    expectSameResult(`function count(lines) {
  var n = 0
  function inc() { n++ }
  /^#/.test(lines[0]) && inc()
  if (n) return n
  return -1
}
count(['#a'])`);
  });

  test('a template on the line after (a tagged template if they ran together)', () => {
    expectSameResult("function g() {\n  var t = 'x'\n  function h() {}\n  `a${t}`\n  if (t) return t + h.name\n  return 0\n}\ng()");
  });

  test('an expression ending in a function, with no semicolon, before a declaration', () => {
    expectSameResult('function f() {\n  var x = function () { return 2 }\n  function y() { return 3 }\n  (x)\n  return x() + y()\n}\nf()');
  });
});

describe('edits at one offset compose', () => {
  test.each([{ loops: true }, { loops: false }])('a `return` that is the whole body of a loop, with loops: $loops', ({ loops }) => {
    expectSameResult('function f(a) { for (var i = 0; i < a.length; i++) if (a[i] > 1) return a[i]; return -1 } f([1, 1, 5, 7])', { threshold: 1, loops });
    expectSameResult('function f(a) { for (;;) return a } f(3)', { threshold: 1, loops });
    expectSameResult('function f(a) { while (a) for (;;) return a--; } f(3)', { threshold: 1, loops });
    expectSameResult('function f(a) { do if (a > 2) return a; while (a++ < 9); return 0 } f(0)', { threshold: 1, loops });
  });

  test('a loop whose body is a rewritten return reads as the loop check, then the return', () => {
    const out = run('function f(a) { for (;;) return a }', { threshold: 1, loops: true });
    expect(out).toContain(`for (;;) {${CHECK_SOURCE} { __jsprof$r = /*return*/ a;break __jsprof$l; } /*__jsprof$}*/}`);
  });
});

describe('`with` statements', () => {
  // A sandbox answering for every name, as `with (proxy)` sandboxes do: it must see none of jsprof's.
  const sandbox = `
    var seen = [];
    var scope = new Proxy({ n: 3 }, {
      has(target, key) { if (typeof key === 'string' && key.startsWith('__jsprof')) seen.push(key); return key in target || key === 'x'; },
      get(target, key) { return key === Symbol.unscopables ? undefined : target[key]; },
      set(target, key, value) { target[key] = value; return true; },
    });`;

  test.each([{ loops: true }, { loops: false }])('functions in or holding one get no checks, and compute the same (loops: $loops)', ({ loops }) => {
    const code = `${sandbox}
      function outer(o) { var r = 0; with (o) { for (var i = 0; i < n; i++) r += i; if (r > 2) return r; } return -1; }
      with (scope) { var inner = function () { var a = 0; for (var i = 0; i < n; i++) a += i; return a; }; }
      [outer(scope), inner(), seen.length];`;
    expect(evaluate(run(code, { threshold: 1, loops }))).toEqual(evaluate(code));
    const checked = (functions: { name: string; instrumented: boolean }[]) => functions.filter((f) => f.instrumented).map((f) => f.name);
    const byBabel = checked(babelInstrument(code, { threshold: 1, loops }).jsprof.functions);
    expect(checked(instrument({ code, program: parseJs(code) }, { threshold: 1, loops }).functions)).toEqual(byBabel);
    expect(byBabel).toEqual(['has', 'get', 'set']);
  });

  test('a function next to one with `with` still gets checks', () => {
    const code = 'function plain(a) { for (var i = 0; i < a; i++); return i } function sloppy(o) { with (o) return x }';
    const names = instrument({ code, program: parseJs(code) }, { threshold: 1 }).functions.filter((f) => f.instrumented).map((f) => f.name);
    expect(names).toEqual(['plain']);
  });
});

test('output that would not parse is refused with the position in the input, not returned', () => {
  const code = 'var a = 1;\nfunction f(a) {\n  if (a) return 1;\n  return 2;\n}';
  const program = parseJs(code);
  // A tree that lies about where a return ends, as a front end's bug might.
  const fn = program.body[1];
  const ret = fn.body.body[1];
  ret.end = ret.argument.start;
  let error: unknown;
  try {
    instrument({ code, program, filename: 'lying.js' }, { threshold: 1 });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(JsSyntaxError);
  expect(error).toMatchObject({ file: 'lying.js', line: 4 });
  expect(String((error as Error).message)).toMatch(/^lying\.js:4:\d+: jsprof's checks here would not parse .*nothing was written/);
});

test("a .js file's syntax error is its goal's: a module's where the file imports or exports, a script's where it is sloppy code", () => {
  const error = (code: string) => {
    try {
      parseJs(code, 'case.js');
    } catch (e) {
      return (e as Error).message;
    }
  };
  expect(error("import x from './y.js';\nexport function f(a) {\n  return a +;\n}\n")).toBe('case.js:3:13: Unexpected token');
  expect(error("import x from './y.js';\nconst el = <div>{x}</div>;\n")).toBe('case.js:2:12: Unexpected token');
  expect(error("var x = 010;\nimport a from 'b';\n")).toBe('case.js:1:9: Invalid number');
  expect(error('with (a) {}\nf(;\n')).toBe('case.js:2:3: Unexpected token');
});

describe('deep nesting', () => {
  const nestedIfs = (n: number) => `function f(x) {\n${'if (x > 0) {'.repeat(n)}x++${'}'.repeat(n)}\nreturn x }\nf(5)`;

  test('up to the limit, files are instrumented and run', () => {
    const code = nestedIfs(MAX_NESTING - 2);
    expect(evaluate(run(code, { threshold: 1, loops: true }))).toBe(6);
  });

  test.each([MAX_NESTING + 1, 1_500, 3_000])('%i nested `if`s are refused with the position past the limit, never a crash', (n) => {
    const code = nestedIfs(n);
    expect(() => parseJs(code, 'deep.js')).toThrow(TooDeeplyNestedError);
    expect(() => parseJs(code, 'deep.js')).toThrow(/^deep\.js:2:\d+: brackets nest more than 500 deep here; jsprof leaves the file as it is$/);
  });

  test('a tree from another parser nested too deeply is refused by the walk, at the first node past the limit', () => {
    // `{{{…}}}` as nested blocks, built by hand, as a parser with a deeper stack might give it.
    const depth = 3000;
    const code = `${'{'.repeat(depth)}${'}'.repeat(depth)}`;
    let node: any = { type: 'BlockStatement', start: depth - 1, end: depth + 1, body: [] };
    for (let i = depth - 2; i >= 0; i--) node = { type: 'BlockStatement', start: i, end: 2 * depth - i, body: [node] };
    const program = { type: 'Program', sourceType: 'script', start: 0, end: code.length, body: [node] };
    expect(() => instrument({ code, program, filename: 'deep.js' }, { threshold: 1 })).toThrow(TooDeeplyNestedError);
    expect(() => instrument({ code, program, filename: 'deep.js' }, { threshold: 1 })).toThrow(/^deep\.js:1:1101: the syntax tree nests more than 1100 deep here/);
  });

  test('brackets in strings, templates, comments and regular expressions do not count', () => {
    const noise = `var s = "((((", t = \`[[\${"{{"}]]\`, r = /[(]{2}/g, q = a / 2 / (b); // ((((\n/* [[[[ */`;
    const code = `var a = 1, b = 2;\n${noise.repeat(MAX_NESTING)}\n${nestedIfs(10)}`;
    expect(() => parseJs(code)).not.toThrow();
  });
});

test('an async generator keeps its bare returns bare: no await tick is added (test262)', async () => {
  const code = `var log = [];
    async function* bare() { var a = 1; return; }
    async function* fallsOff(x) { if (x) return 1; log.push('body'); }
    async function* valued() { return 2; }
    Promise.resolve().then(() => log.push('tick 1')).then(() => log.push('tick 2')).then(() => log.push('tick 3'));
    bare().next().then(() => log.push('bare'));
    fallsOff(false).next().then(() => log.push('fallsOff'));
    valued().next().then((r) => log.push('valued ' + r.value));
    log;`;
  const settle = async (out: string, globals: object = {}) => {
    const log = vm.runInNewContext(out, { ...globals });
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    return log.join(', ');
  };
  const expected = await settle(code);
  for (const out of [run(code, { threshold: 1 }), babelInstrument(code, { threshold: 1 }).code]) {
    expect(await settle(out, { __jsprof: new FakeRuntime().hook })).toBe(expected);
    expect(await settle(out)).toBe(expected);
  }
});
