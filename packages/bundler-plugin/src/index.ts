/**
 * `@jsprof/bundler-plugin`: jsprof's checks in bundler builds, after the build's own transforms, with
 * source maps chained so frames lead back to the original sources.
 *
 *   // vite.config.js (rollup.config.js, esbuild's plugins alike: '@jsprof/bundler-plugin/rollup', '/esbuild')
 *   import jsprof from '@jsprof/bundler-plugin/vite';
 *   export default { build: { sourcemap: true }, plugins: [jsprof({ threshold: 10 })] };
 *
 *   // webpack.config.js
 *   const { JsprofWebpackPlugin } = require('@jsprof/bundler-plugin');
 *   module.exports = { devtool: 'source-map', plugins: [new JsprofWebpackPlugin({ threshold: 10 })] };
 *
 * The page loads the runtime first (`@jsprof/runtime/global`); without it the code computes what it
 * did, but a function's text carries the checks (docs/design.md, "Function text").
 * With `sampling: { rate }`, the build stays plain and an instrumented one is written beside it, with a
 * snippet that picks one per page load and profiles the picked ones (sampling.ts).
 */
import * as path from 'node:path';
import { OptionsError, normalizeOptions } from '@jsprof/policy';
import { TABLE_REGISTRATION, webpackDevtoolProblem } from '@jsprof/estree-instrument';
import { SCRIPT_OUTPUT, functionTableFor } from './function-table';
import { SCRIPTS, moduleFilter } from './filter';
import { JsprofPluginOptions, checkOptionNames } from './options';
import { BuiltScript, SamplingOptions, checkSampling, finishSampledBuild, inInstrumentedPass, instrumentedDir, instrumentedPass } from './sampling';

export type { JsprofPluginOptions } from './options';
export type { SamplingOptions } from './sampling';
export type { FilterPattern } from './filter';

export { jsprofUnplugin } from './unplugin';

/**
 * webpack's plugin is a post loader rather than unplugin's webpack adapter, which drops or does not
 * compose the previous loaders' source map (unjs/unplugin#616), so the map would not lead back to the
 * sources.
 */
export class JsprofWebpackPlugin {
  readonly #options: JsprofPluginOptions;
  readonly #instrumented: (file: string, content?: string) => boolean;
  readonly name = 'JsprofWebpackPlugin';

  constructor(options: JsprofPluginOptions = {}) {
    checkOptionNames(options);
    const { include, exclude, sampling, ...policy } = options;
    // bad options fail when the config loads, not in the middle of a build
    normalizeOptions(policy);
    this.#instrumented = moduleFilter({ include, exclude }, SCRIPTS);
    if (sampling) checkSampling(sampling);
    this.#options = options;
  }

  // vite (which calls apply(config, env)), rollup and esbuild, given this plugin in place of their own, are told which to use.
  setup(): never {
    notWebpack();
  }

  buildStart(): never {
    notWebpack();
  }

  apply(compiler: any): void {
    if (typeof compiler?.hooks?.thisCompilation?.tap !== 'function') notWebpack();
    const { include, exclude, sampling, ...policy } = this.#options;
    warnOfDevtool(compiler);
    // A sampled build's first compiler is plain: jsprof does nothing to it but start the second.
    if (sampling && !inInstrumentedPass()) return sampledWebpack(compiler, sampling);
    const use = [{ loader: require.resolve('./webpack-loader'), options: { ...policy, runtime: 'global' } }];
    compiler.options.module.rules.push({ test: this.#instrumented, enforce: 'post', use }, { ...vueBlocks(this.#instrumented), enforce: 'post', use });
    // Function tables of the scripts as they will run: after minification and content hashing.
    const { Compilation, sources } = compiler.webpack;
    compiler.hooks.thisCompilation.tap('JsprofWebpackPlugin', (compilation: any) => {
      // Each script says it has a table (TABLE_REGISTRATION), at its end, before it is minified.
      compilation.hooks.processAssets.tap({ name: 'JsprofWebpackPlugin', stage: Compilation.PROCESS_ASSETS_STAGE_ADDITIONS }, (assets: Record<string, any>) => {
        for (const name of Object.keys(assets)) {
          if (SCRIPT_OUTPUT.test(name)) compilation.updateAsset(name, (old: any) => new sources.ConcatSource(old, `\n${TABLE_REGISTRATION}\n`));
        }
      });
      compilation.hooks.processAssets.tap({ name: 'JsprofWebpackPlugin', stage: Compilation.PROCESS_ASSETS_STAGE_ANALYSE }, (assets: Record<string, any>) => {
        // The script's map, wherever the devtool put it (SourceMapDevToolPlugin's `filename: 'maps/[file].map'`).
        const mapOf = (name: string) => [compilation.getAsset(name)?.info.related?.sourceMap].flat()[0] ?? `${name}.map`;
        for (const [name, asset] of Object.entries(assets)) {
          const table = SCRIPT_OUTPUT.test(name) ? functionTableFor(name, asset.source().toString(), assets[mapOf(name)]?.source().toString()) : null;
          if (table) compilation.emitAsset(table[0], new sources.RawSource(table[1]));
        }
      });
    });
  }
}

/**
 * The blocks of Vue components, as vue-loader requests them (`App.vue?vue&type=script&setup=true&lang=ts`),
 * by the file their language makes (`App.vue.ts`). VueLoaderPlugin gives the rules listed when it
 * runs such conditions; jsprof's, listed after it, would miss them. (Its way: the resource's
 * condition is tested before the query's.)
 */
function vueBlocks(instrumented: (file: string, content: string) => boolean) {
  let resource = '';
  return {
    resource: (file: string) => ((resource = file), true),
    resourceQuery: (query: string) => {
      const block = new URLSearchParams(query.slice(1));
      const lang = block.get('lang');
      return block.has('vue') && block.get('type') !== 'style' && lang !== null && instrumented(resource, `${resource}.${lang}`);
    },
  };
}

function notWebpack(): never {
  throw new OptionsError("JsprofWebpackPlugin is webpack's plugin: vite, rollup and esbuild take jsprof's from '@jsprof/bundler-plugin/vite', '@jsprof/bundler-plugin/rollup' and '@jsprof/bundler-plugin/esbuild'");
}

/** One warning in the build's output where a profile cannot be read through the devtool (webpackDevtoolProblem). */
function warnOfDevtool(compiler: any): void {
  compiler.hooks.thisCompilation.tap('JsprofWebpackPlugin', (compilation: any) => {
    // As the mode's defaults made it: they apply after the plugins.
    const problem = webpackDevtoolProblem(compiler.options.devtool);
    if (problem) compilation.warnings.push(new compiler.webpack.WebpackError(problem));
  });
}

/**
 * webpack: after the build, the same options again (as webpack normalized them, so compiled as
 * `webpack()` would, without validating them again), instrumenting, into `<output.path>/<dir>/`.
 */
function sampledWebpack(compiler: any, sampling: SamplingOptions): void {
  const { webpack } = compiler;
  const entries = (compilation: any): BuiltScript[] =>
    [...compilation.entrypoints].flatMap(([name, entrypoint]: [string, any]) =>
      entrypoint.getFiles().filter((file: string) => SCRIPT_OUTPUT.test(file)).map((file: string, i: number) => ({ key: `${name}#${i}`, file, module: compilation.outputOptions.module === true })),
    );
  compiler.hooks.done.tapPromise('JsprofWebpackPlugin', async (stats: any) => {
    if (stats.hasErrors()) return;
    const options = compiler.options;
    const publicPath = options.output.publicPath;
    const relative = publicPath === 'auto' || publicPath === '' || typeof publicPath !== 'string';
    const nested = {
      ...options,
      output: { ...options.output, path: path.join(options.output.path, instrumentedDir(sampling)), publicPath: relative ? publicPath : `${publicPath}${instrumentedDir(sampling)}/` },
      module: { ...options.module, rules: [...options.module.rules] },
    };
    const instrumented = await instrumentedPass(
      () =>
        new Promise<any>((resolve, reject) => {
          const second = createCompiler(webpack, nested);
          second.run((error: Error | null, result: any) =>
            second.close(() => (error ? reject(error) : result.hasErrors() ? reject(new Error(`jsprof: the instrumented build failed:\n${result.toString('errors-only')}`)) : resolve(result))),
          );
        }),
    );
    finishSampledBuild(options.output.path, sampling, relative ? null : publicPath, { plain: entries(stats.compilation), instrumented: entries(instrumented.compilation) });
  });
}

/** What `webpack(options)` does after normalizing and validating options. */
function createCompiler(webpack: any, options: any): any {
  const compiler = new webpack.Compiler(options.context, options);
  new webpack.node.NodeEnvironmentPlugin({ infrastructureLogging: options.infrastructureLogging }).apply(compiler);
  for (const plugin of options.plugins) {
    if (typeof plugin === 'function') plugin.call(compiler, compiler);
    else if (plugin) plugin.apply(compiler);
  }
  webpack.config.applyWebpackOptionsDefaults(options);
  compiler.hooks.environment.call();
  compiler.hooks.afterEnvironment.call();
  new webpack.WebpackOptionsApply().process(options, compiler);
  compiler.hooks.initialize.call();
  return compiler;
}
