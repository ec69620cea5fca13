/** Options reach the policy through Babel: bad ones fail the build with the policy's message. */
import { instrument } from './helpers';

const SRC = 'function f() { a(); b(); }';

test.each([
  [{ threshold: -1 }, 'option "threshold" must be a whole number of statements ≥ 0; got -1'],
  [{ threshold: '10' }, 'option "threshold" must be a whole number of statements ≥ 0; got "10"'],
  [{ treshold: 10 }, 'unknown option "treshold"; known options are: threshold, loopingFunctions, loops, exits, runtime, importSource, include, exclude'],
  [{ runtime: 'esm' }, 'option "runtime" must be "global" or "import"; got "esm"'],
  [{ include: [42] }, 'option "include" must be a string, a RegExp or an array of them; got 42'],
  [{ exits: 'yes' }, 'option "exits" must be true or false; got "yes"'],
  [{ exclude: ['**/*.test.js'] }, 'option "exclude" takes parts of file paths or RegExps, not globs; got "**/*.test.js"'],
])('%j fails with a clear message', (options, message) => {
  expect(() => instrument(SRC, options)).toThrow(`@jsprof: ${message}`);
});

test('include and exclude pick files by path', () => {
  const options = { threshold: 1, include: ['/src/', /\.mjs$/], exclude: [/vendor/] };
  const changed = (filename: string) => instrument(SRC, options, { filename }).jsprof.changed;
  expect(changed('/app/src/a.js')).toBe(true);
  expect(changed('/app/lib/a.mjs')).toBe(true);
  expect(changed('/app/lib/a.js')).toBe(false);
  expect(changed('/app/src/vendor/a.js')).toBe(false);
  expect(changed('C:\\app\\src\\a.js')).toBe(true);
});

test('the default threshold is 10 statements', () => {
  const nine = `function f() { ${'a();'.repeat(9)} }`;
  const ten = `function f() { ${'a();'.repeat(10)} }`;
  expect(instrument(nine).jsprof.instrumented).toBe(0);
  expect(instrument(ten).jsprof.instrumented).toBe(1);
});
