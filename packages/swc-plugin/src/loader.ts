/**
 * A webpack loader that instruments what the loader before it produced: put it before swc-loader in
 * `use` (webpack runs loaders last to first), so SWC transforms first and jsprof instruments SWC's
 * output, chaining SWC's source map.
 *
 *   use: [{ loader: '@jsprof/swc-plugin/loader', options: { threshold: 10 } }, 'swc-loader']
 */
import { isWebpackAsset, webpackDevtoolProblem } from '@jsprof/estree-instrument';
import { protocolWarning } from '@jsprof/policy';
import { instrument, SwcInstrumentOptions } from './index';

interface LoaderContext {
  resourcePath: string;
  sourceMap?: boolean;
  getOptions?(): SwcInstrumentOptions;
  callback(error: Error | null, code?: string, map?: any): void;
  emitWarning?(warning: Error): void;
  _compiler?: { options?: { devtool?: unknown } };
  _compilation?: object;
  _module?: { type?: string };
}

/** The compilations whose devtool the loader has looked at: it says so once a build. */
const devtoolSeen = new WeakSet<object>();

export default function jsprofLoader(this: LoaderContext, source: string, inputMap?: any): void {
  if (isWebpackAsset(this._module)) return this.callback(null, source, inputMap);
  if (this._compilation && !devtoolSeen.has(this._compilation)) {
    devtoolSeen.add(this._compilation);
    const problem = webpackDevtoolProblem(this._compiler?.options?.devtool);
    if (problem) this.emitWarning?.(new Error(problem));
  }
  try {
    const options = this.getOptions?.() ?? {};
    const result = instrument(source, {
      ...options,
      filename: this.resourcePath,
      inputSourceMap: inputMap ?? undefined,
      sourceMap: this.sourceMap !== false,
    });
    const warning = protocolWarning(this.resourcePath, result.protocol);
    if (warning) this.emitWarning?.(new Error(`jsprof: ${warning}`));
    this.callback(null, result.code, result.map ?? inputMap);
  } catch (error) {
    this.callback(/\.(ts|tsx|jsx|mts|cts)$/.test(this.resourcePath) && error instanceof SyntaxError ? withLoaderOrderHint(error) : (error as Error));
  }
}

/** A syntax error in a file webpack had not yet compiled: jsprof's loader came after swc-loader in `use`. */
function withLoaderOrderHint(error: SyntaxError): SyntaxError {
  error.message += " (jsprof instruments JavaScript: list '@jsprof/swc-plugin/loader' before 'swc-loader' in `use`, as webpack runs loaders last to first)";
  return error;
}
