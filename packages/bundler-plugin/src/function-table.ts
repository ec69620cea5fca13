/** The function table written beside each script a build outputs (see @jsprof/runtime's function-tables.ts). */
import { FUNCTION_TABLE_SUFFIX, functionTable, parseJs } from '@jsprof/estree-instrument';

export const SCRIPT_OUTPUT = /\.[cm]?js$/;

/** `[file name, JSON]` of the table for a script the build wrote, or null when it does not parse as JavaScript. */
export function functionTableFor(fileName: string, code: string): [string, string] | null {
  try {
    return [fileName + FUNCTION_TABLE_SUFFIX, JSON.stringify(functionTable(code, parseJs(code, fileName)))];
  } catch {
    return null;
  }
}
