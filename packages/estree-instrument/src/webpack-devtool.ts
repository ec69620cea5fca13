/**
 * What jsprof's webpack loaders (the bundler plugin's and the SWC front's) share: what a `devtool`
 * does to a profile of the code they instrument, said in the build's warnings, and which modules
 * they leave alone.
 */

/**
 * Whether webpack makes an asset of the module (`type: 'asset/source'`, `'asset/resource'`,
 * `'asset/inline'`: a script imported as text, `import text from './a.js?raw'`, or emitted as a
 * file): the app's data, byte for byte, not code of the bundle.
 */
export function isWebpackAsset(module: { type?: string } | undefined): boolean {
  return typeof module?.type === 'string' && module.type.startsWith('asset');
}

/**
 * Why a profile cannot be read through this devtool, or null. One of the `eval` family
 * (development mode's default) runs each module's code through `eval`: code without a URL, whose
 * frames a profile leaves out (as Chromium's does), so the trace would show webpack's module
 * wrappers only. A `cheap` one maps lines, not columns, so a frame mapped through it lands at the
 * start of its line: not where its function starts, nor always inside it (`window.run = () => {…}`
 * is then nameless).
 */
export function webpackDevtoolProblem(devtool: unknown): string | null {
  if (typeof devtool !== 'string') return null;
  const why = devtool.includes('eval')
    ? "runs each module through eval, whose frames a profile leaves out (it shows only webpack's module wrappers)"
    : devtool.includes('cheap')
      ? 'maps lines, not columns: frames mapped through it land at the start of their line, not where their function starts, and some lose their name'
      : null;
  return why && `jsprof: devtool '${devtool}' ${why}: use 'source-map' (or 'hidden-source-map')`;
}
