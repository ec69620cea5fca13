/** The function table written beside each script a build outputs (see @jsprof/runtime's function-tables.ts). */
import { FUNCTION_TABLE_SUFFIX, functionTable, inlineSourceMap, parseJs } from '@jsprof/estree-instrument';

export const SCRIPT_OUTPUT = /\.[cm]?js$/;

/**
 * `[file name, JSON]` of the table for a script the build wrote, or null when it does not parse as
 * JavaScript. With the script's source map (an object or its JSON; else the one it carries inline),
 * functions a minifier renamed get their names in the sources.
 */
export function functionTableFor(fileName: string, code: string, sourceMap?: unknown): [string, string] | null {
  try {
    return [fileName + FUNCTION_TABLE_SUFFIX, JSON.stringify(functionTable(code, parseJs(code, fileName), sourceMap ?? inlineSourceMap(code) ?? undefined))];
  } catch {
    return null;
  }
}
