/**
 * `jsprof instrument` on real dist files of popular libraries: what they compute is unchanged, with
 * no runtime and while profiled; maps chain; bad input and bad places get clear messages and leave
 * files as they were.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { TABLE_REGISTRATION, TABLE_REGISTRY } from '@jsprof/estree-instrument';
import { ROOT, jsprof, tempDir } from './helpers';

const NODE_MODULES = path.join(ROOT, 'node_modules');

/** Dist files, minified and not, with a driver computing something from each (given the module as `lib`). */
const LIBRARIES = [
  { file: 'js-yaml/dist/js-yaml.min.js', driver: `lib.dump(lib.load('a: [1, 2, {b: "x"}]\\nc: !!str 3\\nd: 2024-01-02'))` },
  { file: 'js-yaml/dist/js-yaml.js', driver: `JSON.stringify(lib.load(lib.dump({ list: [1, 'two', { three: null }], when: 'now' })))` },
  { file: 'markdown-it/dist/browser/markdown-it.umd.min.js', driver: `lib().render('# Title\\n\\n* a **b** [c](http://d.example)\\n\\n\\\`\\\`\\\`js\\nx()\\n\\\`\\\`\\\`\\n| t | u |\\n|---|---|\\n| 1 | 2 |')` },
  { file: 'markdown-it/dist/browser/markdown-it.esm.min.mjs', driver: `lib().renderInline('an *ES module*, minified: **bold** & <b>')` },
  { file: 'marked/lib/marked.umd.js', driver: `lib.marked.parse('Some *text* with a [link](x) and\\n\\n> a quote\\n\\n1. one\\n2. two')` },
  { file: 'acorn/dist/acorn.js', driver: `JSON.stringify(lib.parse('async function* f(a = 1, ...b) { for await (const x of y) yield x?.z ?? 0; }', { ecmaVersion: 'latest' }))` },
  {
    file: 'typescript/lib/typescript.js',
    driver: `lib.transpileModule('enum E { A, B } export class C<T> { constructor(private x: T) {} get y(): E { return E.B; } }', { compilerOptions: { target: lib.ScriptTarget.ES2015, module: lib.ModuleKind.CommonJS } }).outputText`,
  },
];

/**
 * Runs every driver in a child process over the given dist directory (each file imported: an ES module,
 * or CommonJS as its default export); `profile` loads the runtime and profiles meanwhile.
 */
function compute(dir: string, profile: boolean): { results: string[]; trace?: any } {
  const script = `
    ${profile ? `const { Profiler } = require(${JSON.stringify(path.join(ROOT, 'packages/runtime/dist/node.js'))});
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 100000 });` : ''}
    (async () => {
    const results = [];
    for (const [file, driver] of ${JSON.stringify(LIBRARIES.map((l) => [path.basename(l.file), l.driver]))}) {
      const lib = (await import(require('url').pathToFileURL(require('path').join(${JSON.stringify(dir)}, file)).href)).default;
      let value;
      // Repeated while profiled, so samples fall inside the libraries.
      const end = Date.now() + ${profile ? 150 : 0};
      do value = String(eval(driver)); while (Date.now() < end);
      results.push(value);
    }
    ${profile ? `profiler.stop().then((trace) => console.log(JSON.stringify({ results, trace })));` : `console.log(JSON.stringify({ results }));`}
    })();
  `;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', maxBuffer: 256 << 20, timeout: 120_000 });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

/**
 * Whole packages instrumented in place at threshold 1 with loop checks (issue 23: `--loops` broke
 * markdown-it, yaml and uglify-js), each driven in a child process from its copy and from the
 * original: the same output.
 */
describe('real packages at threshold 1 with loop checks compute what they did', () => {
  // Each driver is the body of a function of `pkg`, the package's directory, returning a string.
  const PACKAGES = [
    { name: 'yaml', dir: 'dist', driver: `const YAML = require(pkg); return JSON.stringify([YAML.parse('a: [1, 2, {b: x}]\\nc: !!str 3\\nd: |\\n  text\\n'), YAML.stringify({ list: [1, 'two', { three: null }], nested: { deep: [true] } })]);` },
    { name: 'uglify-js', dir: 'lib', driver: `return JSON.stringify(require(pkg).minify('function f(a, b) { var unused = 1; for (var i = 0; i < a.length; i++) { if (a[i] === b) return i; } return -1; } console.log(f([1, 2, 3], 2));', { toplevel: true }));` },
    { name: 'markdown-it', dir: 'dist', driver: `return require(pkg)().render('# T\\n\\n* a **b** [c](http://d.example)\\n\\n| t | u |\\n|---|---|\\n| 1 | 2 |\\n\\n> q *e*');` },
    { name: 'js-yaml', dir: 'lib', driver: `const y = require(pkg); return JSON.stringify(y.load(y.dump({ a: [1, 'b', { c: null }], when: new Date(0) })));` },
  ];
  const work = tempDir();

  const drive = (pkg: string, driver: string) => {
    // The copies find their dependencies where the originals do.
    const env = { ...process.env, NODE_PATH: NODE_MODULES };
    const run = spawnSync(process.execPath, ['-e', `console.log((function (pkg) { ${driver} })(${JSON.stringify(pkg)}))`], { encoding: 'utf8', timeout: 60_000, env });
    if (run.status !== 0) throw new Error(run.stderr);
    return run.stdout;
  };

  test.each(PACKAGES)('$name', ({ name, dir, driver }) => {
    const original = path.join(NODE_MODULES, name);
    const copy = path.join(work, name);
    fs.cpSync(original, copy, { recursive: true });
    const run = jsprof(['instrument', path.join(copy, dir), '--in-place', '--threshold', '1', '--loops', '--json']);
    expect([run.status, run.stderr]).toEqual([0, '']);
    const files = JSON.parse(run.stdout).files;
    expect(files.filter((f: any) => f.instrumented > 0).length).toBeGreaterThan(0);
    const expected = drive(original, driver);
    expect(expected.length).toBeGreaterThan(20);
    expect(drive(copy, driver)).toBe(expected);
  });
});

describe('jsprof instrument on popular dist files', () => {
  const work = tempDir();
  const src = path.join(work, 'src');
  const out = path.join(work, 'out');
  let report: any;
  let run: ReturnType<typeof jsprof>;

  beforeAll(() => {
    fs.mkdirSync(src);
    for (const { file } of LIBRARIES) {
      fs.copyFileSync(path.join(NODE_MODULES, file), path.join(src, path.basename(file)));
      const map = path.join(NODE_MODULES, `${file}.map`);
      if (fs.existsSync(map)) fs.copyFileSync(map, path.join(src, `${path.basename(file)}.map`));
    }
    run = jsprof(['instrument', src, '--out-dir', out, '--threshold', '1', '--json']);
    report = JSON.parse(run.stdout);
  });

  test('reports every file in the --json shape and exits 0', () => {
    expect(run.status).toBe(0);
    expect(report.files).toHaveLength(LIBRARIES.length);
    for (const f of report.files) {
      // typescript.js names a map its package does not ship.
      const warning = f.file.endsWith('typescript.js') ? ['warning'] : [];
      expect(Object.keys(f).sort()).toEqual(['bytesIn', 'bytesOut', 'file', 'functions', 'instrumented', 'ms', 'output', ...warning].sort());
      expect(f.instrumented).toBeGreaterThan(0);
      expect(f.instrumented).toBeLessThanOrEqual(f.functions);
      expect(f.bytesOut).toBeGreaterThan(f.bytesIn);
      expect(fs.statSync(path.resolve(ROOT, f.output)).size).toBe(f.bytesOut);
    }
  });

  test('a map a file names but its package does not ship is said, and the output names none', () => {
    expect(run.stderr).toMatch(/^jsprof: .*typescript\.js: its source map typescript\.js\.map cannot be used \(no such file\), so the output names none\n/);
    expect(fs.readFileSync(path.join(out, 'typescript.js'), 'utf8')).not.toContain('sourceMappingURL=typescript.js.map');
  });

  test('the libraries compute exactly what they did, without the runtime and while profiled', () => {
    const before = compute(src, false).results;
    expect(compute(out, false).results).toEqual(before);
    const profiled = compute(out, true);
    expect(profiled.results).toEqual(before);
    const withStack = profiled.trace.samples.filter((s: any) => s.stackId !== undefined);
    expect(withStack.length).toBeGreaterThan(20);
    const resources: string[] = profiled.trace.resources;
    for (const { file } of LIBRARIES.filter((l) => !l.file.includes('typescript'))) {
      expect(resources.some((r) => r.endsWith(`/out/${path.basename(file)}`))).toBe(true);
    }
  });

  test('files with a source map get a chained one: function heads lead to the same original place', () => {
    const name = 'js-yaml.min.js';
    const outCode = fs.readFileSync(path.join(out, name), 'utf8');
    expect(outCode.trimEnd().endsWith(`//# sourceMappingURL=${name}.map`)).toBe(true);
    const input = new TraceMap(JSON.parse(fs.readFileSync(path.join(src, `${name}.map`), 'utf8')));
    const output = new TraceMap(JSON.parse(fs.readFileSync(path.join(out, `${name}.map`), 'utf8')));
    expect(output.sources).toEqual(input.sources);
    // Named function heads, not the prelude's.
    const heads = (code: string) => [...code.matchAll(/function (?!__jsprof)[\w$]+\(/g)].map((m) => m.index! + m[0].length - 1);
    const inCode = fs.readFileSync(path.join(src, name), 'utf8');
    const inHeads = heads(inCode);
    const outHeads = heads(outCode);
    expect(outHeads.length).toBe(inHeads.length);
    expect(inHeads.length).toBeGreaterThan(20);
    // Minified: one line, so an offset is a column.
    const at = (map: TraceMap, column: number) => {
      const p = originalPositionFor(map, { line: 1, column });
      return `${p.source}:${p.line}:${p.column}`;
    };
    // Function declarations may move ahead of a try: compare the places as sets, not in order.
    const sorted = (list: string[]) => [...list].sort();
    expect(sorted(outHeads.map((c) => at(output, c)))).toEqual(sorted(inHeads.map((c) => at(input, c))));
    expect(new Set(inHeads.map((c) => at(input, c))).size).toBeGreaterThan(20);
  });

  test('--out-dir elsewhere: relative sources of the chained map still resolve to the same files', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'src'));
    fs.mkdirSync(path.join(dir, 'dist'));
    fs.writeFileSync(path.join(dir, 'src/app.ts'), 'export function f(a: number) { let s = 0; for (let i = 0; i < a; i++) s += i; return s; }\n');
    require('esbuild').buildSync({ entryPoints: [path.join(dir, 'src/app.ts')], outfile: path.join(dir, 'dist/app.js'), sourcemap: true, format: 'esm', sourcesContent: false, logLevel: 'silent' });
    fs.writeFileSync(path.join(dir, 'dist/plain.js'), 'function g(a) { for (; a; a--); return a; }\n');
    const out = path.join(dir, 'build/deeper');
    expect(jsprof(['instrument', path.join(dir, 'dist'), '--out-dir', out, '--threshold', '1', '--source-map']).status).toBe(0);
    const resolved = (file: string) => {
      const map = JSON.parse(fs.readFileSync(path.join(out, `${file}.map`), 'utf8'));
      return map.sources.map((source: string) => path.resolve(out, source));
    };
    expect(resolved('app.js')).toEqual([path.join(dir, 'src/app.ts')]);
    expect(resolved('plain.js')).toEqual([path.join(dir, 'dist/plain.js')]);
  });

  test('--out-dir: a file left as it is (instrumented already) keeps its map, external or inline, resolving from the copy', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'src/app.ts'), 'export function f(a: number) { let s = 0; for (let i = 0; i < a; i++) s += i; return s; }\n');
    for (const [name, sourcemap] of [['external', true], ['inline', 'inline']] as const) {
      require('esbuild').buildSync({ entryPoints: [path.join(dir, 'src/app.ts')], outfile: path.join(dir, `dist/${name}.js`), sourcemap, format: 'esm', sourcesContent: false, logLevel: 'silent' });
    }
    const first = path.join(dir, 'first');
    expect(jsprof(['instrument', path.join(dir, 'dist'), '--out-dir', first, '--threshold', '1']).status).toBe(0);
    const out = path.join(dir, 'elsewhere/deeper');
    const again = jsprof(['instrument', first, '--out-dir', out, '--threshold', '1', '--json']);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout).files.map((f: any) => f.instrumented)).toEqual([0, 0]);
    for (const name of ['external', 'inline']) {
      const code = fs.readFileSync(path.join(out, `${name}.js`), 'utf8');
      const body = (text: string) => text.slice(0, text.lastIndexOf('//# sourceMappingURL='));
      expect(body(code)).toBe(body(fs.readFileSync(path.join(first, `${name}.js`), 'utf8')));
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(code)![1];
      const map = url.startsWith('data:') ? JSON.parse(Buffer.from(url.split(',')[1], 'base64').toString()) : JSON.parse(fs.readFileSync(path.join(out, url), 'utf8'));
      expect(map.sources.map((source: string) => path.resolve(out, source))).toEqual([path.join(dir, 'src/app.ts')]);
      const loop = code.indexOf('for (');
      const line = code.slice(0, loop).split('\n').length;
      expect(originalPositionFor(new TraceMap(map), { line, column: loop - code.lastIndexOf('\n', loop) - 1 })).toMatchObject({ line: 1 });
    }
  });

  test('files without a map get none unless --source-map asks', () => {
    expect(fs.existsSync(path.join(out, 'acorn.js.map'))).toBe(false);
    const dir = tempDir();
    const again = jsprof(['instrument', path.join(src, 'acorn.js'), '--out-dir', dir, '--source-map']);
    expect(again.status).toBe(0);
    const map = JSON.parse(fs.readFileSync(path.join(dir, 'acorn.js.map'), 'utf8'));
    expect(map.sources.map((source: string) => path.resolve(dir, source))).toEqual([path.join(src, 'acorn.js')]); // the input, not the output
    expect(fs.readFileSync(path.join(dir, 'acorn.js'), 'utf8').trimEnd().endsWith('//# sourceMappingURL=acorn.js.map')).toBe(true);
  });

  test("each output gets its function table beside it (V8's starts and names, as the runtime reads them), unless --no-function-table", () => {
    for (const { file } of LIBRARIES) {
      const table = JSON.parse(fs.readFileSync(path.join(out, `${path.basename(file)}.jsprof.json`), 'utf8'));
      expect(table.version).toBe(1);
      expect(table.functions.length).toBe(report.files.find((f: any) => f.file.endsWith(path.basename(file))).functions);
    }
    const acorn = JSON.parse(fs.readFileSync(path.join(out, 'acorn.js.jsprof.json'), 'utf8'));
    const lines = fs.readFileSync(path.join(out, 'acorn.js'), 'utf8').split('\n');
    const parseEntries = acorn.functions.filter((f: any) => f[0] === 'parse');
    expect(parseEntries).toHaveLength(3);
    for (const entry of parseEntries) expect(lines[entry[7] - 1].slice(entry[8] - 1)).toMatch(/^\((input, options)?\) \{/); // V8's start: the `(`
    // Each output says it has a table, once, at its end (the runtime fetches tables only for those).
    for (const { file } of LIBRARIES) {
      const text = fs.readFileSync(path.join(out, path.basename(file)), 'utf8');
      expect(text.split(TABLE_REGISTRATION)).toHaveLength(2);
      expect(text.trimEnd().replace(/\n\/\/# sourceMappingURL=\S+$/, '').endsWith(`\n${TABLE_REGISTRATION}`)).toBe(true);
    }
    const dir = tempDir();
    expect(jsprof(['instrument', path.join(src, 'acorn.js'), '--out-dir', dir, '--no-function-table']).status).toBe(0);
    expect(fs.readdirSync(dir)).toEqual(['acorn.js']);
    expect(fs.readFileSync(path.join(dir, 'acorn.js'), 'utf8')).not.toContain(TABLE_REGISTRY);
  });

  test('an inline source map is chained inline', () => {
    const dir = tempDir();
    const ts = 'export function greet(name: string): string {\n  const parts: string[] = [];\n  parts.push("hi", name);\n  return parts.join(" ");\n}\n';
    const built = require('esbuild').transformSync(ts, { loader: 'ts', sourcemap: 'inline', sourcefile: 'greet.ts', format: 'cjs' }).code;
    fs.writeFileSync(path.join(dir, 'greet.js'), built);
    const run = jsprof(['instrument', path.join(dir, 'greet.js'), '--in-place', '--threshold', '1']);
    expect(run.status).toBe(0);
    const out = fs.readFileSync(path.join(dir, 'greet.js'), 'utf8');
    const url = /\/\/# sourceMappingURL=data:application\/json;charset=utf-8;base64,(\S+)\s*$/.exec(out);
    expect(url).not.toBeNull();
    expect(out.match(/sourceMappingURL/g)).toHaveLength(1);
    expect(out).toContain(`\n${TABLE_REGISTRATION}\n//# sourceMappingURL=`);
    const map = new TraceMap(JSON.parse(Buffer.from(url![1], 'base64').toString('utf8')));
    expect(map.sources).toEqual(['greet.ts']);
    const line = out.split('\n').findIndex((l) => l.includes('function greet('));
    const column = out.split('\n')[line].indexOf('greet(');
    expect(originalPositionFor(map, { line: line + 1, column })).toMatchObject({ source: 'greet.ts', line: 1 });
    expect(fs.readdirSync(dir)).toEqual(['greet.js', 'greet.js.jsprof.json']);
  });

  test('instrumenting the output again changes nothing, in place', () => {
    const before = fs.readdirSync(out).map((f) => fs.readFileSync(path.join(out, f), 'utf8'));
    const again = jsprof(['instrument', out, '--in-place', '--threshold', '1']);
    expect(again.status).toBe(0);
    expect(fs.readdirSync(out).map((f) => fs.readFileSync(path.join(out, f), 'utf8'))).toEqual(before);
  });

  test('the threshold picks about as many functions in minified code as in the readable build (±20%), with looping functions or without', () => {
    const dir = tempDir();
    const pairs: [string, string][] = [[path.join(src, 'js-yaml.js'), path.join(src, 'js-yaml.min.js')]];
    // and esbuild's minification of readable dist files
    const esbuild = require('esbuild');
    for (const file of ['acorn/dist/acorn.js', 'marked/lib/marked.umd.js', '@babel/parser/lib/index.js']) {
      const readable = path.join(dir, file.replace(/\//g, '_'));
      fs.copyFileSync(path.join(NODE_MODULES, file), readable);
      const minified = readable.replace(/\.js$/, '.min.js');
      fs.writeFileSync(minified, esbuild.transformSync(fs.readFileSync(readable, 'utf8'), { minify: true, loader: 'js' }).code);
      pairs.push([readable, minified]);
    }
    const files = pairs.flat();
    const instrumentedWith = (flags: string[]) => {
      const reports = JSON.parse(jsprof(['instrument', ...files, '--out-dir', path.join(dir, 'out'), '--json', ...flags]).stdout).files;
      return (file: string): number => reports[files.indexOf(file)].instrumented;
    };
    const instrumented = instrumentedWith([]);
    const byCountAlone = instrumentedWith(['--no-looping-functions']);
    for (const [readable, minified] of pairs) {
      expect(byCountAlone(readable)).toBeGreaterThan(20);
      expect(instrumented(readable)).toBeGreaterThan(byCountAlone(readable));
      for (const count of [instrumented, byCountAlone]) {
        expect(Math.abs(count(minified) - count(readable)) / count(readable)).toBeLessThanOrEqual(0.2);
      }
    }
  });
});

describe('jsprof instrument on bad input and bad places', () => {
  test('a syntax error names file:line:col, writes nothing for that file, and the others go on', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'bad.js'), 'function ok() { return 1; }\nvar x = 1 +* 2;\n');
    fs.writeFileSync(path.join(dir, 'good.js'), 'function f(a) { return a + 1; }\n');
    const out = path.join(dir, 'out');
    const run = jsprof(['instrument', path.join(dir, 'bad.js'), path.join(dir, 'good.js'), '--out-dir', out, '--threshold', '1']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/syntax error in .*bad\.js:2:12: Unexpected token\n/);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(fs.existsSync(path.join(out, 'bad.js'))).toBe(false);
    expect(fs.existsSync(path.join(out, 'good.js'))).toBe(true);
  });

  test("a syntax error in an ES module's .js file is the module's own, at its place (not the script goal's at 1:1)", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'mod.js'), "import x from './y.js';\nexport function f(a) {\n  for (const i of a) { x(i) }\n  return a +;\n}\n");
    fs.writeFileSync(path.join(dir, 'jsx.js'), "import x from './y.js';\nconst el = <div>{x}</div>;\n");
    const run = jsprof(['instrument', dir, '--out-dir', path.join(dir, 'out')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^jsprof: syntax error in .*jsx\.js:2:12: Unexpected token\njsprof: syntax error in .*mod\.js:4:13: Unexpected token\n/);
  });

  test('--in-place leaves a broken file exactly as it was and leaves no temporary file', () => {
    const dir = tempDir();
    const bad = 'var x = ;\n';
    fs.writeFileSync(path.join(dir, 'bad.js'), bad);
    fs.writeFileSync(path.join(dir, 'good.js'), 'function f(a) { return a + 1; }\n');
    const run = jsprof(['instrument', dir, '--in-place', '--threshold', '1']);
    expect(run.status).toBe(1);
    expect(fs.readFileSync(path.join(dir, 'bad.js'), 'utf8')).toBe(bad);
    expect(fs.readFileSync(path.join(dir, 'good.js'), 'utf8')).toContain('delete __jsprof$s[1]');
    expect(fs.readdirSync(dir).sort()).toEqual(['bad.js', 'good.js', 'good.js.jsprof.json']);
  });

  test('a source map that cannot be used is named, one line a file, and the output names no map it would not describe', () => {
    const dir = tempDir();
    const code = (url: string) => `function f(a) { for (const x of a) console.log(x); }\nf([1]);\n//# sourceMappingURL=${url}\n`;
    const files = {
      'missing.js': code('missing.js.map'),
      'notjson.js': code('notjson.js.map'),
      'remote.js': code('https://cdn.example.com/remote.js.map'),
      'notamap.js': code('notamap.js.map'),
      'inline.js': code('data:application/json;base64,AAAA'),
    };
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    fs.writeFileSync(path.join(dir, 'notjson.js.map'), '{not json');
    fs.writeFileSync(path.join(dir, 'notamap.js.map'), '{"version": 3}');
    const out = path.join(dir, 'out');
    const run = jsprof(['instrument', ...Object.keys(files).map((f) => path.join(dir, f)), '--out-dir', out, '--threshold', '1']);
    expect(run.status).toBe(0);
    const said = (name: string) => run.stderr.split('\n').filter((line) => line.includes(`${name}: its `));
    expect(said('missing.js')).toEqual([expect.stringMatching(/^jsprof: .*missing\.js: its source map missing\.js\.map cannot be used \(no such file\), so the output names none$/)]);
    expect(said('notjson.js')).toEqual([expect.stringMatching(/its source map notjson\.js\.map cannot be used \(it is not JSON\), so the output names none$/)]);
    expect(said('remote.js')).toEqual([expect.stringMatching(/its source map https:\/\/cdn\.example\.com\/remote\.js\.map cannot be used \(it is not a local file\), so the output names none$/)]);
    expect(said('notamap.js')).toEqual([expect.stringMatching(/its source map notamap\.js\.map cannot be used \(it is not a source map\), so the output names none$/)]);
    expect(said('inline.js')).toEqual([expect.stringMatching(/its inline source map cannot be used \(it is not JSON\), so the output names none$/)]);
    for (const name of Object.keys(files)) {
      const text = fs.readFileSync(path.join(out, name), 'utf8');
      expect([name, text.includes('__jsprof$c['), text.includes('sourceMappingURL')]).toEqual([name, true, false]);
    }
    // --source-map: a map from the output to the file as it is, named instead.
    const mapped = jsprof(['instrument', path.join(dir, 'remote.js'), '--out-dir', path.join(dir, 'mapped'), '--threshold', '1', '--source-map']);
    expect(mapped.stderr).toMatch(/remote\.js: its source map https:\/\/cdn\.example\.com\/remote\.js\.map cannot be used \(it is not a local file\), so the output gets a map to remote\.js as it is\n/);
    expect(fs.readFileSync(path.join(dir, 'mapped/remote.js'), 'utf8').trimEnd().endsWith('//# sourceMappingURL=remote.js.map')).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'mapped/remote.js.map'), 'utf8')).sources).toEqual(['../remote.js']);
  });

  test('a file that is not UTF-8 is left byte for byte as it was, named, and the others go on', () => {
    const dir = tempDir();
    const latin1 = Buffer.from('function f(a) {\n  var s = "caf\xe9";\n  for (var i = 0; i < a; i++) s += i;\n  return s;\n}\n', 'latin1');
    fs.writeFileSync(path.join(dir, 'latin1.js'), latin1);
    fs.writeFileSync(path.join(dir, 'good.js'), 'function f(a) { return a + 1; }\n');
    const run = jsprof(['instrument', dir, '--in-place', '--threshold', '1']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/jsprof: cannot instrument .*latin1\.js: it is not UTF-8 text; jsprof leaves it as it is\n/);
    expect(fs.readFileSync(path.join(dir, 'latin1.js')).equals(latin1)).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'good.js'), 'utf8')).toContain('delete __jsprof$s[1]');
  });

  test('a file nested too deeply for the parser is named with its position, never a crash, and the others go on', () => {
    const dir = tempDir();
    const deep = `function f(x) {\n${'if (x > 0) {'.repeat(3000)}x++${'}'.repeat(3000)}\nreturn x }\n`;
    fs.writeFileSync(path.join(dir, 'deep.js'), deep);
    fs.writeFileSync(path.join(dir, 'good.js'), 'function f(a) { return a + 1; }\n');
    const run = jsprof(['instrument', dir, '--in-place', '--threshold', '1']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/jsprof: cannot instrument .*deep\.js:2:\d+: brackets nest more than 500 deep here; jsprof leaves the file as it is\n/);
    expect(run.stderr).not.toMatch(/FATAL|\n\s+at /);
    expect(fs.readFileSync(path.join(dir, 'deep.js'), 'utf8')).toBe(deep);
    expect(fs.readFileSync(path.join(dir, 'good.js'), 'utf8')).toContain('delete __jsprof$s[1]');
  });

  test('semicolon-less code computes what it did', () => {
    const dir = tempDir();
    const code = 'function sum(list) {\n  var total = 0\n  function add(x) { total += x }\n  [1, 2, 3].forEach(add)\n  for (const x of list) add(x)\n  return total\n}\nconsole.log(sum([4]))\n';
    fs.writeFileSync(path.join(dir, 'asi.js'), code);
    expect(jsprof(['instrument', path.join(dir, 'asi.js'), '--in-place']).status).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'asi.js'), 'utf8')).toContain('__jsprof$l');
    expect(spawnSync(process.execPath, [path.join(dir, 'asi.js')], { encoding: 'utf8' }).stdout).toBe('10\n');
  });

  test('--in-place keeps owner and mode, derived files are never wider; symlinks, hard links and pipes are refused untouched', () => {
    const dir = tempDir();
    const source = 'function f(a) { for (; a; a--); return a; }\n';
    const file = path.join(dir, 'app.js');
    fs.writeFileSync(file, source);
    fs.chmodSync(file, 0o640);
    const asRoot = process.getuid?.() === 0;
    const nobody = asRoot ? Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout) : process.getuid!();
    if (asRoot) fs.chownSync(file, nobody, fs.statSync(file).gid);
    fs.writeFileSync(path.join(dir, 'target.js'), source);
    fs.symlinkSync('target.js', path.join(dir, 'link.js'));
    fs.writeFileSync(path.join(dir, 'twice.js'), source);
    fs.linkSync(path.join(dir, 'twice.js'), path.join(dir, 'twice-again.js'));
    spawnSync('mkfifo', [path.join(dir, 'pipe.js')]);
    // A map from an earlier run, readable by all: it now holds what only the source's readers may read.
    fs.writeFileSync(`${file}.map`, '{}');
    fs.chmodSync(`${file}.map`, 0o644);
    if (asRoot) fs.chownSync(`${file}.map`, nobody, fs.statSync(file).gid);
    const run = jsprof(['instrument', file, path.join(dir, 'link.js'), path.join(dir, 'twice.js'), path.join(dir, 'pipe.js'), '--in-place', '--source-map']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/link\.js in place: it is a symbolic link/);
    expect(run.stderr).toMatch(/twice\.js in place: it has 2 hard links/);
    expect(run.stderr).toMatch(/pipe\.js: it is not a regular file/);
    expect(fs.readFileSync(path.join(dir, 'target.js'), 'utf8')).toBe(source);
    expect(fs.readFileSync(path.join(dir, 'twice-again.js'), 'utf8')).toBe(source);
    for (const written of [file, `${file}.map`, `${file}.jsprof.json`]) {
      const stat = fs.statSync(written);
      expect([written, stat.mode & 0o777, stat.uid]).toEqual([written, 0o640, nobody]);
    }
    expect(fs.readFileSync(file, 'utf8')).toContain('__jsprof$s');
  });

  test('a missing file, a place that cannot be written and a wrong usage get one clear line each', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'a.js'), 'function f(a) { return a + 1; }\n');
    const missing = jsprof(['instrument', path.join(dir, 'nope.js'), '--out-dir', dir]);
    expect(missing.status).toBe(1);
    expect(missing.stderr.trim()).toMatch(/^jsprof: no such file or directory: .*nope\.js$/);
    fs.writeFileSync(path.join(dir, 'file'), '');
    const unwritable = jsprof(['instrument', path.join(dir, 'a.js'), '--out-dir', path.join(dir, 'file', 'sub'), '--threshold', '1']);
    expect(unwritable.status).toBe(1);
    expect(unwritable.stderr).toMatch(/jsprof: cannot write .*a\.js: /);
    expect(unwritable.stderr).not.toMatch(/\n\s+at /);
    const neither = jsprof(['instrument', path.join(dir, 'a.js')]);
    expect(neither.status).toBe(2);
    expect(neither.stderr).toMatch(/exactly one of --out-dir DIR and --in-place/);
  });

  test('progress is shown on a terminal when there are many files, and never in --json output', () => {
    const dir = tempDir();
    for (let i = 0; i < 22; i++) fs.writeFileSync(path.join(dir, `f${i}.js`), `function f(a) { return a + ${i}; }\n`);
    const bin = path.join(ROOT, 'packages/cli/bin/jsprof.js');
    // `script` gives the command a terminal
    const run = spawnSync('script', ['-qec', `${process.execPath} ${bin} instrument ${dir} --out-dir ${path.join(dir, 'out')} --threshold 1`, '/dev/null'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('jsprof: 1/22 f0.js');
    expect(run.stdout).toContain('jsprof: 22/22 f9.js');
    expect(run.stdout).toContain('instrumented 22 of 22 functions in 22 files');
    // again into the same directory, inside the input one: its files are not read as input
    const json = jsprof(['instrument', dir, '--out-dir', path.join(dir, 'out'), '--threshold', '1', '--json']);
    expect(JSON.parse(json.stdout).files).toHaveLength(22);
    expect(json.stderr).toBe('');
  });

  test('a hashbang line, a BOM, CRLF line ends and astral characters survive', () => {
    const dir = tempDir();
    const body = '"use strict";\r\nconst s = "𝒳é"; // 𝒳\r\nfunction f(a) {\r\n  return s + a;\r\n}\r\nconsole.log(f(1));\r\n';
    const files = { 'bang.js': `#!/usr/bin/env node\r\n${body}`, 'bom.js': `\uFEFF${body}` };
    for (const [name, code] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), code);
    const run = jsprof(['instrument', dir, '--in-place', '--threshold', '1']);
    expect(run.status).toBe(0);
    for (const [name, code] of Object.entries(files)) {
      const out = fs.readFileSync(path.join(dir, name), 'utf8');
      expect(out.startsWith(code.slice(0, code.indexOf('"use strict";') + 13))).toBe(true);
      expect(out).toContain('const s = "𝒳é"; // 𝒳\r\n');
      expect(out.split('\r\n').length).toBe(code.split('\r\n').length);
      const ran = spawnSync(process.execPath, [path.join(dir, name)], { encoding: 'utf8' });
      expect(ran.stdout).toBe('𝒳é1\n');
    }
  });
});

test('--out-dir: the copies load as ES modules or CommonJS as their files do (the package.json files that decide are carried)', () => {
  const project = tempDir();
  const src = path.join(project, 'dist');
  fs.writeFileSync(path.join(project, 'package.json'), '{"name": "app", "type": "module"}\n');
  fs.mkdirSync(path.join(src, 'cjs'), { recursive: true });
  fs.writeFileSync(path.join(src, 'sum.js'), 'export function sum(a) { let s = 0; for (const x of a) s += x; return s; }\n');
  fs.writeFileSync(path.join(src, 'cjs/package.json'), '{"type": "commonjs"}\n');
  fs.writeFileSync(path.join(src, 'cjs/count.js'), 'exports.count = function count(a) { let n = 0; for (const x of a) if (x) n++; return n; };\n');
  const elsewhere = tempDir();
  const out = path.join(elsewhere, 'out');
  const run = jsprof(['instrument', src, '--out-dir', out, '--threshold', '1']);
  expect([run.status, run.stderr]).toEqual([0, 'jsprof: instrumented 2 of 2 functions in 2 files\n']);
  expect(JSON.parse(fs.readFileSync(path.join(out, 'package.json'), 'utf8'))).toEqual({ type: 'module' });
  expect(fs.readFileSync(path.join(out, 'cjs/package.json'), 'utf8')).toBe('{"type": "commonjs"}\n');
  const load = `import(${JSON.stringify(path.join(out, 'sum.js'))}).then((m) => console.log(m.sum([1, 2]), require(${JSON.stringify(path.join(out, 'cjs/count.js'))}).count([0, 1, 1])))`;
  expect(spawnSync(process.execPath, ['-e', load], { encoding: 'utf8', cwd: elsewhere })).toMatchObject({ stderr: '', stdout: '3 2\n' });

  // Two files given, wanting different types of the one directory their copies share: said, one line.
  const mixed = path.join(elsewhere, 'mixed');
  const two = jsprof(['instrument', path.join(src, 'sum.js'), path.join(src, 'cjs/count.js'), '--out-dir', mixed]);
  expect(two.stderr).toMatch(/^jsprof: .*mixed\/sum\.js will not load as .*dist\/sum\.js does: .*mixed\/package\.json declares "type": "commonjs", the file's "type": "module"\n/);
});

test('a function shipped as text to a worker, as the README says: it throws where no runtime is, and runs where the runtime is loaded when toString() is called or where the text runs', () => {
  const dir = tempDir();
  const runtime = require.resolve('@jsprof/runtime');
  fs.writeFileSync(
    path.join(dir, 'ship.js'),
    `const { Worker } = require('worker_threads');
function task(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }
const load = process.env.IN_WORKER ? 'require(' + JSON.stringify(process.env.IN_WORKER) + ');' : '';
const worker = new Worker(load + "require('worker_threads').parentPort.postMessage((" + task.toString() + ")(1000));", { eval: true });
worker.on('message', (m) => console.log('result', m));
worker.on('error', (e) => console.log('error:', e.message));
`,
  );
  expect(jsprof(['instrument', path.join(dir, 'ship.js'), '--in-place', '--threshold', '1']).status).toBe(0);
  const ship = (preload: string, env: Record<string, string> = {}) =>
    spawnSync(process.execPath, ['-e', `${preload} require(${JSON.stringify(path.join(dir, 'ship.js'))});`], { encoding: 'utf8', env: { ...process.env, ...env } }).stdout;
  expect(ship('')).toBe('error: __jsprof$c is not defined\n');
  expect(ship(`require(${JSON.stringify(runtime)});`)).toBe('result 499500\n');
  expect(ship('', { IN_WORKER: runtime })).toBe('result 499500\n');
});

test('instrumented files add no enumerable globals, with the runtime or without it (a test runner\'s leak check passes)', () => {
  const dir = tempDir('jsprof-leak-');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'lib.js'), 'exports.sum = function sum(a) { var s = 0; for (var i = 0; i < a.length; i++) s += a[i]; return s; };\n');
  fs.writeFileSync(path.join(dir, 'src', 'lib.mjs'), 'export function sum(a) { let s = 0; for (const x of a) s += x; return s; }\n');
  expect(jsprof(['instrument', path.join(dir, 'src'), '--out-dir', path.join(dir, 'out'), '--threshold', '1']).status).toBe(0);
  const program = (runtime: string) => `const before = Object.keys(globalThis);
    ${runtime}
    const cjs = require(${JSON.stringify(path.join(dir, 'out', 'lib.js'))}).sum([1, 2]);
    import(${JSON.stringify(path.join(dir, 'out', 'lib.mjs'))}).then((m) => {
      console.log(JSON.stringify({ sums: [cjs, m.sum([3, 4])], added: Object.keys(globalThis).filter((k) => !before.includes(k)) }));
    });`;
  for (const runtime of ['', `require(${JSON.stringify(require.resolve('@jsprof/runtime'))});`]) {
    const run = spawnSync(process.execPath, ['-e', program(runtime)], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ sums: [3, 7], added: [] });
  }
});
