/**
 * Everything jsprof runs inside a profiled program to instrument its modules and name their frames:
 * `@jsprof/estree-instrument` (acorn, magic-string) and `@jridgewell/trace-mapping`.
 *
 * The build bundles this file with all of them into `dist/instrumenter.bundle.js`
 * (build-instrumenter.js), a file that requires no package, and that bundle is what the module hooks
 * load (`loadInstrumenter`, instrument.ts). So nothing jsprof does inside a program uses the
 * program's own copy of a tool, or one the program has half loaded: a project's hoisted acorn,
 * Babel or browserslist are the project's alone. Never require this file (its tsc output) directly.
 */
import * as path from 'node:path';
import { JsSyntaxError, TooDeeplyNestedError, chainSourceMaps, instrument, parseJs, readSourceMap, relocateSources, withInlineSourceMap } from '@jsprof/estree-instrument';
import { FunctionRecord, LIST_ONLY_OPTIONS, PlacementOptions } from '@jsprof/policy';

export { TraceMap, originalPositionFor, traceSegment } from '@jridgewell/trace-mapping';

/** How Node loads a file: as an ES module, or as CommonJS (a script in a function). */
export type ModuleFormat = 'module' | 'commonjs';

export interface InstrumentedSource {
  /**
   * The instrumented code; every line of the source stays on its line. Where the source names its
   * own source map, the code names one (inline) from itself to the original sources, for the
   * program's debugger and `--enable-source-maps`.
   */
  code: string;
  /** Every function of the source, in its coordinates. */
  functions: FunctionRecord[];
  /** Source map from `code` back to the source (without the source's text), or null if unchanged. */
  map: any | null;
}

/**
 * Instruments a module's source; null if it does not parse as `format` (it then runs as it is, and
 * Node reports its error). Throws where jsprof refuses the file (`TooDeeplyNestedError`) or fails.
 */
export function instrumentSource(code: string, filename: string, format: ModuleFormat, options: Partial<PlacementOptions>): InstrumentedSource | null {
  let program;
  try {
    program = parseJs(code, filename, format === 'module' ? 'module' : 'script');
  } catch (error) {
    if (error instanceof JsSyntaxError && !(error instanceof TooDeeplyNestedError)) return null;
    throw error;
  }
  const result = instrument({ code, program, filename, sourceMap: true }, options);
  const map = result.map && { ...result.map, sourcesContent: undefined };
  return { code: withOwnSourceMap(result.code, result.map, code, filename), functions: result.functions, map };
}

/**
 * The instrumented code naming, inline, a map from itself to the sources the file's own map names
 * (without their text where that map is a file: the sources are beside it). As it was where the file
 * names no map, or one that cannot be read or used (the file is then still instrumented).
 */
function withOwnSourceMap(out: string, map: any | null, code: string, filename: string): string {
  const own = map && readSourceMap(code, filename);
  if (!own) return out;
  try {
    const chained = relocateSources(chainSourceMaps(map, own.map), own.dir, path.dirname(filename), path.basename(filename));
    return withInlineSourceMap(out, own.inline ? chained : { ...chained, sourcesContent: undefined });
  } catch {
    return out;
  }
}

/** The source map a file's code names, or null (none, or one that cannot be read). */
export function ownSourceMap(code: string, filename: string): any | null {
  return readSourceMap(code, filename)?.map ?? null;
}

/** Lists the functions of a file that was not instrumented. */
export function listFunctions(code: string, filename: string): FunctionRecord[] {
  return instrument({ code, program: parseJs(code, filename), filename, sourceMap: false }, LIST_ONLY_OPTIONS).functions;
}
