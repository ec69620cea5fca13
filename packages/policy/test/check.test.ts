/** The inserted texts: valid code that binds the checks before anything can call them. */
import * as vm from 'node:vm';
import { parse } from '@babel/parser';
import {
  CHECK_ID,
  CHECK_SOURCE,
  ENTRY_CHECK_ID,
  ENTRY_CHECK_SOURCE,
  EXIT_CHECK_SOURCE,
  GLOBAL_PRELUDE_SOURCE,
  exitCheckSource,
  importPreludeSource,
  isInstrumentedSource,
  requirePreludeSource,
} from '../src/check';

function run(code: string, globals: Record<string, unknown> = {}) {
  const context = vm.createContext(globals);
  return vm.runInContext(code, context);
}

/** A hook whose checks record their calls by kind. */
function recordingHook() {
  const calls: string[] = [];
  return { calls, e: () => calls.push('entry'), x: () => calls.push('looping exit'), k: () => calls.push('check') };
}

test('the texts parse as scripts and modules', () => {
  expect(() => parse(`${GLOBAL_PRELUDE_SOURCE}\n${CHECK_SOURCE}`, { sourceType: 'script' })).not.toThrow();
  expect(() => parse(`${GLOBAL_PRELUDE_SOURCE}\n${CHECK_SOURCE}`, { sourceType: 'module' })).not.toThrow();
  expect(() => parse(requirePreludeSource('@jsprof/runtime'), { sourceType: 'script' })).not.toThrow();
  expect(() => parse(importPreludeSource('x"y'), { sourceType: 'module' })).not.toThrow();
  expect(importPreludeSource('x"y')).toContain('from "x\\"y"');
  expect(() => parse(`function f() { ${ENTRY_CHECK_SOURCE} }`, { sourceType: 'module' })).not.toThrow();
});

test('with the runtime, the prelude binds its checks: entry, looping exit, and the others', () => {
  expect(exitCheckSource(true)).toBe(EXIT_CHECK_SOURCE);
  expect(exitCheckSource(false)).toBe(CHECK_SOURCE);
  const hook = recordingHook();
  run(`${GLOBAL_PRELUDE_SOURCE}\n${ENTRY_CHECK_SOURCE}${EXIT_CHECK_SOURCE}${CHECK_SOURCE}${exitCheckSource(false)}`, { __jsprof: hook });
  expect(hook.calls).toEqual(['entry', 'looping exit', 'check', 'check']);
});

test('without the runtime, the checks are empty functions', () => {
  expect(run(`${GLOBAL_PRELUDE_SOURCE}\n${ENTRY_CHECK_SOURCE}${EXIT_CHECK_SOURCE}${CHECK_SOURCE} [typeof ${ENTRY_CHECK_ID}, ${CHECK_ID}()];`)).toEqual(['function', undefined]);
});

test('a global __jsprof that is not the runtime\'s hook is ignored', () => {
  for (const other of [42, null, {}, { e: 1 }]) {
    expect(run(`${GLOBAL_PRELUDE_SOURCE}\n${ENTRY_CHECK_SOURCE}${CHECK_SOURCE} typeof ${ENTRY_CHECK_ID};`, { __jsprof: other })).toBe('function');
  }
});

test('a check that runs before the prelude (an import cycle) neither throws nor samples', () => {
  // Function declarations are hoisted, as they are when another module calls into this one first.
  const code = `var early = f();\n${GLOBAL_PRELUDE_SOURCE}\nfunction f() { ${CHECK_SOURCE} return "ran"; }\n[early, f()];`;
  const hook = recordingHook();
  expect(run(code, { __jsprof: hook })).toEqual(['ran', 'ran']);
  expect(hook.calls).toEqual(['check']);
});

test('isInstrumentedSource recognises every prelude, as written or reformatted', () => {
  expect(isInstrumentedSource(GLOBAL_PRELUDE_SOURCE)).toBe(true);
  expect(isInstrumentedSource(GLOBAL_PRELUDE_SOURCE.replace(/ /g, '\n  '))).toBe(true);
  expect(isInstrumentedSource(importPreludeSource('rt'))).toBe(true);
  expect(isInstrumentedSource(requirePreludeSource('rt'))).toBe(true);
  expect(isInstrumentedSource(requirePreludeSource('rt').replace(/ /g, '\n'))).toBe(true);
  expect(isInstrumentedSource('function f() { return "__jsprof$e"; }')).toBe(false);
  expect(isInstrumentedSource('const __jsprof$entry = 1;')).toBe(false);
});
