/** Options: validated once, defaults filled in, messages that say what to write instead. */
import { DEFAULT_OPTIONS, OptionsError, normalizeOptions, shouldInstrumentFile } from '../src/options';

describe('normalizeOptions', () => {
  test('nothing gives the defaults, with lists of its own', () => {
    const a = normalizeOptions(undefined);
    expect(a).toEqual({ threshold: 10, loopingFunctions: true, loops: false, exits: true, runtime: 'global', importSource: '@jsprof/runtime', include: [], exclude: [] });
    expect(normalizeOptions(null)).toEqual(a);
    expect(normalizeOptions({})).toEqual(a);
    a.include.push('x');
    expect(DEFAULT_OPTIONS.include).toEqual([]);
    expect(normalizeOptions({}).include).toEqual([]);
  });

  test('every option can be set', () => {
    const options = normalizeOptions({
      threshold: 0,
      loopingFunctions: false,
      loops: true,
      exits: false,
      runtime: 'import',
      importSource: 'my-runtime',
      include: 'src/',
      exclude: [/test/, 'vendor'],
    });
    expect(options).toEqual({
      threshold: 0,
      loopingFunctions: false,
      loops: true,
      exits: false,
      runtime: 'import',
      importSource: 'my-runtime',
      include: ['src/'],
      exclude: [/test/, 'vendor'],
    });
  });

  test.each([
    ['a string', 'fast', 'options must be an object, got "fast"'],
    ['an array', [], 'options must be an object, got an array'],
    ['an unknown option', { treshold: 3 }, 'unknown option "treshold"; known options are: threshold, loopingFunctions, loops, exits, runtime, importSource, include, exclude'],
    ['a negative threshold', { threshold: -1 }, 'option "threshold" must be a whole number of statements ≥ 0; got -1'],
    ['a fractional threshold', { threshold: 2.5 }, 'option "threshold" must be a whole number of statements ≥ 0; got 2.5'],
    ['a threshold string', { threshold: '10' }, 'option "threshold" must be a whole number of statements ≥ 0; got "10"'],
    ['NaN', { threshold: NaN }, 'option "threshold" must be a whole number of statements ≥ 0; got NaN'],
    ['Infinity', { threshold: Infinity }, 'option "threshold" must be a whole number of statements ≥ 0; got Infinity'],
    ['null threshold', { threshold: null }, 'option "threshold" must be a whole number of statements ≥ 0; got null'],
    ['loops as a string', { loops: 'yes' }, 'option "loops" must be true or false; got "yes"'],
    ['loopingFunctions as a number', { loopingFunctions: 0 }, 'option "loopingFunctions" must be true or false; got 0'],
    ['exits as a number', { exits: 1 }, 'option "exits" must be true or false; got 1'],
    ['an unknown runtime', { runtime: 'esm' }, 'option "runtime" must be "global" or "import"; got "esm"'],
    ['an empty importSource', { importSource: '' }, 'option "importSource" must be a module specifier string; got ""'],
    ['include of numbers', { include: [1] }, 'option "include" must be a string, a RegExp or an array of them; got 1'],
    ['exclude as an object', { exclude: { a: 1 } }, 'option "exclude" must be a string, a RegExp or an array of them; got object'],
    ['exclude with null', { exclude: ['a', null] }, 'option "exclude" must be a string, a RegExp or an array of them; got null'],
  ])('rejects %s', (_, raw, message) => {
    expect(() => normalizeOptions(raw)).toThrow(new OptionsError(message));
    expect(() => normalizeOptions(raw)).toThrow(`@jsprof: ${message}`);
  });

  test('errors are OptionsErrors', () => {
    let error: unknown;
    try {
      normalizeOptions({ threshold: -1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OptionsError);
    expect((error as Error).name).toBe('OptionsError');
  });
});

describe('shouldInstrumentFile', () => {
  test('code without a file name is instrumented', () => {
    expect(shouldInstrumentFile(normalizeOptions({ include: ['src/'] }), undefined)).toBe(true);
    expect(shouldInstrumentFile(normalizeOptions({}), null)).toBe(true);
  });

  test('include keeps only matching files; exclude wins over include', () => {
    const options = normalizeOptions({ include: ['/src/', /\.mjs$/], exclude: [/\/vendor\//] });
    expect(shouldInstrumentFile(options, '/app/src/a.js')).toBe(true);
    expect(shouldInstrumentFile(options, '/app/lib/b.mjs')).toBe(true);
    expect(shouldInstrumentFile(options, '/app/lib/b.js')).toBe(false);
    expect(shouldInstrumentFile(options, '/app/src/vendor/c.js')).toBe(false);
  });

  test('Windows paths are matched with forward slashes', () => {
    const options = normalizeOptions({ exclude: ['node_modules/'] });
    expect(shouldInstrumentFile(options, 'C:\\app\\node_modules\\x\\index.js')).toBe(false);
    expect(shouldInstrumentFile(options, 'C:\\app\\src\\index.js')).toBe(true);
  });

  test("jsprof's installed runtime never, whatever include says", () => {
    const options = normalizeOptions({ include: [/node_modules/] });
    expect(shouldInstrumentFile(options, '/app/node_modules/marked/lib/marked.esm.js')).toBe(true);
    expect(shouldInstrumentFile(options, '/app/node_modules/@jsprof/runtime/dist/browser/jsprof.mjs')).toBe(false);
    expect(shouldInstrumentFile(options, 'C:\\app\\node_modules\\@jsprof\\runtime\\dist\\index.js')).toBe(false);
  });

  test('a global RegExp gives the same answer every time', () => {
    const options = normalizeOptions({ exclude: /vendor/g });
    for (let i = 0; i < 3; i++) expect(shouldInstrumentFile(options, '/vendor/a.js')).toBe(false);
  });
});

describe('the option table', () => {
  test('names every option once, and its default is the default', () => {
    const { OPTIONS } = require('../src/options') as typeof import('../src/options');
    expect(OPTIONS.map((o) => o.name).sort()).toEqual(Object.keys(DEFAULT_OPTIONS).sort());
    for (const o of OPTIONS) expect(o.shownDefault).toContain(JSON.stringify(DEFAULT_OPTIONS[o.name]).replace(/"/g, "'").replace(/^\[\]$/, '[]'));
  });

  test("is the README's options table", () => {
    const { optionsTable } = require('../src/options') as typeof import('../src/options');
    const readme = require('node:fs').readFileSync(require('node:path').join(__dirname, '../README.md'), 'utf8');
    expect(readme).toContain(`${optionsTable()}\n\n`);
  });

  test('gives the CLI its placement flags', () => {
    const { OPTIONS } = require('../src/options') as typeof import('../src/options');
    expect(OPTIONS.filter((o) => o.flag).map((o) => o.flag!.flags)).toEqual(['--threshold <n>', '--no-looping-functions', '--loops', '--no-exits']);
  });
});
