/**
 * jsprof among esbuild's plugins: esbuild has no transform hook, so jsprof loads the scripts it
 * instruments itself. Real builds in a temporary directory, with the plugin from the sources.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { jsprofUnplugin } from '../src';

const CHECK = /__jsprof\$c\[/;
const LOOP = 'export function sum(n) {\n  let s = 0;\n  for (let i = 0; i < n; i++) s += i;\n  return s;\n}\n';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-esbuild-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

const build = (options: esbuild.BuildOptions) =>
  esbuild.build({ bundle: true, format: 'esm', write: false, outdir: path.join(dir, 'out'), logLevel: 'silent', ...options });

test("a module another plugin makes, in its own namespace, is that plugin's to load, wherever jsprof is listed", async () => {
  write({ 'app.js': "import { sum } from 'virtual:lib/sum.js';\nconsole.log(sum(3));\n" });
  const virtual: esbuild.Plugin = {
    name: 'virtual',
    setup(b) {
      b.onResolve({ filter: /^virtual:/ }, (args) => ({ path: args.path.slice('virtual:'.length), namespace: 'virtual' }));
      b.onLoad({ filter: /.*/, namespace: 'virtual' }, () => ({ contents: LOOP, loader: 'js' }));
    },
  };
  for (const plugins of [[jsprofUnplugin.esbuild({ threshold: 1 }), virtual], [virtual, jsprofUnplugin.esbuild({ threshold: 1 })]]) {
    const { outputFiles } = await build({ entryPoints: [path.join(dir, 'app.js')], plugins });
    expect(outputFiles![0].text).toContain('s += i');
  }
});

test("the build's map leads on through a dependency's own map to its sources, as it does without jsprof", async () => {
  // A dependency as published: compiled JavaScript naming its map, which leads to its TypeScript.
  const compiled = esbuild.transformSync(LOOP.replace('(n)', '(n: number)'), { loader: 'ts', sourcemap: true, sourcefile: '../src/sum.ts' });
  write({
    'node_modules/dep/dist/sum.js': `${compiled.code}//# sourceMappingURL=sum.js.map\n`,
    'node_modules/dep/dist/sum.js.map': compiled.map,
    'node_modules/dep/package.json': '{ "name": "dep", "main": "dist/sum.js" }',
    'app.js': "import { sum } from 'dep';\nconsole.log(sum(3));\n",
  });
  const sourcesOf = async (plugins: esbuild.Plugin[]) => {
    const { outputFiles } = await build({ entryPoints: [path.join(dir, 'app.js')], sourcemap: true, plugins });
    const code = outputFiles!.find((f) => f.path.endsWith('.js'))!.text;
    const map = new TraceMap(outputFiles!.find((f) => f.path.endsWith('.map'))!.text);
    const lines = code.split('\n');
    const line = lines.findIndex((l) => l.includes('s += i'));
    return { instrumented: CHECK.test(code), position: originalPositionFor(map, { line: line + 1, column: lines[line].indexOf('s += i') }) };
  };
  const plain = await sourcesOf([]);
  const instrumented = await sourcesOf([jsprofUnplugin.esbuild({ threshold: 1 })]);
  expect(plain.position.source).toMatch(/node_modules\/dep\/src\/sum\.ts$/);
  expect(instrumented).toEqual({ instrumented: true, position: plain.position });
});

test('a second pass changes nothing: a file jsprof instrumented is left as it is', async () => {
  write({ 'sum.js': LOOP });
  const once = await build({ entryPoints: [path.join(dir, 'sum.js')], bundle: false, plugins: [jsprofUnplugin.esbuild({ threshold: 1 })] });
  const first = once.outputFiles![0].text;
  expect(first).toMatch(CHECK);
  write({ 'sum.js': first });
  const twice = await build({ entryPoints: [path.join(dir, 'sum.js')], bundle: false, plugins: [jsprofUnplugin.esbuild({ threshold: 1 })] });
  expect(twice.outputFiles![0].text).toBe(first);
});

test.each([true, 'inline', 'external'] as const)("sourcemap: %s, minified: each script's function table names functions as the sources do where the map says", async (sourcemap) => {
  write({ 'app.js': LOOP.replace('export function sum', 'export function countUpTo') + 'console.log(countUpTo(3));\n' });
  await esbuild.build({ entryPoints: [path.join(dir, 'app.js')], bundle: true, minify: true, format: 'iife', sourcemap, outdir: path.join(dir, 'out'), logLevel: 'silent', plugins: [jsprofUnplugin.esbuild({ threshold: 1 })] });
  const table = JSON.parse(fs.readFileSync(path.join(dir, 'out/app.js.jsprof.json'), 'utf8'));
  expect(table.functions.map((f: unknown[]) => f[0])).toContain('countUpTo');
});

test("a script imported as text (with { type: 'text' }) is the file's text", async () => {
  write({ 'sum.js': LOOP, 'app.js': "import text from './sum.js' with { type: 'text' };\nimport { sum } from './sum.js';\nexport { text, sum };\n" });
  const { outputFiles } = await build({ entryPoints: [path.join(dir, 'app.js')], format: 'cjs', plugins: [jsprofUnplugin.esbuild({ threshold: 1 })] });
  const module = { exports: {} as { text: string; sum: (n: number) => number } };
  new Function('module', 'exports', outputFiles![0].text)(module, module.exports);
  expect(module.exports.text).toBe(LOOP);
  expect(module.exports.sum(4)).toBe(6);
  expect(outputFiles![0].text).toMatch(CHECK);
});
