/**
 * The loader `JsprofWebpackPlugin` adds after every other loader (`enforce: 'post'`): it instruments
 * what they produced and chains their source map.
 */
import * as acorn from 'acorn';
import { instrument } from '@jsprof/estree-instrument';

interface LoaderContext {
  resourcePath: string;
  sourceMap?: boolean;
  getOptions?(): object;
  callback(error: Error | null, code?: string, map?: any): void;
}

function parse(code: string): any {
  try {
    return acorn.parse(code, { ecmaVersion: 'latest', sourceType: 'module' });
  } catch {
    return acorn.parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true });
  }
}

export default function jsprofWebpackLoader(this: LoaderContext, source: string, inputMap?: any): void {
  try {
    const result = instrument(
      { code: source, program: parse(source), filename: this.resourcePath, inputSourceMap: inputMap ?? undefined, sourceMap: this.sourceMap !== false },
      this.getOptions?.() ?? {},
    );
    this.callback(null, result.code, result.map ?? inputMap);
  } catch (error: any) {
    const at = error?.loc ? `:${error.loc.line}:${error.loc.column + 1}` : '';
    this.callback(error?.loc ? new SyntaxError(`${this.resourcePath}${at}: ${String(error.message).replace(/ \(\d+:\d+\)$/, '')}`) : error);
  }
}
