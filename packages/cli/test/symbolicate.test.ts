/**
 * `jsprof symbolicate`: fixtures/programs/phases.js minified by esbuild (names mangled), instrumented
 * by `jsprof instrument --source-map` (maps chained), run with the bare runtime (frames in the
 * minified file's coordinates, at CallSite's enclosing positions as in a browser), then symbolicated:
 * the frames must name the original functions at the starts `node --cpu-prof` gives for the
 * original file.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { SourceMaps, symbolicate, validateTrace } from '@jsprof/trace-tools';
import { FIXTURES, ROOT, expectWellFormed, jsprof, tempDir } from './helpers';

const PHASES = path.join(FIXTURES, 'phases.js');
const PHASES_URL = pathToFileURL(PHASES).href;

/** name → "line:column" of the functions V8 sampled in the original file. */
function v8Starts(dir: string): Map<string, string> {
  const run = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, PHASES, '150'], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  const profile = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!), 'utf8'));
  const starts = new Map<string, string>();
  for (const { callFrame: f } of profile.nodes) if (f.url === PHASES_URL && f.functionName) starts.set(f.functionName, `${f.lineNumber + 1}:${f.columnNumber + 1}`);
  return starts;
}

/** Runs `file` under the bare runtime (no resolver that knows the sources) and writes its trace. */
function profileBare(file: string, out: string) {
  const driver = `
    const { install } = require('@jsprof/runtime/node');
    install();
    const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 100000 });
    process.argv = [process.argv[0], ${JSON.stringify(file)}, '150'];
    require(${JSON.stringify(file)});
    profiler.stop().then((trace) => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(trace)));`;
  const run = spawnSync(process.execPath, ['-e', driver], { cwd: ROOT, encoding: 'utf8' });
  expect(run.stderr).toBe('');
}

describe('jsprof symbolicate', () => {
  let dir: string;
  let dist: string;
  let bundle: string;
  beforeAll(async () => {
    dir = tempDir();
    dist = path.join(dir, 'dist');
    bundle = path.join(dist, 'phases.min.js');
    await build({ entryPoints: [PHASES], outfile: bundle, bundle: true, minify: true, sourcemap: true, platform: 'node', logLevel: 'silent' });
    expect(jsprof(['instrument', '--in-place', '--threshold', '1', dist]).status).toBe(0);
    profileBare(bundle, path.join(dir, 'trace.json'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('names the original functions at the starts V8 gives in the original file', () => {
    const raw = JSON.parse(fs.readFileSync(path.join(dir, 'trace.json'), 'utf8'));
    // esbuild mangled the names: the bare trace does not know scanPrimes.
    expect(raw.frames.map((f: any) => f.name)).not.toContain('scanPrimes');

    const out = path.join(dir, 'symbolicated.json');
    const run = jsprof(['symbolicate', path.join(dir, 'trace.json'), '--source-maps', dist, '-o', out]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/^jsprof: \d+ of \d+ frames mapped to original sources\.\n/);
    const trace = JSON.parse(fs.readFileSync(out, 'utf8'));
    expectWellFormed(trace);
    expect(trace.resources).toContain(PHASES_URL);
    // Only the bundle's top-level code (1:1, unnamed, mapped to no one source) stays in the bundle.
    const left = trace.frames.filter((f: any) => trace.resources[f.resourceId] === pathToFileURL(bundle).href);
    expect(left).toEqual([{ name: '', resourceId: trace.resources.indexOf(pathToFileURL(bundle).href), line: 1, column: 1 }]);

    const ours = new Map<string, string>();
    for (const f of trace.frames) if (trace.resources[f.resourceId] === PHASES_URL && f.name) ours.set(f.name, `${f.line}:${f.column}`);
    const v8 = v8Starts(path.join(dir, 'v8'));
    const common = [...v8.keys()].filter((name) => ours.has(name));
    expect(common).toEqual(expect.arrayContaining(['scanPrimes', 'build', 'sortNumbers', 'spin']));
    for (const name of common) expect(`${name} ${ours.get(name)}`).toBe(`${name} ${v8.get(name)}`);
  });

  test('aggregate maps every trace with --source-maps, the maps read once, and says what it mapped in all', () => {
    const traces = path.join(dir, 'many');
    fs.mkdirSync(traces, { recursive: true });
    for (const name of ['a.json', 'b.json']) fs.copyFileSync(path.join(dir, 'trace.json'), path.join(traces, name));
    const plain = jsprof(['aggregate', traces, '--json']);
    expect(plain.stdout).not.toContain('scanPrimes');
    const mapped = jsprof(['aggregate', traces, '--json', '-s', dist]);
    expect(mapped.status).toBe(0);
    const frames = mapped.stderr.match(/^jsprof: (\d+) of (\d+) frames mapped to original sources\.\n/);
    const once = jsprof(['report', path.join(dir, 'trace.json'), '-s', dist]).stderr.match(/^jsprof: (\d+) of (\d+) frames/);
    expect(frames && once && [Number(frames[1]), Number(frames[2])]).toEqual([2 * Number(once![1]), 2 * Number(once![2])]);
    const rows = JSON.parse(mapped.stdout).all.functions;
    expect(rows.find((f: any) => f.name === 'scanPrimes')).toMatchObject({ traces: 2, resource: PHASES_URL });
  });

  test('report and convert map the frames themselves with --source-maps: original names and files, no other command', () => {
    const trace = path.join(dir, 'trace.json');
    const plain = jsprof(['report', trace, '--top', '30']);
    expect(plain.stdout).not.toContain('scanPrimes');
    const mapped = jsprof(['report', trace, '--top', '30', '--source-maps', dist]);
    expect(mapped.status).toBe(0);
    expect(mapped.stderr).toMatch(/^jsprof: \d+ of \d+ frames mapped to original sources\.\n/);
    expect(mapped.stdout).toMatch(/scanPrimes\s+\S*phases\.js:\d+/);
    const html = path.join(dir, 'report.html');
    expect(jsprof(['report', trace, '--html', html, '-s', dist]).status).toBe(0);
    expect(fs.readFileSync(html, 'utf8')).toContain('scanPrimes');
    const profile = path.join(dir, 'mapped.cpuprofile');
    expect(jsprof(['convert', trace, '--to', 'cpuprofile', '-o', profile, '--source-maps', dist]).status).toBe(0);
    const nodes = JSON.parse(fs.readFileSync(profile, 'utf8')).nodes;
    expect(nodes.some((n: any) => n.callFrame.functionName === 'scanPrimes' && n.callFrame.url === PHASES_URL)).toBe(true);
  });

  test("a minifier's inlined arrow, whose start maps to the name it replaced in another function, is named by its body", () => {
    // App's `const onCrunch = async () => {…}`, inlined by the minifier (oxc in vite 8) into `{ onClick: onCrunch }`;
    // its map sends the arrow's start to the name onCrunch, inside App. Chromium names the frame onClick.
    const dir = tempDir();
    const original = 'function App() {\n  const onCrunch = async () => {\n    let total = 0;\n    return total;\n  };\n  return { onClick: onCrunch };\n}\n';
    fs.writeFileSync(path.join(dir, 'app.min.js'), 'function App(){return{onClick:async()=>{let t=0;return t}}}\n//# sourceMappingURL=app.min.js.map\n');
    const map = { version: 3, sources: ['app.js'], sourcesContent: [original], names: ['App', 'onCrunch'], mappings: 'AAAA,SAASA,MAKP,OAAS,QAASC,UAHhB,MACA' };
    fs.writeFileSync(path.join(dir, 'app.min.js.map'), JSON.stringify(map));
    const url = 'https://app.example/assets/app.min.js';
    const trace = {
      resources: [url],
      frames: [{ name: 'App', resourceId: 0, line: 1, column: 13 }, { name: 'onClick', resourceId: 0, line: 1, column: 31 }],
      stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
      samples: [{ timestamp: 0, stackId: 1 }],
    };
    const { trace: mapped } = symbolicate(trace, new SourceMaps(dir));
    expect(mapped.resources).toEqual([pathToFileURL(path.join(dir, 'app.js')).href]);
    // V8's starts in the original: App's `(` and the arrow's `async`.
    expect(mapped.frames).toEqual([
      { name: 'App', resourceId: 0, line: 1, column: 13 },
      { name: 'onCrunch', resourceId: 0, line: 2, column: 20 },
    ]);
  });

  test('TypeScript and JSX sources (a vite or webpack app): frames get the original functions (overloads and abstract methods aside), an arrow never the name of its parameter', async () => {
    const dir = tempDir();
    const source = `interface Props { n: number }
const h = (...parts: unknown[]) => parts;
export function primesBelow(limit: number): number[] {
  const found: number[] = [];
  for (let i = 2; i < limit; i++) if (found.every((p) => i % p !== 0)) found.push(i);
  return found;
}
export function App({ n }: Props) {
  return <ul>{primesBelow(n).map((p) => <li>{p}</li>)}</ul>;
}
export const load = (n: number) => Promise.resolve(n).then((ps: number) => primesBelow(ps));
export abstract class Shape { abstract area(): number; scale(k: number): number; scale(k: string): number; scale(k: any) { return Number(k) * this.area(); } }
`;
    fs.writeFileSync(path.join(dir, 'app.tsx'), source);
    await build({ entryPoints: [path.join(dir, 'app.tsx')], outfile: path.join(dir, 'dist/app.js'), bundle: true, minify: true, format: 'esm', jsxFactory: 'h', sourcemap: true, logLevel: 'silent' });
    // Chromium's frames: each function of the bundle at its start, with the name it has there (mangled, or none).
    const minified = fs.readFileSync(path.join(dir, 'dist/app.js'), 'utf8');
    const { instrument: list, parseJs } = require('@jsprof/estree-instrument');
    const { LIST_ONLY_OPTIONS } = require('@jsprof/policy');
    const functions: { name: string; line: number; column: number }[] = list({ code: minified, program: parseJs(minified, 'app.js'), sourceMap: false }, LIST_ONLY_OPTIONS).functions;
    const url = 'https://app.example/assets/app.js';
    const trace = {
      resources: [url],
      frames: functions.map((f) => ({ name: f.name, resourceId: 0, line: f.line, column: f.column })),
      stacks: functions.map((_, i) => ({ frameId: i })),
      samples: functions.map((_, i) => ({ timestamp: i, stackId: i })),
    };
    const { trace: mapped } = symbolicate(trace, new SourceMaps(path.join(dir, 'dist')));
    const named = mapped.frames.map((f) => `${f.name} ${f.line}:${f.column}`).sort();
    // As V8 names them in the source: declarations and arrows given to a `const` by name, at their heads; the others anonymous.
    // A class's frame at `class`; an overloaded method at the signature with a body.
    expect(named).toEqual(['h 2:11', 'primesBelow 3:28', 'App 8:20', 'load 11:21', ' 5:51', ' 9:34', ' 11:60', 'Shape 12:17', 'scale 12:113'].sort());
    expect(mapped.resources).toEqual([pathToFileURL(path.join(dir, 'app.tsx')).href]);
  });

  test('merges frames that become one function, keeping stacks parents first and samples on the same paths', () => {
    const raw = validateTrace(JSON.parse(fs.readFileSync(path.join(dir, 'trace.json'), 'utf8')));
    const { trace, stats } = symbolicate(raw, new SourceMaps(dist));
    expect(stats.mapped).toBeGreaterThan(0);
    expect(validateTrace(trace).samples.length).toBe(raw.samples.length);
    const depth = (t: typeof raw, id: number | undefined): number => (id === undefined ? 0 : 1 + depth(t, t.stacks[id].parentId));
    raw.samples.forEach((s, i) => expect(depth(trace, trace.samples[i].stackId)).toBe(depth(raw, s.stackId)));
    // Frames deduplicated by (name, resource, line, column).
    const keys = trace.frames.map((f) => JSON.stringify(f));
    expect(new Set(keys).size).toBe(keys.length);
  });

  test('keeps the meta of a {meta, trace} document, leaves scripts without a map as they are, and says so', () => {
    const raw = JSON.parse(fs.readFileSync(path.join(dir, 'trace.json'), 'utf8'));
    raw.resources.push('https://cdn.example.com/lib.js');
    raw.frames.push({ name: 'lib', resourceId: raw.resources.length - 1, line: 3, column: 9 });
    const input = path.join(dir, 'doc.json');
    fs.writeFileSync(input, JSON.stringify({ meta: { page: '/home' }, trace: raw }));
    const run = jsprof(['symbolicate', input, '--source-maps', dist, '-o', '-']);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('jsprof: no source map for https://cdn.example.com/lib.js\n');
    const doc = JSON.parse(run.stdout);
    expect(doc.meta).toEqual({ page: '/home' });
    const lib = doc.trace.frames.find((f: any) => f.name === 'lib');
    expect({ ...lib, resource: doc.trace.resources[lib.resourceId] }).toMatchObject({ line: 3, column: 9, resource: 'https://cdn.example.com/lib.js' });
  });

  test('a malformed trace or a missing directory is one line and exit 1, and nothing is written', () => {
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ resources: [], frames: [], stacks: [{ frameId: 0 }], samples: [] }));
    const out = path.join(dir, 'never.json');
    const run = jsprof(['symbolicate', bad, '--source-maps', dist, '-o', out]);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 1, stderr: `jsprof: ${bad}: stacks[0].frameId 0 is not an index into frames (0 of them)\n` });
    expect(fs.existsSync(out)).toBe(false);
    const noDir = jsprof(['symbolicate', path.join(dir, 'trace.json'), '--source-maps', path.join(dir, 'nowhere')]);
    expect({ status: noDir.status, stderr: noDir.stderr }).toEqual({ status: 1, stderr: `jsprof: ${path.join(dir, 'nowhere')}: no such directory\n` });
  });
});

test('-s over several builds whose maps fit a script equally: the first is used and the others are named; identical copies are no warning', () => {
  const dir = tempDir();
  const maps = path.join(dir, 'maps');
  const mapOf = (source: string) => JSON.stringify({ version: 3, sources: [source], sourcesContent: ['function start() {}\n'], names: [], mappings: 'AAAA' });
  for (const [release, source] of [['r1', 'src/v1.js'], ['r2', 'src/v2.js'], ['r2-copy', 'src/v2.js']]) {
    fs.mkdirSync(path.join(maps, release, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(maps, release, 'assets/main.js.map'), mapOf(source));
  }
  const trace = path.join(dir, 'trace.json');
  const frames = [{ name: 'a', resourceId: 0, line: 1, column: 1 }];
  fs.writeFileSync(trace, JSON.stringify({ resources: ['https://shop.example/assets/main.js'], frames, stacks: [{ frameId: 0 }], samples: [{ timestamp: 0, stackId: 0 }, { timestamp: 10, stackId: 0 }] }));

  const all = jsprof(['report', trace, '-s', maps]);
  expect(all.status).toBe(0);
  const [r1, r2, copy] = ['r1', 'r2', 'r2-copy'].map((release) => path.join(maps, release, 'assets/main.js.map'));
  expect(all.stderr).toContain(`jsprof: several different source maps fit https://shop.example/assets/main.js: ${r1}, ${r2}, ${copy}; the first was used (give -s the directory of one build)\n`);
  fs.rmSync(path.join(maps, 'r1'), { recursive: true });
  const copies = jsprof(['report', trace, '-s', maps]);
  expect(copies.stderr).toBe('jsprof: 1 of 1 frames mapped to original sources.\n');
  expect(copies.stdout).toContain('src/v2.js');
});

test('a map that names a device (/dev/zero) as its source, or a script that names one as its map, is not read: no hang; a map name too long is none', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'app.js'), 'function work() { return 1; }\n');
  fs.writeFileSync(path.join(dir, 'app.js.map'), JSON.stringify({ version: 3, sources: ['/dev/zero'], names: [], mappings: 'AAAA' }));
  fs.writeFileSync(path.join(dir, 'lib.js'), 'function other() { return 2; }\n//# sourceMappingURL=/dev/zero\n');
  // A name too long to stat (ENAMETOOLONG) is no map either, not a crash.
  fs.writeFileSync(path.join(dir, 'long.js'), `function third() { return 3; }\n//# sourceMappingURL=${'a'.repeat(5000)}.map\n`);
  const trace = {
    resources: ['https://shop.example/app.js', 'https://shop.example/lib.js', 'https://shop.example/long.js'],
    frames: [
      { name: 'work', resourceId: 0, line: 1, column: 1 },
      { name: 'other', resourceId: 1, line: 1, column: 1 },
      { name: 'third', resourceId: 2, line: 1, column: 1 },
    ],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }, { frameId: 2, parentId: 1 }],
    samples: [{ timestamp: 0, stackId: 1 }],
  };
  fs.writeFileSync(path.join(dir, 'trace.json'), JSON.stringify(trace));
  // A margin, not a measure: before, reading /dev/zero never ended.
  const run = spawnSync(process.execPath, [path.join(ROOT, 'packages/cli/bin/jsprof.js'), 'symbolicate', path.join(dir, 'trace.json'), '-s', dir, '-o', '-'], { encoding: 'utf8', timeout: 30_000 });
  expect([run.status, run.stderr]).toEqual([0, 'jsprof: 1 of 3 frames mapped to original sources.\njsprof: no source map for https://shop.example/lib.js, https://shop.example/long.js\n']);
  const mapped = JSON.parse(run.stdout);
  expect(mapped.resources).toEqual(['file:///dev/zero', 'https://shop.example/lib.js', 'https://shop.example/long.js']);
  expect(mapped.frames).toEqual([{ name: 'work', resourceId: 0, line: 1, column: 1 }, trace.frames[1], trace.frames[2]]);
});
