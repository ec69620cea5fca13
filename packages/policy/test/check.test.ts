/** The inserted texts: valid code that binds the checks before anything can call them. */
import * as vm from 'node:vm';
import { parse } from '@babel/parser';
import {
  canKeepReturnValue,
  CHECK_SOURCE,
  COUNTER_ID,
  INERT_COUNT,
  ENTRY_CHECK_SOURCE,
  EXIT_CHECK_SOURCE,
  GLOBAL_MODULE_PRELUDE_SOURCE,
  GLOBAL_PRELUDE_SOURCE,
  EXIT_SLOTS,
  exitCheckSource,
  exitSlot,
  importPreludeSource,
  isInstrumentedSource,
  requirePreludeSource,
  RETURN_VALUE_ID,
  SLOW_PATH_ID,
  newCounter,
  slowPathTrap,
} from '../src/check';

function run(code: string, globals: Record<string, unknown> = {}) {
  const context = vm.createContext(globals);
  return vm.runInContext(code, context);
}

const KINDS = ['check', 'entry', 'looping exit'];

/** A hook whose counter runs out at every check, so that each calls the slow path, which records its kind. */
function recordingHook() {
  const calls: string[] = [];
  const c = newCounter();
  return {
    calls,
    c,
    s: slowPathTrap((kind) => {
      calls.push(KINDS[kind]);
      c.fill(0);
    }),
  };
}

const GLOBAL_PRELUDES = [GLOBAL_PRELUDE_SOURCE, GLOBAL_MODULE_PRELUDE_SOURCE];

test('the exit of a function with loops counts on its exit slot, and reaches the slow path with it', () => {
  const slots: number[] = [];
  const c = newCounter();
  c.fill(1);
  c[1 + 5] = 0;
  const s = slowPathTrap((kind, slot) => slots.push(kind, slot));
  run(`${GLOBAL_PRELUDE_SOURCE}\n${exitCheckSource(true, 'none', 4)}${exitCheckSource(true, 'none', 5)}`, { __jsprof: { c, s } });
  expect(slots).toEqual([2, 5]);
  expect([c[0], c[1 + 4], c[1 + 5]]).toEqual([1, 0, -1]);
  expect(exitCheckSource(true, 'value', 7)).toBe('if (--__jsprof$c[8] < 0) { delete __jsprof$s[9]; return __jsprof$r; }');
});

test('exit slots spread functions by where V8 places them, within EXIT_SLOTS', () => {
  const src = 'function a() { for (;;) break; }\n'.repeat(300);
  const fns: any[] = (parse(src).program.body as any[]);
  const slots = fns.map((fn) => exitSlot(src, fn));
  expect(slots.every((slot) => Number.isInteger(slot) && slot >= 0 && slot < EXIT_SLOTS)).toBe(true);
  expect(new Set(slots).size).toBeGreaterThan(EXIT_SLOTS / 2);
});

test('the texts parse as scripts and modules', () => {
  expect(() => parse(`${GLOBAL_PRELUDE_SOURCE}\n${CHECK_SOURCE}`, { sourceType: 'script' })).not.toThrow();
  expect(() => parse(`${GLOBAL_MODULE_PRELUDE_SOURCE}\n${CHECK_SOURCE}`, { sourceType: 'module' })).not.toThrow();
  expect(() => parse(requirePreludeSource('@jsprof/runtime'), { sourceType: 'script' })).not.toThrow();
  expect(() => parse(importPreludeSource('x"y'), { sourceType: 'module' })).not.toThrow();
  expect(importPreludeSource('x"y')).toContain('from "x\\"y"');
  expect(() => parse(`function f() { ${ENTRY_CHECK_SOURCE} }`, { sourceType: 'module' })).not.toThrow();
});

test.each(GLOBAL_PRELUDES)('with the runtime, the prelude binds the counter and slow path: the checks count down and call it with their kind (%#)', (prelude) => {
  expect(exitCheckSource(true, 'none')).toBe(EXIT_CHECK_SOURCE);
  expect(exitCheckSource(false, 'none')).toBe(CHECK_SOURCE);
  const hook = recordingHook();
  run(`${prelude}\n${ENTRY_CHECK_SOURCE}${EXIT_CHECK_SOURCE}${CHECK_SOURCE}${exitCheckSource(false, 'none')}`, { __jsprof: hook });
  expect(hook.calls).toEqual(['entry', 'looping exit', 'check', 'check']);
});

test.each([true, false])('an exit check whose slow path returns returns what the function returns there, whether or not it ran out (loops: %s)', (hasOwnLoops) => {
  const kind = hasOwnLoops ? 'looping exit' : 'check';
  for (const ranOut of [true, false]) {
    const hook = recordingHook();
    if (!ranOut) hook.c.fill(100);
    const value = `let ${RETURN_VALUE_ID} = 42; ${exitCheckSource(hasOwnLoops, 'value')} return ${RETURN_VALUE_ID};`;
    const undef = `${exitCheckSource(hasOwnLoops, 'undefined')}`;
    const result = run(`${GLOBAL_PRELUDE_SOURCE}\n[(function () { ${value} })(), (function () { ${undef} })()];`, { __jsprof: hook });
    expect(result).toEqual([42, undefined]);
    expect(hook.calls).toEqual(ranOut ? [kind, kind] : []);
  }
});

test('counted down, a check calls the slow path once its element runs out, and only then', () => {
  const hook = { c: new Int32Array([2, 1]), calls: [] as number[], s: slowPathTrap((kind) => hook.calls.push(kind)) };
  const checks = `${ENTRY_CHECK_SOURCE}${CHECK_SOURCE}${EXIT_CHECK_SOURCE}`;
  run(`${GLOBAL_PRELUDE_SOURCE}\n${checks}${checks}`, { __jsprof: hook });
  // C[0]: 2 → 1 → 0 → -1 (the entry check of the second round); C[1]: 1 → 0 → -1.
  expect(hook.calls).toEqual([1, 0, 2]);
  expect(Array.from(hook.c)).toEqual([-2, -1]);
});

test.each(GLOBAL_PRELUDES)('without the runtime, the checks count down far from 0 and call nothing (%#)', (prelude) => {
  const checks = `${ENTRY_CHECK_SOURCE}${EXIT_CHECK_SOURCE}${CHECK_SOURCE}`;
  expect(run(`${prelude}\n${checks} [${COUNTER_ID}[0], delete ${SLOW_PATH_ID}[1]];`)).toEqual([INERT_COUNT - 2, true]);
  for (const strict of ['', '"use strict";']) {
    expect(run(`${strict}${prelude}\nvar n = 0; for (var i = 0; i < 100; i++) { ${checks} n++; } n;`)).toBe(100);
  }
});

test.each(GLOBAL_PRELUDES)('without the runtime, the checks reach no indexed accessor a program put on Array.prototype or Object.prototype (%#)', (prelude) => {
  const checks = `${ENTRY_CHECK_SOURCE}${exitCheckSource(true, 'none', 3)}`;
  const accessors = `var reads = 0;
    for (var proto of [Array.prototype, Object.prototype]) for (var i = 0; i < 8; i++) Object.defineProperty(proto, i, { get() { reads++; ${checks} return 0; }, configurable: true });`;
  for (const strict of ['', '"use strict";']) {
    expect(run(`${strict}${prelude}\n${accessors}\nvar n = 0; for (var k = 0; k < 10; k++) { ${checks} n++; } [n, reads];`)).toEqual([10, 0]);
  }
});

test.each(GLOBAL_PRELUDES)("a global __jsprof that is not the runtime's hook, or an older runtime's that checks called, is ignored (%#)", (prelude) => {
  for (const other of [42, null, {}, { c: new Int32Array(2), s: 1 }, { c: new Int32Array(2), s() {} }]) {
    expect(run(`${prelude}\n${ENTRY_CHECK_SOURCE}${CHECK_SOURCE} ${COUNTER_ID}[0];`, { __jsprof: other })).toBe(INERT_COUNT - 2);
  }
});

describe("an ES module's checks read globals", () => {
  // Function declarations are hoisted: through an import cycle, another module may call one before this module's prelude ran.
  const callsBeforeThePrelude = `var early = f();\n${GLOBAL_MODULE_PRELUDE_SOURCE}\nfunction f() { ${CHECK_SOURCE} return "ran"; }\n[early, f()];`;

  test("that the runtime publishes: a check before the module's prelude reaches it", () => {
    const hook = recordingHook();
    expect(run(callsBeforeThePrelude, { __jsprof: hook, [COUNTER_ID]: hook.c, [SLOW_PATH_ID]: hook.s })).toEqual(['ran', 'ran']);
    expect(hook.calls).toEqual(['check', 'check']);
  });

  test("that another module's prelude set without the runtime: a check before this module's prelude neither throws nor samples", () => {
    const context = vm.createContext({});
    vm.runInContext(GLOBAL_MODULE_PRELUDE_SOURCE, context);
    expect(vm.runInContext(callsBeforeThePrelude, context)).toEqual(['ran', 'ran']);
    // The inert counter, far from 0.
    expect(vm.runInContext(`[${COUNTER_ID}[0], typeof ${SLOW_PATH_ID}]`, context)).toEqual([INERT_COUNT - 2, 'object']);
  });

  test('that the prelude takes from the hook where the runtime has not published them, and leaves alone where it has', () => {
    const hook = recordingHook();
    const fromHook: Record<string, unknown> = vm.createContext({ __jsprof: hook });
    vm.runInContext(GLOBAL_MODULE_PRELUDE_SOURCE, fromHook);
    expect(fromHook[COUNTER_ID]).toBe(hook.c);
    expect(fromHook[SLOW_PATH_ID]).toBe(hook.s);
    const published = { [COUNTER_ID]: new Int32Array(2), [SLOW_PATH_ID]: {} };
    const alreadySet: Record<string, unknown> = vm.createContext({ __jsprof: hook, ...published });
    vm.runInContext(GLOBAL_MODULE_PRELUDE_SOURCE, alreadySet);
    expect(alreadySet[COUNTER_ID]).toBe(published[COUNTER_ID]);
    expect(alreadySet[SLOW_PATH_ID]).toBe(published[SLOW_PATH_ID]);
  });

  test('so a module that ran before the runtime loaded reaches it from then on', () => {
    const context = vm.createContext({});
    vm.runInContext(`${GLOBAL_MODULE_PRELUDE_SOURCE}\nfunction f() { ${CHECK_SOURCE} return "ran"; }`, context);
    expect(vm.runInContext('f()', context)).toBe('ran');
    const hook = recordingHook();
    Object.assign(vm.runInContext('globalThis', context), { [COUNTER_ID]: hook.c, [SLOW_PATH_ID]: hook.s });
    expect(vm.runInContext('f()', context)).toBe('ran');
    expect(hook.calls).toEqual(['check']);
  });
});

test('isInstrumentedSource recognises every prelude, as written or reformatted', () => {
  for (const prelude of GLOBAL_PRELUDES) {
    expect(isInstrumentedSource(prelude)).toBe(true);
    expect(isInstrumentedSource(prelude.replace(/ /g, '\n  '))).toBe(true);
  }
  expect(isInstrumentedSource(importPreludeSource('rt'))).toBe(true);
  expect(isInstrumentedSource(requirePreludeSource('rt'))).toBe(true);
  expect(isInstrumentedSource(requirePreludeSource('rt').replace(/ /g, '\n'))).toBe(true);
  // as minifiers leave them, bindings renamed and tests turned round
  expect(isInstrumentedSource('var _=typeof __jsprof=="object"&&__jsprof&&typeof __jsprof.s=="object"?__jsprof:{c:[],s:{}},o=_.c,f=_.s;')).toBe(true);
  expect(isInstrumentedSource('var o="object"==typeof __jsprof&&__jsprof&&"object"==typeof __jsprof.s?__jsprof:{c:[],s:{}};')).toBe(true);
  expect(isInstrumentedSource('import{checkCounter as r,checkTrap as e}from"@jsprof/runtime";')).toBe(true);
  expect(isInstrumentedSource('var{checkCounter:e,checkTrap:r}=require("rt");')).toBe(true);
  // The hook test after preset-env's typeof-symbol transform, as Babel prints it and as terser minifies a script's prelude (its bindings renamed).
  expect(isInstrumentedSource('(typeof __jsprof === "undefined" ? "undefined" : _typeof(__jsprof)) == "object" && __jsprof && _typeof(__jsprof.s) == "object" ? __jsprof : 0')).toBe(true);
  expect(isInstrumentedSource('var n="object"==("undefined"==typeof __jsprof?"undefined":e(__jsprof))&&__jsprof&&"object"==e(__jsprof.s)?__jsprof:{},r=n.c')).toBe(true);
  expect(isInstrumentedSource('show(__jsprof.status)')).toBe(false);
  // The checks of a module whose import of the runtime became a namespace (Babel's CommonJS transform, webpack), minified too.
  expect(isInstrumentedSource('if (--_runtime.checkCounter[0] < 0) delete _runtime.checkTrap[1];')).toBe(true);
  expect(isInstrumentedSource('--r.checkCounter[0]<0&&delete r.checkTrap[1]')).toBe(true);
  expect(isInstrumentedSource('function f() { return "__jsprof$c"; }')).toBe(false);
  expect(isInstrumentedSource('if (typeof __jsprof == "object") start();')).toBe(false);
  expect(isInstrumentedSource('const __jsprof$counter = 1;')).toBe(false);
});

test('a return keeps its value for the exit check unless the value holds a function or class written there, other than in the arguments of the call or new it is', () => {
  const argument = (code: string) => (parse(`function f() { return ${code}; }`).program.body[0] as any).body.body[0].argument;
  for (const code of ['', 'a', 'a = 1, a + 1', 'x.map((y) => y * 2)', 'new Promise(function (resolve) { resolve(1); })', 'f(class {})']) {
    expect([code, canKeepReturnValue(argument(code))]).toEqual([code, true]);
  }
  for (const code of ['function () {}', '() => 1', 'class {}', '{ m() {} }', '{ n: function () {} }', '[() => 1]', 'a || function () {}', '(function () {})()', '[new T(function () {})]', 'a || f(function () {}, function () {})', '(new T(function () {})).x']) {
    expect([code, canKeepReturnValue(argument(code))]).toEqual([code, false]);
  }
});
