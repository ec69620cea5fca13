/**
 * `@jsprof/swc-plugin`: jsprof's checks inserted through `@swc/core`'s parser and magic-string, for
 * builds that run SWC. SWC's own (Wasm) plugins cannot carry them here, so this runs on SWC's output,
 * after its transform (see `@jsprof/swc-plugin/loader` for webpack next to swc-loader).
 *
 *   const { code, map, stats } = instrument(code, { filename, threshold: 10, inputSourceMap });
 */
import { parseSync } from '@swc/core';
import { instrument as instrumentEstree, InstrumentResult } from '@jsprof/estree-instrument';
import type { PlacementOptions } from '@jsprof/policy';
import { toEstree } from './estree';

export interface SwcInstrumentOptions extends Partial<PlacementOptions> {
  filename?: string;
  /** The map of `code` (SWC's own output map), chained onto the result's. */
  inputSourceMap?: any;
  /** Whether to make a source map (default true). */
  sourceMap?: boolean;
  runtime?: 'global' | 'import';
  importSource?: string;
  include?: (string | RegExp)[];
  exclude?: (string | RegExp)[];
}

export interface SwcInstrumentResult {
  code: string;
  map: any | null;
  stats: InstrumentResult['stats'];
  functions: InstrumentResult['functions'];
  changed: boolean;
}

export function instrument(code: string, options: SwcInstrumentOptions = {}): SwcInstrumentResult {
  const { filename, inputSourceMap, sourceMap, ...policy } = options;
  let parsed;
  try {
    parsed = parseSync(code, { syntax: 'ecmascript', jsx: false, isModule: 'unknown' as any, target: 'esnext' } as any);
  } catch (error) {
    throw syntaxError(error, filename);
  }
  const program = toEstree(parsed as any, code);
  const result = instrumentEstree({ code, program, filename, inputSourceMap, sourceMap }, policy);
  return { code: result.code, map: result.map, stats: result.stats, functions: result.functions, changed: result.changed };
}

/** SWC's report (a code frame, then a native backtrace) as one line: `file:line:col: message`. */
function syntaxError(error: unknown, filename = '<input>'): SyntaxError {
  const text = String((error as Error)?.message ?? error);
  const message = /^\s*x\s+(.+)$/m.exec(text)?.[1]?.trim() ?? text.split('\n')[0];
  const at = /,-\[(\d+):(\d+)\]/.exec(text);
  return new SyntaxError(`${filename}${at ? `:${at[1]}:${at[2]}` : ''}: ${message}`);
}

export { toEstree };
