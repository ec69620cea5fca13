/** The inserted texts: valid code that binds the counter before anything can use it. */
import * as vm from 'node:vm';
import { parse } from '@babel/parser';
import {
  CHECK_SOURCE,
  COUNTER_ID,
  ENTRY_CHECK_SOURCE,
  EXIT_CHECK_SOURCE,
  GLOBAL_PRELUDE_SOURCE,
  SLOW_PATH_ID,
  exitCheckSource,
  importPreludeSource,
  isInstrumentedSource,
  requirePreludeSource,
} from '../src/check';

const REARM = 1073741824;

function run(code: string, globals: Record<string, unknown> = {}) {
  const context = vm.createContext(globals);
  return vm.runInContext(code, context);
}

test('the texts parse as scripts and modules', () => {
  expect(() => parse(`${GLOBAL_PRELUDE_SOURCE}\n${CHECK_SOURCE}`, { sourceType: 'script' })).not.toThrow();
  expect(() => parse(`${GLOBAL_PRELUDE_SOURCE}\n${CHECK_SOURCE}`, { sourceType: 'module' })).not.toThrow();
  expect(() => parse(requirePreludeSource('@jsprof/runtime'), { sourceType: 'script' })).not.toThrow();
  expect(() => parse(importPreludeSource('x"y'), { sourceType: 'module' })).not.toThrow();
  expect(importPreludeSource('x"y')).toContain('from "x\\"y"');
});

test('without the runtime, the stand-in counts down from 2^30 and re-arms itself', () => {
  const result = run(`${GLOBAL_PRELUDE_SOURCE}\nvar first = ${COUNTER_ID}[0]; ${CHECK_SOURCE} var after = ${COUNTER_ID}[0];\n${COUNTER_ID}[0] = 0; ${CHECK_SOURCE} [first, after, ${COUNTER_ID}[0]];`);
  expect(Array.from(result)).toEqual([REARM, REARM - 1, REARM]);
});

test('with the runtime, the prelude binds its hook; the entry check tells it the function has not started', () => {
  const hook = { c: new Int32Array([0]), s: jest.fn() };
  run(`${GLOBAL_PRELUDE_SOURCE}\n${ENTRY_CHECK_SOURCE}${CHECK_SOURCE}`, { __jsprof: hook });
  expect(hook.s.mock.calls).toEqual([[1], []]);
  expect(hook.c[0]).toBe(-2);
});

test('the exit check of a function with loops counts on the second counter and tells the runtime it is an exit; the stand-in re-arms both', () => {
  expect(exitCheckSource(true)).toBe(EXIT_CHECK_SOURCE);
  expect(exitCheckSource(false)).toBe(CHECK_SOURCE);
  const hook = { c: new Int32Array([5, 0]), s: jest.fn() };
  run(`${GLOBAL_PRELUDE_SOURCE}\n${EXIT_CHECK_SOURCE}${EXIT_CHECK_SOURCE}${CHECK_SOURCE}`, { __jsprof: hook });
  expect(hook.s.mock.calls).toEqual([[2], [2]]);
  expect(Array.from(hook.c)).toEqual([4, -2]);
  const standIn = run(`${GLOBAL_PRELUDE_SOURCE}\n${COUNTER_ID}[1] = 0; ${EXIT_CHECK_SOURCE} [${COUNTER_ID}[0], ${COUNTER_ID}[1]];`);
  expect(Array.from(standIn)).toEqual([REARM, REARM]);
});

test('without the runtime, the entry check runs too', () => {
  const result = run(`${GLOBAL_PRELUDE_SOURCE}\n${COUNTER_ID}[0] = 0; ${ENTRY_CHECK_SOURCE} ${COUNTER_ID}[0];`);
  expect(result).toBe(REARM);
  expect(() => parse(`function f() { ${ENTRY_CHECK_SOURCE} }`, { sourceType: 'module' })).not.toThrow();
});

test('a global __jsprof that is not an object is ignored', () => {
  expect(run(`${GLOBAL_PRELUDE_SOURCE}\n${CHECK_SOURCE} typeof ${SLOW_PATH_ID};`, { __jsprof: 42 })).toBe('function');
});

test('a check that runs before the prelude (an import cycle) neither throws nor samples', () => {
  // Function declarations are hoisted, as they are when another module calls into this one first.
  const code = `var early = f();\n${GLOBAL_PRELUDE_SOURCE}\nfunction f() { ${CHECK_SOURCE} return "ran"; }\n[early, f()];`;
  const hook = { c: new Int32Array([0]), s: jest.fn() };
  expect(Array.from(run(code, { __jsprof: hook }))).toEqual(['ran', 'ran']);
  expect(hook.s).toHaveBeenCalledTimes(1);
});

test('isInstrumentedSource recognises every prelude, as written or reformatted', () => {
  expect(isInstrumentedSource(GLOBAL_PRELUDE_SOURCE)).toBe(true);
  expect(isInstrumentedSource(GLOBAL_PRELUDE_SOURCE.replace(/ /g, '\n  '))).toBe(true);
  expect(isInstrumentedSource(importPreludeSource('rt'))).toBe(true);
  expect(isInstrumentedSource(requirePreludeSource('rt'))).toBe(true);
  expect(isInstrumentedSource('var __jsprof$c, __jsprof$s;')).toBe(true);
  expect(isInstrumentedSource('function f() { return "__jsprof$c"; }')).toBe(false);
  expect(isInstrumentedSource('const __jsprof$count = 1;')).toBe(false);
});
