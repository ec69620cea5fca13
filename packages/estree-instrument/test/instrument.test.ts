/**
 * The ESTree front inserts what the Babel plugin inserts, by the same rules: every case of the
 * Babel plugin's corpus (cases.ts) runs unchanged and fires the same checks, the same functions are
 * instrumented and named, positions map back exactly, and the text around the edits survives.
 */
import * as acorn from 'acorn';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { CHECK_SOURCE, ENTRY_CHECK_SOURCE, GLOBAL_MODULE_PRELUDE_SOURCE, GLOBAL_PRELUDE_SOURCE, exitCheckSource, isInstrumentedSource } from '@jsprof/policy';
import { instrument, relocateSources } from '../src';
import { CASES } from '../../../fixtures/corpus/cases';
import { FakeRuntime, instrument as babelInstrument } from '../../babel-plugin/test/helpers';

type SourceType = 'script' | 'module';

function parse(code: string, sourceType: SourceType = 'script') {
  return acorn.parse(code, { ecmaVersion: 'latest', sourceType, allowHashBang: true }) as any;
}

function run(code: string, options: object = {}, sourceType: SourceType = 'script') {
  return instrument({ code, program: parse(code, sourceType), filename: 'case.js' }, options);
}

function runScript(code: string, globals: Record<string, unknown> = {}) {
  return vm.runInContext(code, vm.createContext({ ...globals }), { filename: 'case.js' });
}

const FORMS = fs.readFileSync(path.join(__dirname, '../../../fixtures/corpus/forms.js'), 'utf8');

describe('every case of the corpus, as a classic script', () => {
  const source = (c: (typeof CASES)[number]) => `${c.code}\n;(${c.result});\n`;
  const original = async (c: (typeof CASES)[number]) => JSON.stringify(await runScript(source(c)));

  test.each(CASES)('$name: same result, the same checks run as with the Babel plugin', async (c) => {
    const out = run(source(c), { threshold: 1 });
    const runtime = new FakeRuntime();
    expect(JSON.stringify(await runScript(out.code, { __jsprof: runtime.hook }))).toBe(await original(c));
    expect(runtime.calls).toBe(c.checks);
  });

  test.each(CASES)('$name: same result without the runtime', async (c) => {
    const out = run(source(c), { threshold: 1 });
    expect(JSON.stringify(await runScript(out.code))).toBe(await original(c));
  });

  test.each(CASES)('$name: same result, checks run (runtime required)', async (c) => {
    const out = run(source(c), { threshold: 1, runtime: 'import' });
    const runtime = new FakeRuntime();
    const require = (id: string) => (id === '@jsprof/runtime' ? runtime.module : undefined);
    expect(JSON.stringify(await runScript(out.code, { require }))).toBe(await original(c));
    expect(runtime.calls).toBe(c.checks);
  });

  test.each(CASES.filter((c) => !c.sloppy))('$name: parses as a module too', (c) => {
    const out = run(`${c.code}\nexport default (${c.result});\n`, { threshold: 1 }, 'module');
    expect(() => parse(out.code, 'module')).not.toThrow();
  });
});

describe('the same functions as the Babel plugin', () => {
  const summary = (records: { name: string; line: number; column: number; instrumented: boolean }[]) =>
    records.map((f) => `${f.name}@${f.line}:${f.column}${f.instrumented ? ' checked' : ''}`);

  test.each([1, 3, 10])('forms.js at threshold %i: same names, positions and choices', (threshold) => {
    const babel = babelInstrument(FORMS, { threshold }, { sourceType: 'script' });
    const ours = run(FORMS, { threshold });
    expect(summary(ours.functions)).toEqual(summary(babel.jsprof.functions));
    expect(ours.stats.instrumented).toBe(babel.jsprof.instrumented);
  });

  test.each(CASES)('$name: same names, positions and choices', (c) => {
    const babel = babelInstrument(c.code, { threshold: 2 });
    const ours = run(c.code, { threshold: 2 });
    expect(summary(ours.functions)).toEqual(summary(babel.jsprof.functions));
  });
});

describe('positions map back exactly', () => {
  test('every function of the output maps to the same function of the input', () => {
    const out = run(FORMS, { threshold: 1, loops: true });
    const map = new TraceMap(out.map);
    const inOutput = run(out.code, { threshold: 1 }).functions; // lists functions, changes nothing
    const originals = new Set(run(FORMS, { threshold: 1 }).functions.map((f) => `${f.name}@${f.line}:${f.column}`));
    const prelude = out.code.indexOf(GLOBAL_PRELUDE_SOURCE);
    const mapped = inOutput
      .filter((f) => f.start < prelude || f.start >= prelude + GLOBAL_PRELUDE_SOURCE.length)
      .map((f) => {
        const pos = originalPositionFor(map, { line: f.line, column: f.column - 1 });
        return `${f.name}@${pos.line}:${(pos.column ?? -2) + 1}`;
      });
    expect(mapped.length).toBeGreaterThan(40);
    for (const m of mapped) expect(originals).toContain(m);
  });

  test('an input source map is chained', () => {
    const code = 'function f(a) { return a + 1; }\n';
    const input = { version: 3, sources: ['original.ts'], names: [], mappings: 'AAAA;', sourcesContent: ['x'] };
    const out = instrument({ code, program: parse(code), filename: 'f.js', inputSourceMap: input }, { threshold: 1 });
    expect(out.map.sources).toEqual(['original.ts']);
  });
});

describe('inserted text', () => {
  test('checks and prelude are the policy texts; no line is added, no character removed', () => {
    const code = 'function f() {\n  a();\n}\nfunction g(x) {\n  if (x) return x\n  else x = 1\n  return;\n}\nconst h = (y) => y;\n';
    const out = run(code, { threshold: 1 });
    expect(out.code).toBe(
      `;${GLOBAL_PRELUDE_SOURCE}function f() { ${ENTRY_CHECK_SOURCE}\n  a();\n ${exitCheckSource(false, 'undefined')}}\n` +
        `function g(x) { ${ENTRY_CHECK_SOURCE}\n  let __jsprof$r; __jsprof$l: { if (x) { __jsprof$r = /*return*/ x;break __jsprof$l; }\n  else x = 1\n  { __jsprof$r = void /*return*/ 0; break __jsprof$l; }\n } ${exitCheckSource(false, 'value')} return __jsprof$r; }\n` +
        `const h = (y) =>{${ENTRY_CHECK_SOURCE} let __jsprof$r = ( y); ${exitCheckSource(false, 'value')} return __jsprof$r; };\n`,
    );
  });

  test('guard clauses the body starts with stay before the entry check, their returns as they were', () => {
    const code = 'function g(s) {\n  "use strict"\n  var ch = s.charCodeAt(0)\n  if (ch !== 33) return false\n  a()\n  return true\n}\nvar a = () => 0;\n';
    const out = run(code, { threshold: 2 });
    expect(out.code).toContain(
      `function g(s) {\n  "use strict"\n  var ch = s.charCodeAt(0)\n  if (ch !== 33) return false;${ENTRY_CHECK_SOURCE}\n  let __jsprof$r; __jsprof$l: { a()\n  { __jsprof$r = /*return*/ true;break __jsprof$l; }\n } ${exitCheckSource(false, 'value')} return __jsprof$r; }`,
    );
    expect(runScript(`${out.code}; [g('a'), g('!')]`)).toEqual([false, true]);
  });

  test('directive prologues stay first, in the program and in functions, with or without semicolons', () => {
    const code = '"use strict"\nfunction f() { "use strict"\n"another"\n a(); }';
    const out = run(code, { threshold: 1, exits: false });
    expect(out.code.startsWith(`"use strict";${GLOBAL_PRELUDE_SOURCE}\n`)).toBe(true);
    expect(out.code).toContain(`{ "use strict"\n"another";${ENTRY_CHECK_SOURCE}\n a(); }`);
    const fn = runScript(`${out.code}; f`) as () => void;
    expect(() => runScript(`${out.code}; f.caller`)).toThrow(); // strict function: no caller access
    expect(typeof fn).toBe('function');
  });

  test('a hashbang line, a BOM, CRLF and astral characters survive', () => {
    const body = 'const s = "𝒳é"; // 𝒳\r\nfunction f(a) {\r\n  return s + a;\r\n}\r\n';
    const hashbang = run(`#!/usr/bin/env node\r\n${body}`, { threshold: 1 });
    expect(hashbang.code.startsWith('#!/usr/bin/env node\r\n;var __jsprof$h = ')).toBe(true);
    expect(hashbang.code).toContain('const s = "𝒳é"; // 𝒳\r\n');
    expect(runScript(`${hashbang.code.replace(/^#!.*/, '')}; f(1)`)).toBe('𝒳é1');
    const bom = run(`\uFEFF${body}`, { threshold: 1 });
    expect(bom.code.startsWith('\uFEFF;var __jsprof$h = ')).toBe(true);
    expect(runScript(`${bom.code}; f(2)`)).toBe('𝒳é2');
  });

  test('function declarations stay where they are in the labelled body, and still hoist; they move out, in their order, only where a block would not hoist them the same', () => {
    const code = 'function f() { var r = [g(), h()]; function g() { return 1; } x(); function h() { return 2; } return r; }\nvar x = () => 0;';
    const out = run(code, { threshold: 1 });
    expect(out.code.indexOf('__jsprof$l: { var r')).toBeLessThan(out.code.indexOf('function g()'));
    expect(out.code.indexOf('function g()')).toBeLessThan(out.code.indexOf('function h()'));
    expect(JSON.stringify(runScript(`${out.code}; f()`))).toBe('[1,2]');
    // g is also a var: a block holding its declaration would be a SyntaxError, so the declarations move before it.
    const clash = 'function f() { var r = [g(), h()]; var g; function g() { return 1; } x(); function h() { return 2; } return r; }\nvar x = () => 0;';
    const moved = run(clash, { threshold: 1 });
    expect(moved.code.indexOf('function g()')).toBeLessThan(moved.code.indexOf('function h()'));
    expect(moved.code.indexOf('function h()')).toBeLessThan(moved.code.indexOf('__jsprof$l: { var r'));
    expect(JSON.stringify(runScript(`${moved.code}; f()`))).toBe('[1,2]');
  });

  test.each([
    // Sloppy code binds a function declared in a nested block in the function's scope too (Annex B): the block's own g would hide it.
    ['if (x) { function g() { return "inner"; } } if (!x) return g(); return g(); function g() { return "outer"; }', 'f(true)', 'inner'],
    ['switch (x) { case 2: function g() { return "case"; } } if (!x) return g(); return g(); function g() { return "outer"; }', 'f(2)', 'case'],
    // A direct eval may declare the name: in a block, var g would clash with the block's function g.
    ['eval("var g = 1"); if (g) return g; return 0; function g() {}', 'f()', 1],
    ['eval("function g() { return 5; }"); if (g) return g(); return 0; function g() { return 1; }', 'f()', 5],
  ])('where a block would not hoist a declaration as the body did (%s), it moves before the block: the same result', (body, call, expected) => {
    const code = `function f(x) { ${body} }`;
    expect(runScript(`${code}; ${call}`)).toBe(expected);
    const out = run(code, { threshold: 1 });
    expect(out.code).toContain('__jsprof$l:');
    expect(runScript(`${out.code}; ${call}`)).toBe(expected);
  });

  test('nested arrows and object bodies close in the right order', () => {
    const code = 'var k = a => b => ({ a, b }); var s = (a) => (a, a + 1);';
    const out = run(code, { threshold: 1 });
    expect(JSON.stringify(runScript(`${out.code}; [k(1)(2), s(3)]`))).toBe('[{"a":1,"b":2},4]');
  });

  test('loop bodies get a check first; single statements become blocks', () => {
    const out = run('function f(n) { while (n--) g(); for (;;) { break; } for (const x of []) for (;;) break; }', { threshold: 1, loops: true, exits: false });
    expect(out.code).toContain(`while (n--) {${CHECK_SOURCE} g(); /*__jsprof$}*/}`);
    expect(out.code).toContain(`for (;;) { ${CHECK_SOURCE} break; }`);
    expect(out.code).toContain(`for (const x of []) {${CHECK_SOURCE} for (;;) {${CHECK_SOURCE} break; /*__jsprof$}*/} /*__jsprof$}*/}`);
  });

  test('instrumenting twice changes nothing; excluded files and small functions are left alone', () => {
    const once = run(FORMS, { threshold: 1 });
    expect(isInstrumentedSource(once.code)).toBe(true);
    const twice = run(once.code, { threshold: 1 });
    expect(twice.changed).toBe(false);
    expect(twice.code).toBe(once.code);
    expect(run(FORMS, { threshold: 1, exclude: ['case.js'] }).changed).toBe(false);
    const small = run('function f() { a(); }', { threshold: 2 });
    expect(small.changed).toBe(false);
    expect(small.map).toBeNull();
  });

  test('an ES module reaching the runtime through the global gets the prelude without checks of its own, as by the Babel plugin', () => {
    for (const [sourceType, runtime] of [['module', 'global'], ['script', 'global'], ['module', 'import']] as const) {
      const code = 'export function f() { a(); }'.slice(sourceType === 'module' ? 0 : 7);
      const out = run(code, { threshold: 2, runtime }, sourceType);
      const babel = babelInstrument(code, { threshold: 2, runtime }, { sourceType });
      expect([sourceType, runtime, out.changed, babel.jsprof.changed]).toEqual([sourceType, runtime, sourceType === 'module' && runtime === 'global', out.changed]);
      expect(out.code.includes(GLOBAL_MODULE_PRELUDE_SOURCE)).toBe(out.changed);
      expect(out.stats.instrumented).toBe(0);
    }
  });

  test('bad options are rejected up front, as by the Babel plugin', () => {
    expect(() => run('f()', { threshold: -1 })).toThrow(/threshold/);
  });
});

describe('relocateSources', () => {
  test("relative sources resolve to the same files from the new place, in a plain map and in an index map's sections", () => {
    const plain = { version: 3, sources: ['../src/a.ts', 'https://example.com/b.js', '/abs/c.js'], mappings: 'AAAA' };
    expect(relocateSources(plain, '/p/dist', '/p/out/deep', 'a.js')).toMatchObject({ file: 'a.js', sources: ['../../src/a.ts', 'https://example.com/b.js', '/abs/c.js'] });
    const index = { version: 3, sections: [{ offset: { line: 0, column: 0 }, map: plain }, { offset: { line: 9, column: 0 }, map: { ...plain, sources: ['d.ts'] } }] };
    const moved = relocateSources(index, '/p/dist', '/p/out', 'a.js');
    expect(moved.sections.map((s: any) => s.map.sources)).toEqual([['../src/a.ts', 'https://example.com/b.js', '/abs/c.js'], ['../dist/d.ts']]);
    expect(moved.sections[1].offset).toEqual({ line: 9, column: 0 });
  });
});
