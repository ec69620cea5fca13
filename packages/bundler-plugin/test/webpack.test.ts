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
