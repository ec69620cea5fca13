/**
 * Files that reach jsprof before the build has compiled them to JavaScript: esbuild hands plugins
 * files as loaded, before its loaders compile them; in rollup, plugins run in the order listed.
 * Real builds in a temporary directory, with the plugins from the sources.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { rollup, Plugin } from 'rollup';
import { jsprofUnplugin } from '../src';

const CHECK = /__jsprof\$c\[/;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-uncompiled-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

const LOOP = 'export function sum(n) {\n  let s = 0;\n  for (let i = 0; i < n; i++) s += i;\n  return s;\n}\n';

describe('esbuild', () => {
  test("a .js file its 'jsx' loader compiles is left as it is, with one warning saying what to do; the build goes on, and plain .js files get checks", async () => {
    write({
      'app.js': "import { sum } from './sum.js';\nexport function App({ n }) {\n  return <ul>{sum(n)}</ul>;\n}\n",
      'sum.js': LOOP,
    });
    const result = await esbuild.build({
      entryPoints: [path.join(dir, 'app.js')],
      bundle: true,
      format: 'esm',
      outfile: path.join(dir, 'out.js'),
      loader: { '.js': 'jsx' },
      jsx: 'automatic',
      external: ['react/jsx-runtime'],
      logLevel: 'silent',
      plugins: [jsprofUnplugin.esbuild({ threshold: 1 })],
    });
    expect(result.warnings.map((w) => w.text)).toEqual([
      `jsprof: ${path.join(dir, 'app.js')}:3:10: Unexpected token: esbuild hands plugins this file before its 'jsx' loader compiles it, so jsprof leaves it as it is; to instrument it, build without jsprof's plugin and run \`jsprof instrument\` on the output`,
    ]);
    const out = fs.readFileSync(path.join(dir, 'out.js'), 'utf8');
    expect(out).toContain('jsx("ul"');
    expect(out).toMatch(CHECK);
  });

  test('a syntax error in a file its loader reads as plain JavaScript still fails the build', async () => {
    write({ 'app.js': 'export const a = ;\n' });
    const build = esbuild.build({ entryPoints: [path.join(dir, 'app.js')], bundle: true, write: false, logLevel: 'silent', plugins: [jsprofUnplugin.esbuild({})] });
    await expect(build).rejects.toThrow(/app\.js:1:18: Unexpected token/);
  });

  test('include matching TypeScript files, which jsprof cannot instrument under esbuild, gives one warning saying what to do', async () => {
    write({ 'src/app.tsx': "import { sum } from './sum';\nexport const App = ({ n }: { n: number }) => <b>{sum(n)}</b>;\n", 'src/sum.ts': LOOP.replace('(n)', '(n: number)'), 'src/plain.js': LOOP });
    const build = (include: string) =>
      esbuild.build({
        entryPoints: [path.join(dir, 'src/app.tsx'), path.join(dir, 'src/plain.js')],
        bundle: true,
        write: false,
        outdir: path.join(dir, 'out'),
        jsx: 'automatic',
        external: ['react/jsx-runtime'],
        logLevel: 'silent',
        plugins: [jsprofUnplugin.esbuild({ threshold: 1, include })],
      });
    const matching = await build(`${dir}/src/**`);
    expect(matching.warnings.map((w) => w.text)).toEqual([
      `jsprof: include matches ${path.join(dir, 'src/app.tsx')}, but esbuild hands plugins TypeScript and JSX before compiling them, so jsprof instruments only .js, .mjs and .cjs files there; to instrument the others, build without jsprof's plugin and run \`jsprof instrument\` on the output`,
    ]);
    expect(matching.outputFiles.map((f) => CHECK.test(f.text))).toEqual([false, true]); // app.tsx and sum.ts, plain.js
    expect((await build(`${dir}/src/*.js`)).warnings).toEqual([]);
  });
});

describe('rollup', () => {
  /** A plugin that compiles TypeScript and JSX, as @rollup/plugin-babel or -typescript would. */
  const compileTsx: Plugin = {
    name: 'tsx',
    transform(code, id) {
      if (!id.endsWith('.tsx')) return null;
      const out = esbuild.transformSync(code, { loader: 'tsx', jsx: 'automatic', format: 'esm', sourcemap: true, sourcefile: id });
      return { code: out.code, map: out.map };
    },
  };
  const input = (plugins: Plugin[]) => rollup({ input: path.join(dir, 'app.tsx'), external: ['react/jsx-runtime'], plugins, onwarn: () => {} });

  beforeEach(() =>
    write({ 'app.tsx': "export function App({ n }: { n: number }) {\n  const items: number[] = [];\n  for (let i = 0; i < n; i++) items.push(i);\n  return <ul>{items}</ul>;\n}\n" }),
  );

  test('jsprof listed before the plugin that compiles TypeScript and JSX instruments what that plugin made', async () => {
    const bundle = await input([jsprofUnplugin.rollup({ threshold: 1 }) as Plugin, compileTsx]);
    const { output } = await bundle.generate({ format: 'es' });
    expect(output[0].code).toMatch(CHECK);
  });

  test('TypeScript no plugin compiled is refused with file:line:col and what to do', async () => {
    await expect(input([jsprofUnplugin.rollup({ threshold: 1 }) as Plugin])).rejects.toThrow(
      `${path.join(dir, 'app.tsx')}:1:26: Unexpected token: the file is not JavaScript yet; jsprof must run after the plugins that compile TypeScript and JSX (list it after them)`,
    );
  });
});
