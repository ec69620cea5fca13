/**
 * The loader `JsprofWebpackPlugin` adds after every other loader (`enforce: 'post'`): it instruments
 * what they produced and chains their source map.
 */
import { TooDeeplyNestedError, instrument, isWebpackAsset, parseJs } from '@jsprof/estree-instrument';
import { protocolWarning } from '@jsprof/policy';

interface LoaderContext {
  resourcePath: string;
  sourceMap?: boolean;
  getOptions?(): object;
  callback(error: Error | null, code?: string, map?: any): void;
  emitWarning?(warning: Error): void;
  _module?: { type?: string };
}

export default function jsprofWebpackLoader(this: LoaderContext, source: string, inputMap?: any): void {
  if (isWebpackAsset(this._module)) return this.callback(null, source, inputMap);
  try {
    const result = instrument(
      { code: source, program: parseJs(source, this.resourcePath), filename: this.resourcePath, inputSourceMap: inputMap ?? undefined, sourceMap: this.sourceMap !== false },
      this.getOptions?.() ?? {},
    );
    const warning = protocolWarning(this.resourcePath, result.protocol);
    if (warning) this.emitWarning?.(new Error(`jsprof: ${warning}`));
    this.callback(null, result.code, result.map ?? inputMap);
  } catch (error) {
    // A file nested deeper than jsprof parses stays as it is; the build goes on.
    if (!(error instanceof TooDeeplyNestedError)) return this.callback(error as Error);
    this.emitWarning?.(new Error(`jsprof: ${error.message}`));
    this.callback(null, source, inputMap);
  }
}
