/**
 * `file.metadata.jsprof.functions` names functions and places their starts as V8 does.
 * Checked against V8 itself: `node --cpu-prof` on fixtures/corpus/forms.js gives every function's name and
 * start (0-based callFrame lineNumber/columnNumber), before and after instrumentation (then mapped
 * back through the source map, as the CLI does). Forms Node cannot run are in a hand-checked table.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { LineIndex } from '@jsprof/policy';
import { instrument } from './helpers';

const FIXTURE = path.join(__dirname, '../../../fixtures/corpus/forms.js');

interface Frame {
  name: string;
  line: number;
  column: number;
}

/** The distinct frames of `file` in a CPU profile of running it, 1-based. */
function profileFrames(file: string): Frame[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-prof-'));
  try {
    const child = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '250', file], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    const profile = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0]), 'utf8'));
    const frames = new Map<string, Frame>();
    for (const { callFrame } of profile.nodes) {
      if (!callFrame.url.endsWith(path.basename(file))) continue;
      const frame = { name: callFrame.functionName, line: callFrame.lineNumber + 1, column: callFrame.columnNumber + 1 };
      // V8's own initializer functions, and the script's top level, are not functions of the source.
      if (frame.name.startsWith('<') || (frame.line === 1 && frame.column === 1)) continue;
      frames.set(`${frame.name}@${frame.line}:${frame.column}`, frame);
    }
    return [...frames.values()];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('against V8 (node --cpu-prof on fixtures/corpus/forms.js)', () => {
  const source = fs.readFileSync(FIXTURE, 'utf8');
  const records = instrument(source, { threshold: 1 }).jsprof.functions;
  const byPosition = new Map(records.map((r) => [`${r.line}:${r.column}`, r.name]));

  function expectMatches(frames: Frame[]) {
    for (const frame of frames) {
      expect({ at: `${frame.line}:${frame.column}`, name: byPosition.get(`${frame.line}:${frame.column}`) }).toEqual({
        at: `${frame.line}:${frame.column}`,
        name: frame.name,
      });
    }
    // Constructors that only call spinning functions may go unseen; nearly all others are seen.
    expect(frames.length).toBeGreaterThanOrEqual(records.length - 6);
  }

  test('the original file: names and starts equal V8', () => {
    expectMatches(profileFrames(FIXTURE));
  });

  test('the instrumented file: V8 starts map back into the heads of the same functions', () => {
    // Babel's source maps mark the `(` of a parameter list only for some functions; the others map to
    // an earlier token of the head (e.g. the `function` keyword), so tools look a mapped start up in
    // the heads (start to body) of the records, as the CLI does.
    const out = instrument(source, { threshold: 1 }, { sourceMaps: true, filename: FIXTURE });
    const lines = new LineIndex(source);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-forms-'));
    try {
      const file = path.join(dir, 'forms.js');
      fs.writeFileSync(file, out.code);
      const map = new TraceMap(out.map);
      const frames = profileFrames(file).filter((f) => !f.name.startsWith('__jsprof'));
      for (const frame of frames) {
        const original = originalPositionFor(map, { line: frame.line, column: frame.column - 1 });
        const offset = lines.offset(original.line ?? 0, (original.column ?? -1) + 1);
        const record = records.filter((r) => r.start <= offset && offset < r.bodyStart).pop();
        expect({ frame, record: record && { name: record.name } }).toEqual({ frame, record: { name: frame.name } });
      }
      expect(frames.length).toBeGreaterThanOrEqual(records.length - 6);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('hand-checked names and starts', () => {
  /**
   * [source, ...[name, where it starts] of each function in order of their nodes' starts]: the start
   * is given by the text found there (unique in the source), or as a column number.
   */
  const TABLE: Array<[string, ...Array<[string, string | number]>]> = [
    ['function f(a) {}', ['f', '(a)']],
    ['function /* ( */ f /* ( */ (a) {}', ['f', '(a)']],
    ['async function* ag() {}', ['ag', '()']],
    ['const f = function* () {}', ['f', '()']],
    ['const f = (a) => a;', ['f', '(a)']],
    ['const f = a => a;', ['f', 'a =>']],
    ['const f = async a => a;', ['f', 'async']],
    ['const f = async (a) => a;', ['f', 'async']],
    ['const o = { get x() {}, set x(v) {}, async *m() {}, "s t"() {}, 1e3() {} };', ['get x', '() {}, set'], ['set x', '(v)'], ['m', '() {}, "'], ['s t', '() {}, 1'], ['1000', '() {} }']],
    ['class A { #p() {} static get #q() {} }', ['A', 'class'], ['#p', '() {} static'], ['get #q', '() {} }']],
    ['class A { constructor(a) {} }', ['A', '(a)']],
    ['class A {}', ['A', 'class']],
    ['const B = class {};', ['B', 'class']],
    ['class A { x = () => 1; #y = function () {}; [k] = () => 2; }', ['A', 'class'], ['x', '() => 1'], ['#y', '() {}'], ['', '() => 2']],
    ['class A { [k]() {} }', ['A', 'class'], ['', '()']],
    ['const o = { [k]() {} };', ['o', '()']],
    ['f(function () {});', ['', '()']],
    ['f(() => {});', ['', '()']],
    ['a.b.c = function () {};', ['a.b.c', '()']],
    ['A.prototype.m = () => {};', ['A.m', '()']],
    ['a["k"] = function () {}; a[0] = function () {}; a[k] = () => {};', ['a.k', 19], ['a.<computed>', 42], ['a.<computed>', 56]],
    ['function Ctor() { this.m = function () {}; }', ['Ctor', '() { this'], ['Ctor.m', '() {};']],
    ['function ctor() { this.m = function () {}; }', ['ctor', '() { this'], ['m', '() {};']],
    ['var x = y || function () {};', ['x', '()']],
    ['var x = c ? function () {} : null;', ['x', '()']],
    ['var x = [function () {}];', ['x', '()']],
    ['var x = { a: { b: [() => {}] } };', ['x.a.b', '()']],
    ['let g; g ||= () => {};', ['g', '()']],
    ['function f(cb = () => {}) {}', ['f', '(cb'], ['cb', '() =>']],
    ['const { h = function () {} } = {};', ['h', '()']],
  ];

  test.each(TABLE)('%s', (source, ...expected) => {
    const functions = instrument(source, {}, { sourceType: 'script' }).jsprof.functions;
    const columns = expected.map(([name, at]) => {
      if (typeof at === 'number') return [name, at];
      expect(source.indexOf(at)).toBe(source.lastIndexOf(at));
      return [name, source.indexOf(at) + 1];
    });
    expect(functions.map((f) => [f.name, f.line === 1 ? f.column : -f.line])).toEqual(columns);
  });

  test('export default names functions and classes "default"', () => {
    const functions = instrument('export default function () {}\n', {}, { sourceType: 'module' }).jsprof.functions;
    expect(functions.map((f) => [f.name, f.line, f.column])).toEqual([['default', 1, 25]]);
    const arrow = instrument('export default (a) => a;\n', {}, { sourceType: 'module' }).jsprof.functions;
    expect(arrow.map((f) => [f.name, f.column])).toEqual([['default', 16]]);
  });

  test('TypeScript: type parameters and annotations are skipped', () => {
    const ts = { filename: 'x.ts', parserOpts: { plugins: ['typescript' as const] } };
    const source = 'function f<T extends (a: number) => void>(x: T) {}\nconst g = <T,>(a: T): T => a;\nclass K { m<U>(u: U) {} }\n';
    const functions = instrument(source, {}, ts).jsprof.functions;
    expect(functions.map((f) => [f.name, f.line, f.column])).toEqual([
      ['f', 1, 42],
      ['g', 2, 15],
      ['K', 3, 1],
      ['m', 3, 15],
    ]);
  });

  test('decorated classes start at the class keyword', () => {
    const source = '@classy class A {}\n';
    const functions = instrument(source, {}, { parserOpts: { plugins: [['decorators', { decoratorsBeforeExport: true }]] } }).jsprof.functions;
    expect(functions.map((f) => [f.name, f.column])).toEqual([['A', 9]]);
  });

  test('records carry the body start, whether the function got checks, and the ECMAScript name Chromium\'s Profiler gives', () => {
    const source = 'function small() { return 1; }\nconst big = () => { a(); b(); };\nobj.run = function () {};\n';
    const functions = instrument(source, { threshold: 2 }).jsprof.functions;
    expect(functions).toEqual([
      { start: 0, end: 30, bodyStart: 17, name: 'small', ecmaName: 'small', line: 1, column: 15, instrumented: false },
      { start: 43, end: 62, bodyStart: 49, name: 'big', ecmaName: 'big', line: 2, column: 13, instrumented: true },
      { start: 74, end: 88, bodyStart: 86, name: 'obj.run', ecmaName: '', line: 3, column: 20, instrumented: false },
    ]);
  });

  test('metadata counts checked functions and static blocks; files left alone still list functions', () => {
    const source = 'function f() { a(); }\nclass K { static { b(); } }\n';
    const out = instrument(source, { threshold: 1 });
    expect(out.jsprof.instrumented).toBe(2);
    expect(out.jsprof.changed).toBe(true);
    const again = instrument(out.code, { threshold: 1 });
    expect(again.jsprof.changed).toBe(false);
    expect(again.jsprof.instrumented).toBe(0);
    expect(again.jsprof.functions.map((f) => f.name)).toEqual(expect.arrayContaining(['f', 'K']));
    const excluded = instrument(source, { exclude: ['skip'] }, { filename: '/src/skip/me.js' });
    expect(excluded.jsprof).toMatchObject({ changed: false, instrumented: 0 });
    expect(excluded.jsprof.functions.map((f) => [f.name, f.instrumented])).toEqual([
      ['f', false],
      ['K', false],
    ]);
    expect(excluded.code).not.toContain('__jsprof');
  });
});
