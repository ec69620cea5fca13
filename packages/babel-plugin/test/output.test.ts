/**
 * What the plugin emits: a second pass changes nothing, source maps still lead every original token
 * home, directives stay first, and the inserted texts are exactly the policy's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from '@babel/parser';
import traverse from '@babel/traverse';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { CHECK_PROTOCOL, CHECK_SOURCE, ENTRY_CHECK_SOURCE, GLOBAL_MODULE_PRELUDE_SOURCE, GLOBAL_PRELUDE_SOURCE, LineIndex, importPreludeSource, isInstrumentedSource, requirePreludeSource } from '@jsprof/policy';
import { CASES } from '../../../fixtures/corpus/cases';
import { transformSync } from '@babel/core';
import plugin from '../src/index';
import { FakeRuntime, instrument, plain, runCommonJs, runScript } from './helpers';

const FORMS = fs.readFileSync(path.join(__dirname, '../../../fixtures/corpus/forms.js'), 'utf8');
const SOURCES: Array<[string, string]> = [['fixtures/corpus/forms.js', FORMS], ...CASES.map((c): [string, string] => [c.name, `${c.code}\n${c.result};\n`])];

const VARIANTS: Array<[string, object, 'script' | 'module']> = [
  ['defaults', { threshold: 1 }, 'script'],
  ['loops, no exits', { threshold: 1, loops: true, exits: false }, 'script'],
  ['runtime import, script', { threshold: 1, runtime: 'import' }, 'script'],
  ['runtime import, module', { threshold: 1, runtime: 'import' }, 'module'],
  ['global runtime, module', { threshold: 1, loops: true }, 'module'],
];

describe('a second pass changes nothing', () => {
  describe.each(VARIANTS)('%s', (_, options, sourceType) => {
    test.each(SOURCES.filter(([name]) => sourceType === 'script' || !CASES.find((c) => c.name === name)?.sloppy))('%s', (_name, source) => {
      const once = instrument(source, options, { sourceType });
      expect(isInstrumentedSource(once.code)).toBe(once.jsprof.changed);
      const twice = instrument(once.code, options, { sourceType });
      expect(twice.jsprof.changed).toBe(false);
      expect(twice.code).toBe(once.code);
    });
  });

  test('an ES module made CommonJS after instrumenting, its prelude writing globals, is recognised (it was wrapped again: a duplicate label)', () => {
    const once = instrument('export function f(a) { for (let i = 0; i < a; i++); return a; }', { threshold: 1 }, { sourceType: 'module', plugins: ['@babel/plugin-transform-modules-commonjs'] });
    expect(once.code).toContain('exports.f = f');
    const twice = instrument(once.code, { threshold: 1 }, { sourceType: 'script' });
    expect(twice.jsprof.changed).toBe(false);
    expect(twice.code).toBe(once.code);
  });

  test("an ES module whose prelude preset-env's typeof-symbol transform rewrote (targets without Symbol) is recognised, and the second pass's output still runs", () => {
    const source = 'export function f(a) { for (let i = 0; i < a; i++); return a; }';
    const babel = { sourceType: 'module' as const, plugins: ['@babel/plugin-transform-typeof-symbol', '@babel/plugin-transform-modules-commonjs'] };
    const once = instrument(source, { threshold: 1 }, babel);
    expect(once.code).toContain('_typeof(__jsprof$c)');
    expect(isInstrumentedSource(once.code)).toBe(true);
    const twice = instrument(once.code, { threshold: 1 }, { sourceType: 'script' });
    expect(twice.jsprof).toMatchObject({ changed: false, protocol: CHECK_PROTOCOL });
    expect(runCommonJs(twice.code, { Int32Array }).f(3)).toBe(3);
  });

  test('listed twice in one run (in plugins and in a preset), it instruments once, with the options of plugins, which Babel runs first', () => {
    const source = 'function f(a) { for (;;) return a; }\nf(7);';
    const preset = () => ({ plugins: [[plugin, { threshold: 1, exits: false }]] });
    const out = transformSync(source, { babelrc: false, configFile: false, sourceType: 'script', presets: [preset], plugins: [[plugin, { threshold: 1 }]] })!;
    expect(out.code).toBe(instrument(source, { threshold: 1 }).code);
    expect(runScript(out.code!)).toBe(7);
  });

  test("an ES module importing the runtime, made CommonJS in the same pass (its checks read _runtime.checkCounter), is recognised, and the second pass's output still runs", () => {
    const source = 'export function f(a) { for (let i = 0; i < a; i++); return a; }';
    const once = instrument(source, { threshold: 1, runtime: 'import' }, { sourceType: 'module', plugins: ['@babel/plugin-transform-modules-commonjs'] });
    expect(once.code).toContain('--_runtime.checkCounter[0]');
    const twice = instrument(once.code, { threshold: 1, runtime: 'import' }, { sourceType: 'script' });
    expect(twice.jsprof).toMatchObject({ changed: false, protocol: CHECK_PROTOCOL });
    const runtime = new FakeRuntime();
    expect(runCommonJs(twice.code, {}, { '@jsprof/runtime': runtime.module }).f(3)).toBe(3);
    expect(runtime.calls).toBe(2);
  });

  test('code without functions above the threshold is left alone and not marked', () => {
    const out = instrument('function f() { return 1; }', { threshold: 5 });
    expect(out.jsprof.changed).toBe(false);
    expect(isInstrumentedSource(out.code)).toBe(false);
  });
});

describe('source maps lead every original identifier home', () => {
  interface Identifier {
    name: string;
    line: number;
    column: number;
    /** Index of the top-level statement holding it. */
    statement: number;
  }

  function identifiers(code: string, sourceType: 'script' | 'module'): Identifier[] {
    const found: Identifier[] = [];
    ((traverse as any).default ?? traverse)(parse(code, { sourceType }), {
      'Identifier|PrivateName'(p: any) {
        const node = p.node.type === 'PrivateName' ? p.node.id : p.node;
        const top = p.find((q: any) => q.parentPath?.isProgram());
        found.push({ name: node.name, line: node.loc.start.line, column: node.loc.start.column, statement: top.key });
      },
    });
    return found;
  }

  /** [start, end] of every function and static block of the source. */
  function bodies(source: string): Array<[number, number]> {
    const ranges: Array<[number, number]> = [];
    const walk = (traverse as any).default ?? traverse;
    walk(parse(source), { 'Function|StaticBlock'(p: any) { ranges.push([p.node.start, p.node.end]); } });
    return ranges;
  }

  test.each(SOURCES)('%s', (_name, source) => {
    const sourceType = 'script';
    const out = instrument(source, { threshold: 1, loops: true }, { sourceType, sourceMaps: true, filename: 'input.js' });
    const map = new TraceMap(out.map);
    const lines = new LineIndex(source);
    const ranges = bodies(source);
    const reached = new Set<number>();
    const preludeLength = out.jsprof.changed ? parse(GLOBAL_PRELUDE_SOURCE).program.body.length : 0;
    for (const id of identifiers(out.code, sourceType)) {
      if (id.statement < preludeLength) continue; // the prelude stands for no original code
      const original = originalPositionFor(map, { line: id.line, column: id.column });
      const offset = original.line == null ? -1 : lines.offset(original.line, original.column! + 1);
      if (/^__jsprof/.test(id.name)) {
        // A check maps into its function (Babel gives it the position it is printing: the body's
        // braces, or the end of an arrow's expression body), so a sample taken there lands in it.
        expect(ranges.some(([start, end]) => start <= offset && offset <= end)).toBe(true);
      } else {
        expect(source.slice(offset, offset + id.name.length)).toBe(id.name);
        reached.add(offset);
      }
    }
    for (const id of identifiers(source, sourceType)) {
      expect(reached.has(lines.offset(id.line, id.column + 1))).toBe(true);
    }
  });
});

describe('inserted code', () => {
  test('the checks and the preludes are the policy texts', () => {
    const src = 'function f() { a(); }';
    const out = instrument(src, { threshold: 1, exits: false });
    expect(out.code).toBe(plain(`${GLOBAL_PRELUDE_SOURCE}\nfunction f() { ${ENTRY_CHECK_SOURCE} a(); }`));
    const module = instrument(src, { threshold: 1, exits: false }, { sourceType: 'module' });
    expect(module.code).toBe(plain(`${GLOBAL_MODULE_PRELUDE_SOURCE}\nfunction f() { ${ENTRY_CHECK_SOURCE} a(); }`, { sourceType: 'module' }));
    const required = instrument(src, { threshold: 1, exits: false, runtime: 'import' });
    expect(required.code).toBe(plain(`${requirePreludeSource('@jsprof/runtime')}\nfunction f() { ${ENTRY_CHECK_SOURCE} a(); }`));
    const imported = instrument(src, { threshold: 1, exits: false, runtime: 'import', importSource: 'rt' }, { sourceType: 'module' });
    expect(imported.code).toBe(plain(`${importPreludeSource('rt')}\nfunction f() { ${ENTRY_CHECK_SOURCE} a(); }`, { sourceType: 'module' }));
  });

  test('directive prologues stay first, in functions and in the program', () => {
    const out = instrument('"use strict";\nfunction f() { "use strict"; "another"; a(); }', { threshold: 1, exits: false });
    expect(out.code).toMatch(/^"use strict";\n/);
    expect(out.code).toContain(`function f() {\n  "use strict";\n  "another";\n\n  ${ENTRY_CHECK_SOURCE}\n  a();\n}`);
  });

  test('returns break out of a labelled body to the exit check; function declarations stay in it where they are, or at the top, outside it, where a block would not hoist them the same', () => {
    const kept = instrument('function f() { var x = g(); if (x) return x; return; function g() { return 1; } }', { threshold: 2 });
    expect(kept.code).toContain(`function f() {\n  ${ENTRY_CHECK_SOURCE}\n  let __jsprof$r;\n  __jsprof$l: {\n    var x = g();`);
    expect(kept.code).toContain(`      break __jsprof$l;\n    }\n    function g() {\n      return 1;\n    }\n  }`);
    // g is also a var: a block holding its declaration would be a SyntaxError.
    const out = instrument('function f() { var x = g(); var g; if (x) return x; return; function g() { return 1; } }', { threshold: 2 });
    expect(out.code).toContain(`function f() {\n  ${ENTRY_CHECK_SOURCE}\n  function g() {\n    return 1;\n  }\n  let __jsprof$r;\n  __jsprof$l: {\n    var x = g();`);
    expect(out.code).toContain(`if (x) {\n      __jsprof$r = x;\n      break __jsprof$l;\n    }\n    {\n      __jsprof$r = void 0;\n      break __jsprof$l;\n    }\n  }\n  if (--__jsprof$c[0] < 0) {\n    delete __jsprof$s[0];\n    return __jsprof$r;\n  }\n  return __jsprof$r;\n}`);
  });

  test('guard clauses the body starts with stay before the entry check, their returns as they were', () => {
    const out = instrument('function f(s) { "use strict"; var ch = s.charCodeAt(0); if (ch !== 33) return false; if (!s) throw new Error(); a(); return true; }', { threshold: 2 });
    expect(out.code).toContain(`function f(s) {\n  "use strict";\n\n  var ch = s.charCodeAt(0);\n  if (ch !== 33) return false;\n  if (!s) throw new Error();\n  ${ENTRY_CHECK_SOURCE}\n  let __jsprof$r;\n  __jsprof$l: {\n    a();\n    {\n      __jsprof$r = true;\n      break __jsprof$l;\n    }\n  }`);
  });

  test('a body without returns ends with the exit check; an arrow with an expression body keeps its value while the check runs', () => {
    const out = instrument('function f() { a(); b(); }\nconst g = (x) => x + 1;', { threshold: 1 });
    expect(out.code).toContain(`function f() {\n  ${ENTRY_CHECK_SOURCE}\n  a();\n  b();\n  if (--__jsprof$c[0] < 0) {\n    delete __jsprof$s[0];\n    return;\n  }\n}`);
    expect(out.code).toContain(`const g = x => {\n  ${ENTRY_CHECK_SOURCE}\n  let __jsprof$r = x + 1;\n  if (--__jsprof$c[0] < 0) {\n    delete __jsprof$s[0];\n    return __jsprof$r;\n  }\n  return __jsprof$r;\n};`);
  });

  test('the exit check of a function with loops of its own is the one that reads the clock without a sampler thread', () => {
    const out = instrument('function scan(n) { let c = 0; while (n--) c++; return c; }\nfunction outer() { const f = () => { for (;;) break; }; return f(); }', { threshold: 2 });
    // on its exit slot, 13: where V8 places scan, the `(` at offset 13
    expect(out.code).toContain(`__jsprof$r = c;\n      break __jsprof$l;\n    }\n  }\n  if (--__jsprof$c[14] < 0) {\n    delete __jsprof$s[15];\n    return __jsprof$r;\n  }`);
    // outer's only loop is in a nested function
    expect(out.code).toContain(`__jsprof$r = f();\n      break __jsprof$l;\n    }\n  }\n  if (--__jsprof$c[0] < 0) {\n    delete __jsprof$s[0];\n    return __jsprof$r;\n  }`);
    // a class static block cannot return: its exit check is the plain one
    const block = instrument('class K { static { for (;;) break; } }', { threshold: 1 });
    // (on the exit slot where it starts, 10)
    expect(block.code).toContain(`for (;;) break;\n    if (--__jsprof$c[11] < 0) delete __jsprof$s[12];\n  }`);
  });

  test('loop bodies get a check first; single-statement bodies become blocks', () => {
    const out = instrument('function f(n) { while (n--) g(); for (;;) { break; } }', { threshold: 1, loops: true, exits: false });
    expect(out.code).toContain(`while (n--) {\n    ${CHECK_SOURCE}\n    g();\n  }`);
    expect(out.code).toContain(`for (;;) {\n    ${CHECK_SOURCE}\n    break;\n  }`);
  });

  test('works next to other plugins in the same pass', () => {
    const out = instrument('export default function f() { a(); }', { threshold: 1 }, { sourceType: 'module', plugins: ['@babel/plugin-transform-modules-commonjs'] });
    expect(out.code).toContain('exports.default = f;');
    expect(out.code).toContain(ENTRY_CHECK_SOURCE);
  });
});
