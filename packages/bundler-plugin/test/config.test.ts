/**
 * What the plugins say about a build they cannot profile as configured, and about options they do
 * not take: real builds in a temporary directory, with the plugins from the sources.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import webpack from 'webpack';
import * as esbuild from 'esbuild';
import { rollup, Plugin } from 'rollup';
import { JsprofWebpackPlugin, jsprofUnplugin } from '../src';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-config-'));
  fs.writeFileSync(path.join(dir, 'index.js'), 'export function sum(n) {\n  let s = 0;\n  for (let i = 0; i < n; i++) s += i;\n  return s;\n}\nconsole.log(sum(3));\n');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function webpackWarnings(options: webpack.Configuration): Promise<string[]> {
  const config = { context: dir, entry: './index.js', output: { path: path.join(dir, 'dist') }, plugins: [new JsprofWebpackPlugin({ threshold: 1 })], ...options };
  return new Promise((resolve, reject) =>
    webpack(config, (error, stats) => (error || stats!.hasErrors() ? reject(error ?? new Error(stats!.toString('errors-only'))) : resolve(stats!.compilation.warnings.map((w) => w.message)))),
  );
}

describe('webpack', () => {
  test("a devtool of the eval family (development mode's default) gets one warning saying which devtool to use", async () => {
    expect(await webpackWarnings({ mode: 'development' })).toEqual([
      "jsprof: devtool 'eval' runs each module through eval, whose frames a profile leaves out (it shows only webpack's module wrappers): use 'source-map' (or 'hidden-source-map')",
    ]);
    expect(await webpackWarnings({ mode: 'development', devtool: 'eval-cheap-module-source-map' })).toEqual([expect.stringMatching(/^jsprof: devtool 'eval-cheap-module-source-map' runs each module through eval/)]);
    expect(await webpackWarnings({ mode: 'production', devtool: 'source-map' })).toEqual([]);
    expect(await webpackWarnings({ mode: 'development', devtool: 'hidden-source-map' })).toEqual([]);
  });

  test('a cheap devtool, whose maps have no columns, gets one warning saying which devtool to use', async () => {
    expect(await webpackWarnings({ mode: 'development', devtool: 'cheap-module-source-map' })).toEqual([
      "jsprof: devtool 'cheap-module-source-map' maps lines, not columns: frames mapped through it land at the start of their line, not where their function starts, and some lose their name: use 'source-map' (or 'hidden-source-map')",
    ]);
    expect(await webpackWarnings({ mode: 'production', devtool: 'cheap-source-map' })).toEqual([expect.stringMatching(/^jsprof: devtool 'cheap-source-map' maps lines, not columns/)]);
  });
});

describe('options', () => {
  const adapters: Record<string, (options: any) => unknown> = {
    vite: (options) => jsprofUnplugin.vite(options),
    rollup: (options) => jsprofUnplugin.rollup(options),
    esbuild: (options) => jsprofUnplugin.esbuild(options),
    webpack: (options) => new JsprofWebpackPlugin(options),
  };
  const KNOWN = 'known options are: threshold, loopingFunctions, loops, exits, include, exclude, sampling';

  test.each(Object.keys(adapters))('%s: the other front ends\' runtime options are refused, saying why; a misspelt option gets the list of the plugin\'s own', (adapter) => {
    const make = adapters[adapter];
    expect(() => make({ runtime: 'import', importSource: 'nope' })).toThrow(
      `@jsprof: the plugin does not take "runtime": its code always reaches the runtime through globalThis.__jsprof (load @jsprof/runtime/global first); ${KNOWN}`,
    );
    expect(() => make({ importSource: '@jsprof/runtime' })).toThrow('@jsprof: the plugin does not take "importSource"');
    expect(() => make({ treshold: 10, include: 'src/**' })).toThrow(`@jsprof: unknown option "treshold"; ${KNOWN}`);
    expect(() => make({ threshold: 5, loopingFunctions: false, loops: true, exits: false, include: 'src/**', exclude: /x/, sampling: { rate: 0.5 } })).not.toThrow();
  });
});

describe('JsprofWebpackPlugin given to another bundler', () => {
  const NOT_WEBPACK = "@jsprof: JsprofWebpackPlugin is webpack's plugin: vite, rollup and esbuild take jsprof's from '@jsprof/bundler-plugin/vite', '@jsprof/bundler-plugin/rollup' and '@jsprof/bundler-plugin/esbuild'";

  test('rollup and esbuild fail saying which plugin to use', async () => {
    const entry = path.join(dir, 'index.js');
    await expect(rollup({ input: entry, plugins: [new JsprofWebpackPlugin() as unknown as Plugin] })).rejects.toThrow(NOT_WEBPACK);
    await expect(esbuild.build({ entryPoints: [entry], write: false, logLevel: 'silent', plugins: [new JsprofWebpackPlugin() as unknown as esbuild.Plugin] })).rejects.toThrow(NOT_WEBPACK);
  });

  test('vite, which calls a plugin\'s apply(config, env) to ask whether it applies, is told the same', () => {
    expect(() => new JsprofWebpackPlugin().apply({ root: dir, build: {} })).toThrow(NOT_WEBPACK);
  });
});
