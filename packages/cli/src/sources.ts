/**
 * Names the frames of a trace as native Chromium would, in the coordinates of the original files:
 * a frame's position (V8's start of the enclosing function, in the code that ran) is mapped through
 * the module's source map to the original file, where the function whose head holds it gives the
 * name and start (`FunctionRecord`). Files that were not instrumented are parsed when first needed.
 */
import * as fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FunctionRecord, LineIndex, functionAt, functionByHead } from '@jsprof/policy';
import type { NamedFrame, RawFrame } from '@jsprof/runtime';
import { ModuleMeta, loadInstrumenter } from './instrument';
import type { TraceMap } from './instrumenter';
import { isOwnFile } from './filter';

interface Source {
  functions: FunctionRecord[];
  lines: LineIndex;
  map: TraceMap | null;
  /** Where a loader made the code that ran of the file (tsx): the map the code names, to the file. */
  loaderMap: TraceMap | null;
}

/** Where each loaded module's metadata is: in memory, or in the instrumentation cache. */
const registered = new Map<string, { meta?: ModuleMeta; metaFile?: string }>();
const loaded = new Map<string, Source | null>();

export function toUrl(location: string): string {
  return location.startsWith('/') || /^[A-Za-z]:[\\/]/.test(location) ? pathToFileURL(location).href : location;
}

export function registerModule(location: string, entry: { meta?: ModuleMeta | null; metaFile?: string | null }) {
  registered.set(toUrl(location), { meta: entry.meta ?? undefined, metaFile: entry.metaFile ?? undefined });
  loaded.delete(toUrl(location));
}

function load(url: string): Source | null {
  if (loaded.has(url)) return loaded.get(url)!;
  let source: Source | null = null;
  try {
    if (url.startsWith('file:')) {
      const file = fileURLToPath(url);
      const original = fs.readFileSync(file, 'utf8');
      const entry = registered.get(url);
      const meta: ModuleMeta | undefined = entry?.meta ?? (entry?.metaFile ? JSON.parse(fs.readFileSync(entry.metaFile, 'utf8')) : undefined);
      const { TraceMap, listFunctions, ownSourceMap } = loadInstrumenter();
      const loaderMap = meta?.loaded === undefined ? null : ownSourceMap(meta.loaded, file);
      source = {
        functions: meta ? meta.functions : listFunctions(original, file),
        lines: new LineIndex(meta?.loaded ?? original),
        map: meta?.map ? new TraceMap(meta.map) : null,
        loaderMap: loaderMap && new TraceMap(loaderMap),
      };
    }
  } catch {
    source = null;
  }
  loaded.set(url, source);
  return source;
}

function toOriginal(source: Source, line: number, column: number): number {
  if (!source.map) return source.lines.offset(line, column);
  const pos = loadInstrumenter().originalPositionFor(source.map, { line, column: column - 1 });
  if (pos.line == null || pos.column == null) return -1;
  return source.lines.offset(pos.line, pos.column + 1);
}

export function resolveFrame(frame: RawFrame): NamedFrame | null {
  if (frame.native) return { name: frame.name };
  if (!frame.url) return null; // eval and new Function code, left out as native Chromium does
  if (isOwnFile(frame.url)) return null;
  const url = toUrl(frame.url);
  const source = load(url);
  if (!source) return { name: frame.name, url, line: frame.line, column: frame.column };
  const start = toOriginal(source, frame.line, frame.column);
  let fn = start >= 0 ? functionByHead(source.functions, start) : undefined;
  // A file no hook loaded may not be the text that ran (a tool compiled it and ran that through
  // node:vm, as Jest does): a frame that starts no function in it keeps what V8 says.
  if (!fn && !registered.has(url)) return { name: frame.name, url, line: frame.line, column: frame.column };
  if (!fn && start >= 0 && !(frame.line === 1 && frame.column === 1 && frame.name === '')) fn = functionAt(source.functions, start);
  if (!fn) return { name: '', url, line: 1, column: 1 };
  const { line, column } = inFile(source, fn);
  return { name: fn.name, url, line, column, instrumented: fn.instrumented };
}

/**
 * Where a function starts in the file, where a loader made the code that ran of it. Its map may
 * place the function's name, not the parenthesis V8 starts it at: the text between is the same.
 */
function inFile(source: Source, fn: FunctionRecord): { line: number; column: number } {
  if (!source.loaderMap) return fn;
  const segment = loadInstrumenter().traceSegment(source.loaderMap, fn.line - 1, fn.column - 1);
  if (!segment || segment.length < 4) return fn;
  return { line: segment[2]! + 1, column: segment[3]! + (fn.column - 1 - segment[0]) + 1 };
}
