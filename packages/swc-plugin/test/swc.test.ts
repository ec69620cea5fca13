/**
 * Parity through SWC's parser: the Babel plugin's corpus runs unchanged and fires the same checks,
 * the same functions get the same names and positions as with Babel and acorn; SWC's byte offsets
 * become the right string offsets; it runs on an SWC build's output and chains its map.
 */
import * as acorn from 'acorn';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { transformSync } from '@swc/core';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { instrument as instrumentEstree } from '@jsprof/estree-instrument';
import { JsSyntaxError, instrument } from '../src';
import { CASES } from '../../../fixtures/corpus/cases';
import { FakeRuntime, instrument as babelInstrument } from '../../babel-plugin/test/helpers';

const FORMS = fs.readFileSync(path.join(__dirname, '../../../fixtures/corpus/forms.js'), 'utf8');

function runScript(code: string, globals: Record<string, unknown> = {}) {
  return vm.runInContext(code, vm.createContext({ ...globals }), { filename: 'case.js' });
}

const summary = (records: { name: string; line: number; column: number; instrumented: boolean }[]) =>
  records.map((f) => `${f.name}@${f.line}:${f.column}${f.instrumented ? ' checked' : ''}`);

describe('every case of the corpus', () => {
  const source = (c: (typeof CASES)[number]) => `${c.code}\n;(${c.result});\n`;

  test.each(CASES)('$name: same result and checks as with the Babel plugin', async (c) => {
    const original = JSON.stringify(await runScript(source(c)));
    const out = instrument(source(c), { threshold: 1, filename: 'case.js' });
    const runtime = new FakeRuntime();
    expect(JSON.stringify(await runScript(out.code, { __jsprof: runtime.hook }))).toBe(original);
    expect(runtime.calls).toBe(c.checks);
    expect(JSON.stringify(await runScript(out.code))).toBe(original);
  });

  test.each(CASES)('$name: the same functions, names and positions as Babel', (c) => {
    const babel = babelInstrument(c.code, { threshold: 2 });
    expect(summary(instrument(c.code, { threshold: 2 }).functions)).toEqual(summary(babel.jsprof.functions));
  });
});

describe('the same functions as the other fronts', () => {
  test.each([1, 10])('forms.js at threshold %i: Babel, acorn and SWC agree, and insert the same text', (threshold) => {
    const babel = babelInstrument(FORMS, { threshold }, { sourceType: 'script' });
    const swc = instrument(FORMS, { threshold });
    expect(summary(swc.functions)).toEqual(summary(babel.jsprof.functions));
    const viaAcorn = instrumentEstree({ code: FORMS, program: acorn.parse(FORMS, { ecmaVersion: 'latest' }) as any }, { threshold });
    expect(swc.code).toBe(viaAcorn.code);
  });
});

describe('offsets', () => {
  test('non-ASCII and astral characters before a function (SWC counts UTF-8 bytes)', () => {
    const code = 'const s = "é𝒳日本"; /* ü */ function f(a) { return s + a; }\n;f(1)';
    const out = instrument(code, { threshold: 1 });
    expect(out.functions.map((f) => `${f.name}@${f.line}:${f.column}`)).toEqual([`f@1:${code.indexOf('(a)') + 1}`]);
    const runtime = new FakeRuntime();
    expect(runScript(out.code, { __jsprof: runtime.hook })).toBe('é𝒳日本1');
    expect(runtime.calls).toBe(2);
  });

  test('a byte order mark (SWC drops it before counting) stays first', () => {
    const code = '\uFEFFfunction f(a) { return a + "é"; }\n;f(1)';
    const out = instrument(code, { threshold: 1 });
    expect(out.code.startsWith('\uFEFF;var __jsprof$h = ')).toBe(true);
    expect(out.functions[0]).toMatchObject({ name: 'f', line: 1, column: code.indexOf('(a)') + 1 });
    expect(runScript(out.code.slice(1))).toBe('1é');
  });
});

describe('after an SWC build', () => {
  test('instruments SWC output and chains its source map back to the original source', () => {
    const original = 'export class Greeter {\n  constructor(private name: string) {}\n  greet(times: number): string {\n    let out = "";\n    for (let i = 0; i < times; i++) out += `hi ${this.name} `;\n    return out.trim();\n  }\n}\n';
    const built = transformSync(original, { filename: 'greeter.ts', sourceMaps: true, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } });
    const out = instrument(built.code, { threshold: 1, filename: 'greeter.js', inputSourceMap: built.map });
    expect(out.changed).toBe(true);
    const exports: any = {};
    vm.runInContext(out.code, vm.createContext({ exports, module: { exports } }));
    expect(new exports.Greeter('ada').greet(2)).toBe('hi ada hi ada');
    const greet = out.functions.find((f) => f.name === 'greet')!;
    // greet's head in the instrumented output leads to line 3 of greeter.ts
    const generated = out.code.split('\n').findIndex((l) => /\bgreet\(times\)/.test(l));
    const column = out.code.split('\n')[generated].indexOf('greet(');
    const pos = originalPositionFor(new TraceMap(out.map), { line: generated + 1, column });
    expect(pos).toMatchObject({ source: 'greeter.ts', line: 3 });
    expect(greet.instrumented).toBe(true);
  });
});

describe('code carrying its map inline', () => {
  test("SWC's inline map is chained, and the comment carries the chained map (the old one no longer matches)", () => {
    const original = 'function f(a: number) {\n  const b = a + 1;\n  return g(b);\n}\nfunction g(x: number) {\n  if (x > 1) throw new Error("at g");\n  return x;\n}\nmodule.exports = f;\n';
    const built = transformSync(original, { filename: 'one.ts', sourceMaps: 'inline', minify: true, jsc: { parser: { syntax: 'typescript' }, target: 'es2022', minify: { compress: false, mangle: false } } });
    const out = instrument(built.code, { threshold: 1, filename: 'one.js' });
    const comment = /sourceMappingURL=data:application\/json;charset=utf-8;base64,(\S+)\s*$/.exec(out.code);
    expect(JSON.parse(Buffer.from(comment![1], 'base64').toString('utf8'))).toEqual(out.map);
    // The throw in g, in the instrumented code, leads back to line 6 of one.ts.
    const lines = out.code.split('\n');
    const line = lines.findIndex((l) => l.includes('throw new Error'));
    const pos = originalPositionFor(new TraceMap(out.map), { line: line + 1, column: lines[line].indexOf('throw new Error') });
    expect(pos).toMatchObject({ source: 'one.ts', line: 6 });
  });
});

describe('the webpack loader', () => {
  const loader = require('../src/loader').default;
  const call = (source: string, inputMap: any, options: object) =>
    new Promise<{ error: Error | null; code?: string; map?: any }>((resolve) =>
      loader.call(
        { resourcePath: '/app/src/greeter.js', sourceMap: true, getOptions: () => options, callback: (error: Error | null, code?: string, map?: any) => resolve({ error, code, map }) },
        source,
        inputMap,
      ),
    );

  test('instruments the previous loader’s output and passes on a chained map', async () => {
    const built = transformSync('export const twice = (s: string) => { const t = s + s; return t; };', { filename: 'greeter.ts', sourceMaps: true, jsc: { parser: { syntax: 'typescript' } } });
    const { error, code, map } = await call(built.code, JSON.parse(built.map!), { threshold: 1 });
    expect(error).toBeNull();
    expect(code).toContain('delete __jsprof$s[1]');
    expect(map.sources).toEqual(['greeter.ts']);
  });

  test("a module webpack makes an asset of (a script imported as text, or emitted as a file) is passed on as it is", async () => {
    const source = 'export function sum(n) {\n  let s = 0;\n  for (let i = 0; i < n; i++) s += i;\n  return s;\n}\n';
    for (const type of ['asset/source', 'asset/resource', 'asset/inline']) {
      const passed = await new Promise<{ code?: string; map?: any }>((resolve) =>
        loader.call({ resourcePath: '/app/src/sum.js', _module: { type }, getOptions: () => ({ threshold: 1 }), callback: (_: Error | null, code?: string, map?: any) => resolve({ code, map }) }, source, null),
      );
      expect(passed).toEqual({ code: source, map: null });
    }
    expect((await call(source, null, { threshold: 1 })).code).toContain('__jsprof$c[');
  });

  test('bad options and syntax errors reach webpack as errors, not throws', async () => {
    expect((await call('f()', null, { threshold: -1 })).error?.message).toMatch(/threshold/);
    expect((await call('var a = 1;\nfunction (', null, {})).error?.message).toBe('/app/src/greeter.js:2:10: Unexpected token');
  });

  test('TypeScript that reaches it before swc-loader: the error says to list it before swc-loader in `use`', async () => {
    const error = await new Promise<Error | null>((resolve) =>
      loader.call({ resourcePath: '/app/src/util.ts', getOptions: () => ({}), callback: (e: Error | null) => resolve(e) }, 'const size: number = 1;\n', null),
    );
    expect(error?.message).toMatch(/^\/app\/src\/util\.ts:1:11: .*list '@jsprof\/swc-plugin\/loader' before 'swc-loader'/);
  });

  test('a devtool a profile cannot be read through (eval, development mode\'s default; cheap) gets one warning a build, saying which to use', async () => {
    const webpack = require('webpack');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-swc-loader-'));
    fs.writeFileSync(path.join(dir, 'sum.js'), 'export function sum(n) {\n  let s = 0;\n  for (let i = 0; i < n; i++) s += i;\n  return s;\n}\n');
    fs.writeFileSync(path.join(dir, 'index.js'), "import { sum } from './sum.js';\nconsole.log(sum(3));\n");
    const warnings = (options: object) =>
      new Promise<string[]>((resolve, reject) =>
        webpack(
          { context: dir, entry: './index.js', output: { path: path.join(dir, 'dist') }, module: { rules: [{ test: /\.js$/, use: [{ loader: require.resolve('../src/loader'), options: { threshold: 1 } }] }] }, ...options },
          (error: Error | null, stats: any) => (error || stats.hasErrors() ? reject(error ?? new Error(stats.toString('errors-only'))) : resolve(stats.compilation.warnings.map((w: Error) => w.message))),
        ),
      );
    try {
      expect(await warnings({ mode: 'development' })).toEqual([
        expect.stringContaining("jsprof: devtool 'eval' runs each module through eval, whose frames a profile leaves out (it shows only webpack's module wrappers): use 'source-map' (or 'hidden-source-map')"),
      ]);
      expect(await warnings({ mode: 'development', devtool: 'cheap-module-source-map' })).toEqual([expect.stringContaining("jsprof: devtool 'cheap-module-source-map' maps lines, not columns")]);
      expect(await warnings({ mode: 'development', devtool: 'source-map' })).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('code SWC refuses but acorn reads (a Unicode 17 identifier, test262) is instrumented from acorn\'s tree', () => {
  const code = 'var \u088f = 1;\nfunction f(a) { for (; a; a--); return a + \u088f; }\nf(2);';
  const out = instrument(code, { threshold: 1, filename: 'unicode17.js' });
  expect(out.changed).toBe(true);
  expect(vm.runInNewContext(out.code)).toBe(1);
  expect(() => instrument('var x = ;', { filename: 'bad.js' })).toThrow(/^bad\.js/);
});

test('a syntax error names its line and column (not those of the code frame SWC prints), on the first line too', () => {
  const at = (code: string) => {
    try {
      instrument(code, { filename: 'bad.js' });
    } catch (error) {
      return [error instanceof JsSyntaxError, (error as Error).message];
    }
  };
  expect(at('const x = 1;\nfunction g() {\n  return x +;\n}\n')).toEqual([true, 'bad.js:3:13: Unexpected token']);
  expect(at('function f( {')).toEqual([true, 'bad.js:1:14: Unexpected token']);
});
