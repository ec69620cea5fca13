/** Function tables: frames of any engine become their function, at V8's start (real tables, from estree-instrument). */
import * as vm from 'node:vm';
import { TABLE_REGISTRATION, TABLE_REGISTRY, functionTable, parseJs } from '@jsprof/estree-instrument';
import type { RawFrame } from '../src/capture';
import { TableEntry, functionOf, functionTableResolver, functionTableUrl, loadFunctionTables } from '../src/function-tables';
import { TABLE_REGISTRY_GLOBAL } from '../src/names';
import { defaultResolver } from '../src/trace';

const CODE = [
  'function outer(a) {',
  '  const inner = (b) => work(b);', //   inner: `(` at 2:17, its call of work at 2:26
  '  return inner(a) + 1;', //           the call of inner at 3:10
  '}',
  'const obj = {};',
  'obj.assigned = function (c) { return work(c); };', // Chromium's Profiler names this ''
].join('\n');

/** A script with checks, as a build instruments it: `hot` carries them, the wrapper does not. */
const CHECKED = (() => {
  const { instrument } = require('@jsprof/estree-instrument') as typeof import('@jsprof/estree-instrument');
  const source = 'function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }\nconst wrap = (n) => hot(n);\n';
  return instrument({ code: source, program: parseJs(source), sourceMap: false }, {}).code;
})();

const frame = (url: string, line: number, column: number): RawFrame => ({ url, name: 'engine-name', line, column, native: false });

let fetched: string[];
beforeAll(async () => {
  fetched = [];
  const responses: Record<string, () => Promise<Response>> = {
    'https://app.example/app.js.jsprof.json': async () => new Response(JSON.stringify(functionTable(CODE, parseJs(CODE)))),
    'https://app.example/broken.js.jsprof.json': async () => new Response('{"version":1,"functions":[["f",1]]}'),
    'https://app.example/checked.js.jsprof.json': async () => new Response(JSON.stringify(functionTable(CHECKED, parseJs(CHECKED)))),
  };
  (globalThis as any).fetch = async (url: string) => {
    fetched.push(url);
    return (responses[url] ?? (async () => new Response('not found', { status: 404 })))();
  };
  // The statement builds append to each script they write a table for, run as those scripts.
  // (Node's own global, not Jest's, is theirs: the list is moved over.)
  for (const url of ['https://app.example/app.js?v=2', 'https://app.example/broken.js', 'https://app.example/none.js', 'https://app.example/checked.js']) vm.runInThisContext(TABLE_REGISTRATION, { filename: url });
  (globalThis as any)[TABLE_REGISTRY_GLOBAL] = vm.runInThisContext(`[globalThis.${TABLE_REGISTRY}, delete globalThis.${TABLE_REGISTRY}][0]`);
  await loadFunctionTables(['https://app.example/app.js?v=2', 'https://app.example/app.js?v=2', 'https://app.example/broken.js', 'https://app.example/none.js', 'https://app.example/babel-built.js', 'https://app.example/checked.js', 'data:text/javascript,1']);
});
afterAll(() => {
  delete (globalThis as any).fetch;
  delete (globalThis as any)[TABLE_REGISTRY_GLOBAL];
});

test('the runtime reads the registrations where the builds write them, and empties the list', () => {
  expect(TABLE_REGISTRY_GLOBAL).toBe(TABLE_REGISTRY);
  expect((globalThis as any)[TABLE_REGISTRY_GLOBAL]).toEqual([]);
});

test('a table is fetched once per script that said it has one, beside it, without its query', () => {
  expect(functionTableUrl('https://app.example/app.js?v=2#x')).toBe('https://app.example/app.js.jsprof.json');
  expect(functionTableUrl('data:text/javascript,1')).toBeNull();
  expect(fetched.sort()).toEqual(['https://app.example/app.js.jsprof.json', 'https://app.example/broken.js.jsprof.json', 'https://app.example/checked.js.jsprof.json', 'https://app.example/none.js.jsprof.json']);
});

test("V8's head positions and other engines' call sites name the same function, at V8's start", () => {
  const resolve = functionTableResolver(defaultResolver);
  const url = 'https://app.example/app.js?v=2';
  // V8: CallSite's enclosing position, where the function starts (here the `function` keyword).
  // (and the table says these functions carry no checks: see buildTrace)
  const plain = { instrumented: false };
  expect(resolve(frame(url, 1, 1))).toEqual({ name: 'outer', url, line: 1, column: 15, ...plain });
  // SpiderMonkey / JavaScriptCore: only the call site (inside outer's body, outside inner).
  expect(resolve(frame(url, 3, 10))).toEqual({ name: 'outer', url, line: 1, column: 15, ...plain });
  // A call inside the arrow belongs to the arrow, the innermost function holding it.
  expect(resolve(frame(url, 2, 26))).toEqual({ name: 'inner', url, line: 2, column: 17, ...plain });
  expect(resolve(frame(url, 6, 38))).toEqual({ name: '', url, line: 6, column: 25, ...plain });
});

test('frames of scripts without a usable table, and top-level code, keep their positions', () => {
  const resolve = functionTableResolver(defaultResolver);
  for (const url of ['https://app.example/broken.js', 'https://app.example/none.js']) expect(resolve(frame(url, 3, 10))).toEqual({ name: 'engine-name', url, line: 3, column: 10 });
  expect(resolve(frame('https://app.example/app.js?v=2', 5, 13))).toEqual({ name: 'engine-name', url: 'https://app.example/app.js?v=2', line: 5, column: 13 });
});

describe('tables written by jsprof instrument and the bundler plugins', () => {
  const fs = require('node:fs') as typeof import('node:fs');
  const { instrument } = require('@jsprof/estree-instrument') as typeof import('@jsprof/estree-instrument');
  const PRELUDE_FUNCTION = /^function \((g, h, d|k, v)\)/;

  // The table of an instrumented file is carried from the input's functions through the edits; a
  // table made by parsing the output again must name every position of the output the same way.
  test.each([
    ['fixtures/corpus/forms.js', 10],
    ['node_modules/acorn/dist/acorn.js', 1],
    ['node_modules/js-yaml/dist/js-yaml.min.js', 1],
    ['node_modules/marked/lib/marked.umd.js', 10],
  ])('%s at threshold %d: the carried table agrees with the output parsed again', (file, threshold) => {
    const code = fs.readFileSync(require.resolve(`../../../${file}`), 'utf8');
    const out = instrument({ code, program: parseJs(code, file), sourceMap: false, functionTable: true }, { threshold });
    const lines = out.code.split('\n');
    const reparsed = functionTable(out.code, parseJs(out.code, file)).functions.filter((e) => !PRELUDE_FUNCTION.test(lines[e[1] - 1].slice(e[2] - 1)));
    expect(out.table!.functions.length).toBe(reparsed.length);
    const describe = (e: TableEntry | undefined) => e && `${e[0]}@${e[7]}:${e[8]}`;
    let probes = 0;
    lines.forEach((text, i) => {
      for (let column = 1; column <= text.length; column += 7) {
        const at = { line: i + 1, column };
        expect(describe(functionOf(out.table!.functions, at))).toBe(describe(functionOf(reparsed, at)));
        probes++;
      }
    });
    expect(probes).toBeGreaterThan(300);
  });
});

describe('names in the sources, from the build’s source map', () => {
  const { instrument } = require('@jsprof/estree-instrument') as typeof import('@jsprof/estree-instrument');
  const SOURCE = [
    'export function countPrimes(limit) { let n = 0; for (let i = 2; i < limit; i++) n += isPrime(i) ? 1 : 0; return n; }',
    'function isPrime(candidate) { for (let d = 2; d * d <= candidate; d++) if (candidate % d === 0) return false; return true; }',
    'export const renderRow = (row) => `<td>${row}</td>`;',
    'export class Table { constructor(rows) { this.rows = rows; } get size() { return this.rows.length; } #secret() { return 1; } render() { return this.rows.map(renderRow).join("") + this.#secret(); } }',
    'export const anonymous = [function () { return 1; }];',
  ].join('\n');
  const minified = require('esbuild').transformSync(SOURCE, { minify: true, sourcemap: 'external', format: 'iife', sourcefile: 'app.js' });
  const names = (table: { functions: TableEntry[] }) => table.functions.map((e) => e[0]);
  // The first is esbuild's IIFE.
  const EXPECTED = ['', 'countPrimes', 'isPrime', 'renderRow', 'Table', 'get size', '#secret', 'render', ''];

  test('a minified script: the names a minifier changed are the sources’ names', () => {
    const program = parseJs(minified.code, 'app.min.js');
    expect(names(functionTable(minified.code, program))).not.toEqual(EXPECTED); // esbuild renamed some
    expect(names(functionTable(minified.code, program, minified.map))).toEqual(EXPECTED);
    expect(names(functionTable(minified.code, program, JSON.parse(minified.map)))).toEqual(EXPECTED);
    expect(names(functionTable(minified.code, program, '{ not a map'))).toEqual(names(functionTable(minified.code, program)));
  });

  test('jsprof instrument: the table of the instrumented bundle, named through the bundle’s own map', () => {
    const out = instrument({ code: minified.code, program: parseJs(minified.code), inputSourceMap: minified.map, sourceMap: false, functionTable: true }, { threshold: 1 });
    expect(out.changed).toBe(true);
    expect(names(out.table!)).toEqual(EXPECTED);
  });
});

describe('which functions carry checks', () => {
  const { instrument } = require('@jsprof/estree-instrument') as typeof import('@jsprof/estree-instrument');
  const SOURCE = [
    'function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }',
    'const wrap = (n) => hot(n);',
    'function outer() { return function inner(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }; }',
  ].join('\n');
  const checksOf = (table: { functions: TableEntry[] }) => Object.fromEntries(table.functions.map((e) => [e[0], e[9]]));
  const EXPECTED = { hot: 1, wrap: 0, outer: 0, inner: 1 };

  test('frames say so, where their table does', () => {
    const resolve = functionTableResolver(defaultResolver);
    const url = 'https://app.example/checked.js';
    const at = (text: string) => {
      const line = CHECKED.split('\n').findIndex((l) => l.includes(text));
      return frame(url, line + 1, CHECKED.split('\n')[line].indexOf(text) + 1);
    };
    expect(resolve(at('s += i'))).toMatchObject({ name: 'hot', instrumented: true });
    expect(resolve(at('=> hot(n)'))).toMatchObject({ name: 'wrap', instrumented: false });
  });

  test('the table says which, for code instrumented here, read again, or minified', () => {
    const out = instrument({ code: SOURCE, program: parseJs(SOURCE), sourceMap: false, functionTable: true }, {});
    expect(checksOf(out.table!)).toEqual(EXPECTED);
    expect(checksOf(functionTable(out.code, parseJs(out.code)))).toMatchObject(EXPECTED);
    // minified (esbuild drops the name of `inner`): in source order, hot, wrap, outer, inner
    const minified = require('esbuild').transformSync(out.code, { minify: true });
    const entries = functionTable(minified.code, parseJs(minified.code)).functions.slice(2); // the first two are the prelude's
    expect(entries.map((e) => e[9])).toEqual([1, 0, 0, 1]);
    // jsprof instrument on code instrumented before: the checks it finds there
    const again = instrument({ code: out.code, program: parseJs(out.code), sourceMap: false, functionTable: true }, {});
    expect(again.changed).toBe(false);
    expect(checksOf(again.table!)).toMatchObject(EXPECTED);
  });
});
