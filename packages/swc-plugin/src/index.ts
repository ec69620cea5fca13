/**
 * `@jsprof/swc-plugin`: jsprof's checks inserted through `@swc/core`'s parser and magic-string, for
 * builds that run SWC. SWC's own (Wasm) plugins cannot carry them here, so this runs on SWC's output,
 * after its transform (see `@jsprof/swc-plugin/loader` for webpack next to swc-loader).
 *
 *   const { code, map, stats } = instrument(code, { filename, threshold: 10, inputSourceMap });
 */
import { parseSync } from '@swc/core';
import { instrument as instrumentEstree, InstrumentResult, JsSyntaxError, TooDeeplyNestedError, inlineSourceMap, parseJs, withInlineSourceMap } from '@jsprof/estree-instrument';
import { LineIndex, type PlacementOptions } from '@jsprof/policy';
import { toEstree } from './estree';
import { NESTING_LIMIT, tooDeepAt } from './nesting';

export interface SwcInstrumentOptions extends Partial<PlacementOptions> {
  filename?: string;
  /** The map of `code` (SWC's own output map), chained onto the result's; by default the map inline in `code`, if any. */
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
  /** See @jsprof/estree-instrument's InstrumentResult. */
  protocol: number | null;
}

/**
 * What SWC's parser reads: the JavaScript that Node and current browsers run (ES2025, `using`
 * declarations, CommonJS's `return` at the top level), and class `accessor`s. Whether a file is a
 * module is decided by its content.
 */
const PARSER_OPTIONS = {
  syntax: 'ecmascript',
  isModule: 'unknown',
  target: 'esnext',
  explicitResourceManagement: true,
  autoAccessors: true,
  allowReturnOutsideFunction: true,
} as const;

export function instrument(code: string, options: SwcInstrumentOptions = {}): SwcInstrumentResult {
  const { filename, sourceMap, inputSourceMap: given, ...policy } = options;
  // Code carrying its map inline: that map is chained, and the comment is replaced by the chained
  // map, as the one there no longer matches the code.
  const inline = given === undefined ? inlineSourceMap(code) : null;
  const inputSourceMap = given ?? inline ?? undefined;
  const program = programOf(code, filename ?? '<input>');
  const result = instrumentEstree({ code, program, filename, inputSourceMap, sourceMap }, policy);
  const out = inline && result.changed && result.map ? withInlineSourceMap(result.code, result.map) : result.code;
  return { code: out, map: result.map, stats: result.stats, functions: result.functions, changed: result.changed, protocol: result.protocol };
}

/**
 * The ESTree program of `code`, from SWC's parser; where SWC refuses what acorn reads (SWC 1.16
 * knows no Unicode 17 identifier: test262), from acorn's, so that no file a browser runs is refused.
 * Where both refuse it, acorn's error says where (SWC's names the line its code frame starts at),
 * unless SWC read it and the conversion to ESTree refused it with its own reason.
 */
function programOf(code: string, filename: string): any {
  let refusal: unknown;
  try {
    return toEstree(parse(code, filename), code, filename);
  } catch (error) {
    if (!(error instanceof SyntaxError) || error instanceof TooDeeplyNestedError) throw error;
    // what SWC reads but the conversion refuses says where and why itself
    if (error instanceof JsSyntaxError) refusal = error;
  }
  try {
    return parseJs(code, filename);
  } catch (error) {
    throw refusal ?? error;
  }
}

/** SWC's AST of `code`; a SyntaxError where SWC refuses it, a TooDeeplyNestedError where it would crash (see nesting.ts). */
function parse(code: string, filename: string): any {
  const deep = tooDeepAt(code);
  if (deep >= 0) {
    const { line, column } = new LineIndex(code).position(deep);
    throw new TooDeeplyNestedError(filename, line, column, `code nests too deeply here for SWC's parser, which would crash (over ${NESTING_LIMIT} levels); jsprof leaves the file as it is`);
  }
  try {
    return parseSync(code, PARSER_OPTIONS as any);
  } catch {
    throw new SyntaxError(`${filename}: SWC's parser refused it`); // acorn's error, if it refuses it too, says where
  }
}

export { toEstree, JsSyntaxError };
