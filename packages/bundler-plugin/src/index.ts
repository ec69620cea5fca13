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
 * The page loads the runtime first (`@jsprof/runtime/global`), or the code runs unchanged without it.
 */
import { PlacementOptions, normalizeOptions } from '@jsprof/policy';
import { TABLE_REGISTRATION } from '@jsprof/estree-instrument';
import { SCRIPT_OUTPUT, functionTableFor } from './function-table';
import { isJsprofRuntime } from './own-files';

export interface JsprofPluginOptions extends Partial<PlacementOptions> {
  /** Which modules: by default every script, `node_modules` included (third-party time is time too). */
  test?: RegExp;
  exclude?: RegExp;
}

export { jsprofUnplugin } from './unplugin';

/**
 * webpack's plugin is a post loader rather than unplugin's webpack adapter, which drops or does not
 * compose the previous loaders' source map (unjs/unplugin#616), so the map would not lead back to the
 * sources.
 */
export class JsprofWebpackPlugin {
  private readonly options: JsprofPluginOptions;

  constructor(options: JsprofPluginOptions = {}) {
    const { test, exclude, ...policy } = options;
    normalizeOptions(policy); // bad options fail when the config loads, not in the middle of a build
    this.options = options;
  }

  apply(compiler: any): void {
    const { test = /\.[cm]?[jt]sx?$/, exclude, ...policy } = this.options;
    compiler.options.module.rules.push({
      test,
      exclude: (file: string) => !!exclude?.test(file) || isJsprofRuntime(file),
      enforce: 'post',
      use: [{ loader: require.resolve('./webpack-loader'), options: { ...policy, runtime: 'global' } }],
    });
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
        for (const [name, asset] of Object.entries(assets)) {
          const table = SCRIPT_OUTPUT.test(name) ? functionTableFor(name, asset.source().toString(), assets[`${name}.map`]?.source().toString()) : null;
          if (table) compilation.emitAsset(table[0], new sources.RawSource(table[1]));
        }
      });
    });
  }
}
