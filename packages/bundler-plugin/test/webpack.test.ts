/**
 * JsprofWebpackPlugin in real webpack builds, in a temporary directory, with the plugin from the sources.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import webpack from 'webpack';
import { JsprofWebpackPlugin } from '../src';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-webpack-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function build(options: webpack.Configuration): Promise<void> {
  const config = { mode: 'production' as const, devtool: 'source-map', context: dir, entry: './index.js', output: { path: path.join(dir, 'dist') }, plugins: [new JsprofWebpackPlugin({ threshold: 1 })], ...options };
  return new Promise((resolve, reject) => webpack(config, (error, stats) => (error || stats!.hasErrors() ? reject(error ?? new Error(stats!.toString('errors-only'))) : resolve())));
}

test("a script imported as text (type 'asset/source') is the file's text, and the script that imports it gets checks", async () => {
  const snippet = 'export function sum(n) {\n  let s = 0;\n  for (let i = 0; i < n; i++) s += i;\n  return s;\n}\n';
  fs.writeFileSync(path.join(dir, 'snippet.js'), snippet);
  fs.writeFileSync(path.join(dir, 'index.js'), "import text from './snippet.js?raw';\nexport function show(out) {\n  for (const line of text.split('\\n')) out.push(line);\n}\nshow(shown);\n");
  // webpack 5.112 minifies such text in production mode (5.113 does not).
  await build({ mode: 'development', module: { rules: [{ resourceQuery: /raw/, type: 'asset/source' }] } });
  const main = fs.readFileSync(path.join(dir, 'dist/main.js'), 'utf8');
  expect(main).toMatch(/__jsprof\$c\[/);
  const shown: string[] = [];
  new Function('shown', main)(shown);
  expect(shown.join('\n')).toBe(snippet);
});

test("each script's function table names functions as the sources do through the map, wherever the devtool puts it", async () => {
  fs.writeFileSync(path.join(dir, 'index.js'), 'function countUpTo(n) {\n  let s = 0;\n  for (let i = 0; i < n; i++) s += i;\n  return s;\n}\nconsole.log(countUpTo(3), countUpTo(4));\n');
  const names = async (options: webpack.Configuration) => {
    await build(options);
    return JSON.parse(fs.readFileSync(path.join(dir, 'dist/main.js.jsprof.json'), 'utf8')).functions.map((f: unknown[]) => f[0]);
  };
  expect(await names({})).toContain('countUpTo');
  expect(await names({ devtool: false, plugins: [new webpack.SourceMapDevToolPlugin({ filename: 'maps/[file].map' }), new JsprofWebpackPlugin({ threshold: 1 })] })).toContain('countUpTo');
});

test("a block of a Vue component as vue-loader requests it (App.vue?vue&type=script&lang=js) gets checks, without VueLoaderPlugin having seen jsprof's rule", async () => {
  // What vue-loader does, in short: a block of the component, compiled as its language says.
  fs.writeFileSync(path.join(dir, 'blocks.js'), "module.exports = function (source) { const type = new URLSearchParams(this.resourceQuery.slice(1)).get('type'); return new RegExp(`<${type}>([^]*)</${type}>`).exec(source)[1]; };\n");
  fs.writeFileSync(path.join(dir, 'App.vue'), '<script>\nexport function sum(n) {\n  let s = 0;\n  for (let i = 0; i < n; i++) s += i;\n  return s;\n}\n</script>\n<style>\n.box { color: red }\n</style>\n');
  fs.writeFileSync(path.join(dir, 'index.js'), "import { sum } from './App.vue?vue&type=script&lang=js';\nimport style from './App.vue?vue&type=style&index=0&lang=css';\nconsole.log(sum(3), style);\n");
  await build({ module: { rules: [{ test: /\.vue$/, use: path.join(dir, 'blocks.js') }, { resourceQuery: /type=style/, type: 'asset/source' }] } });
  const main = fs.readFileSync(path.join(dir, 'dist/main.js'), 'utf8');
  expect(main).toMatch(/__jsprof\$c\[/);
  const logged: unknown[] = [];
  new Function('console', main)({ log: (...args: unknown[]) => logged.push(...args) });
  expect(logged).toEqual([3, '\n.box { color: red }\n']);
});
