/**
 * Instrumented code behaves exactly as the original, and its checks run: every case of cases.ts,
 * as a classic script and as an ES module (compiled to CommonJS in the same Babel pass), with the
 * runtime reached through the global, through an import, and not loaded at all.
 */
import { TransformOptions } from '@babel/core';
import { CASES, Case } from '../../../fixtures/corpus/cases';
import { INERT_COUNT, slowPathTrap } from '@jsprof/policy';
import { FakeRuntime, instrument, plain, runCommonJs, runScript } from './helpers';

type Mode = 'script' | 'module';

const COMMONJS: TransformOptions = { sourceType: 'module', plugins: ['@babel/plugin-transform-modules-commonjs'] };

function source(c: Case, mode: Mode): string {
  return mode === 'script' ? `${c.code}\n;(${c.result});\n` : `${c.code}\nexport default (${c.result});\n`;
}

/** Runs code of a case; `globals` and `modules` are what the realm and `require` provide. */
async function run(code: string, mode: Mode, globals: Record<string, unknown> = {}, modules: Record<string, unknown> = {}) {
  // A script with `runtime: 'import'` is CommonJS: it calls `require`.
  const require = (id: string) => modules[id];
  const value = mode === 'script' ? runScript(code, { require, ...globals }) : runCommonJs(code, globals, modules).default;
  return JSON.stringify(await value);
}

async function original(c: Case, mode: Mode) {
  return run(plain(source(c, mode), mode === 'module' ? COMMONJS : {}), mode);
}

const modes: Mode[] = ['script', 'module'];

describe.each(modes)('as a %s', (mode) => {
  const cases = CASES.filter((c) => mode === 'script' || !c.sloppy);
  const babel = mode === 'module' ? COMMONJS : {};

  test.each(cases)('$name: same result, checks run (global runtime)', async (c) => {
    const out = instrument(source(c, mode), { threshold: 1 }, babel);
    const runtime = new FakeRuntime();
    expect(await run(out.code, mode, { __jsprof: runtime.hook })).toBe(await original(c, mode));
    expect(runtime.calls).toBe(c.checks);
  });

  test.each(cases)('$name: same result without the runtime', async (c) => {
    const out = instrument(source(c, mode), { threshold: 1 }, babel);
    expect(await run(out.code, mode)).toBe(await original(c, mode));
  });

  test.each(cases)('$name: same result, checks run (runtime imported)', async (c) => {
    const out = instrument(source(c, mode), { threshold: 1, runtime: 'import' }, babel);
    const runtime = new FakeRuntime();
    expect(await run(out.code, mode, {}, { '@jsprof/runtime': runtime.module })).toBe(await original(c, mode));
    expect(runtime.calls).toBe(c.checks);
  });
});

describe('with block scoping (preset-env) in the same pass', () => {
  const blockScoping: TransformOptions = { plugins: ['@babel/plugin-transform-block-scoping'] };

  test.each(CASES)('$name: same result', async (c) => {
    const out = instrument(source(c, 'script'), { threshold: 1 }, blockScoping);
    expect(await run(out.code, 'script')).toBe(await run(plain(source(c, 'script'), blockScoping), 'script'));
  });

  test('a let the labelled body holds keeps its name: a direct eval in the function still finds it', () => {
    const src = 'function f(n) { let s = 5; for (let i = 0; i < n; i++) s++; if (n > 100) return 0; return eval("s"); }\nf(3);';
    const out = instrument(src, { threshold: 1 }, blockScoping);
    expect(out.code).toContain('break __jsprof$l');
    expect(runScript(out.code)).toBe(8);
  });
});

test("a jest.mock factory gets no checks, so babel-jest's hoisting plugin in the same pass compiles the test file; the test's own functions do", () => {
  const src = `import { total } from './sum';
jest.mock('./sum', () => {
  const values = [1, 2, 3];
  return { total: () => { let t = 0; for (const v of values) t += v; return t; } };
});
function check() { let t = total(); for (let i = 0; i < 2; i++) t *= 2; return t; }
export default check();
`;
  const out = instrument(src, { threshold: 1 }, { sourceType: 'module', plugins: ['babel-plugin-jest-hoist', '@babel/plugin-transform-modules-commonjs'] });
  expect(out.jsprof.functions.map((f) => [f.name, f.instrumented])).toEqual([['', false], ['total', false], ['check', true]]);
  const factories: Record<string, () => unknown> = {};
  const jest = { mock: (id: string, factory: () => unknown) => void (factories[id] = factory) };
  const runtime = new FakeRuntime();
  const modules = { '@jest/globals': { jest }, get './sum'() { return factories['./sum'](); } };
  expect(runCommonJs(out.code, { __jsprof: runtime.hook }, modules).default).toBe(24);
  expect(runtime.calls).toBe(2); // check's entry and exit
});

describe('options change which checks run', () => {
  const code = 'function f(n) { let s = 0; for (let i = 0; i < n; i++) s += i; while (n--) s++; do s++; while (false); for (const k in { a: 1, b: 2 }) s += k.length; for (const v of [1, 2]) s += v; return s; }\nf(3);';

  function checksOf(options: object): { result: unknown; calls: number } {
    const runtime = new FakeRuntime();
    const result = runScript(instrument(code, options).code, { __jsprof: runtime.hook });
    return { result, calls: runtime.calls };
  }

  test('entry and exit by default', () => {
    expect(checksOf({ threshold: 1 })).toEqual({ result: runScript(code), calls: 2 });
  });

  test('exits: false leaves only the entry check', () => {
    expect(checksOf({ threshold: 1, exits: false })).toEqual({ result: runScript(code), calls: 1 });
  });

  test('loops: true adds one check per iteration of every loop', () => {
    // for 3, while 3, do-while 1, for-in 2, for-of 2
    expect(checksOf({ threshold: 1, loops: true })).toEqual({ result: runScript(code), calls: 2 + 3 + 3 + 1 + 2 + 2 });
  });

  test('loops in nested functions are left to those functions', () => {
    const nested = 'function outer() { const inner = () => { for (let i = 0; i < 4; i++); }; inner(); return 1; }\nouter();';
    const runtime = new FakeRuntime();
    runScript(instrument(nested, { threshold: 2, loopingFunctions: false, loops: true }).code, { __jsprof: runtime.hook });
    // outer has 3 statements, inner 1: only outer is instrumented, and its loop-free body gets 2 checks
    expect(runtime.calls).toBe(2);
  });

  test('a function below the threshold with a loop of its own gets checks, unless loopingFunctions: false', () => {
    const src = 'function sum(a) { let s = 0; for (const x of a) s += x; return s; }\nfunction add(a, b) { return a + b; }\nadd(sum([1, 2, 3]), 4);';
    for (const [options, instrumented, calls] of [
      [{}, [true, false], 2],
      [{ loopingFunctions: false }, [false, false], 0],
    ] as const) {
      const out = instrument(src, options);
      expect(out.jsprof.functions.map((f) => f.instrumented)).toEqual(instrumented);
      const runtime = new FakeRuntime();
      expect(runScript(out.code, { __jsprof: runtime.hook })).toBe(10);
      expect(runtime.calls).toBe(calls);
    }
  });

  test('functions below the threshold get no checks', () => {
    const src = 'function small() { return 1; }\nfunction big() { var a = 1; a++; a++; return a + small(); }\nbig();';
    const out = instrument(src, { threshold: 4 });
    expect(out.jsprof.functions.map((f) => [f.name, f.instrumented])).toEqual([
      ['small', false],
      ['big', true],
    ]);
    const runtime = new FakeRuntime();
    expect(runScript(out.code, { __jsprof: runtime.hook })).toBe(4);
    expect(runtime.calls).toBe(2);
  });
});

describe('checks that fire', () => {
  test('a sample that falls due is taken at the next check, then the counter is re-armed by the runtime', () => {
    const c = new Int32Array([3, 3]);
    let taken = 0;
    const hook = { c, s: slowPathTrap(() => { taken++; c[0] = 3; }) };
    const src = 'function f(i) { return i * 2; }\nvar s = 0; for (var i = 0; i < 10; i++) s += f(i); s;';
    expect(runScript(instrument(src, { threshold: 1 }).code, { __jsprof: hook })).toBe(90);
    // 20 checks, one sample every 4
    expect(taken).toBe(5);
  });

  /** A hook whose every check calls the slow path, which logs the check's kind, and the log, which the program may write to as well. */
  function kindLog() {
    const log: string[] = [];
    const runtime = new FakeRuntime();
    const hook = { ...runtime.hook, s: slowPathTrap((kind) => { delete (runtime.hook.s as any)[kind]; log.push(['exit', 'entry', 'looping exit'][kind]); }) };
    return { log, hook };
  }

  test('the entry check runs before the body, the exit check after it on return, not on throw', () => {
    const { log, hook } = kindLog();
    const src = `function f(fail) { log.push('body'); const done = 'done'; if (fail) log.push('failing'); if (fail) throw new Error('x'); return done; }
      function g() { log.push('g'); return f(false); }
      [g(), (() => { try { f(true); } catch (e) { return e.message; } })()];`;
    // Only f (5 statements on its longest path, the guard clause not counted; the arrow 3, g 2) reaches the threshold.
    const result = runScript(instrument(src, { threshold: 4 }).code, { __jsprof: hook, log });
    expect(Array.from(result as string[])).toEqual(['done', 'x']);
    expect(log).toEqual(['g', 'entry', 'body', 'exit', 'entry', 'body', 'failing']);
  });

  test('guard clauses the body starts with run before the entry check: a call that leaves at one runs no check', () => {
    const { log, hook } = kindLog();
    const src = `function f(ch) { log.push('prefix'); const code = ch.charCodeAt(0); if (code !== 33) return 'other'; if (!ch) throw new Error('never'); log.push('body'); return 'bang'; }
      [f('a'), f('!')];`;
    const result = runScript(instrument(src, { threshold: 3 }).code, { __jsprof: hook, log });
    expect(Array.from(result as string[])).toEqual(['other', 'bang']);
    expect(log).toEqual(['prefix', 'prefix', 'entry', 'body', 'exit']);
  });

  test('without the runtime, the checks count down far from 0 and call nothing', () => {
    const src = 'function f(i) { return i; }\nvar sum = 0; for (var i = 0; i < 1000; i++) sum += f(i); [sum, String(__jsprof$c[0])];';
    // 1,000 calls, each an entry and an exit check: far from 0 still.
    expect(runScript(instrument(src, { threshold: 1 }).code)).toEqual([499500, String(INERT_COUNT - 2000)]);
  });
});
