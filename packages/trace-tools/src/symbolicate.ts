/**
 * Maps a trace's frames to the original sources through source maps (the chained maps that
 * `jsprof instrument` and the bundler plugins write): each frame's position, in the code that ran,
 * is mapped to the original file, where the function whose head holds it gives the name and start
 * as native Chromium would report them in that file. A position inside a body (the call sites that
 * SpiderMonkey's and JavaScriptCore's stacks give) falls back to the innermost function holding it.
 * Frames that become the same function, and stacks that become the same, are merged.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AnyMap, LEAST_UPPER_BOUND, TraceMap, originalPositionFor, sourceContentFor } from '@jridgewell/trace-mapping';
import { FunctionRecord, LIST_ONLY_OPTIONS, LineIndex, functionAt, functionByHead } from '@jsprof/policy';
import type { ParserPlugin } from '@babel/parser';
import { Node, instrument, parseJs } from '@jsprof/estree-instrument';
import type { ProfilerFrame, ProfilerTrace } from '@jsprof/runtime';
import { DEFAULT_MAX_BYTES } from './read';

export interface SymbolicateStats {
  /** Frames with a position. */
  frames: number;
  /** Of those, frames mapped to an original source. */
  mapped: number;
  /** Scripts (http, https and file URLs) for which no source map was found. */
  withoutMap: string[];
  /** Source maps that could not be read, with the reason. */
  badMaps: string[];
  /** Scripts that several different maps fit equally well, the first used: `<url>: <file>, <file>…`. */
  ambiguousMaps: string[];
}

interface OriginalSource {
  lines: LineIndex;
  /** Null when the source is not available or is not JavaScript that acorn parses (TypeScript…). */
  functions: FunctionRecord[] | null;
}

/** A script as it ran: its functions by the start V8 records. */
interface RanScript {
  lines: LineIndex;
  byStart: Map<string, FunctionRecord>;
}

const SKIPPED_DIRS = new Set(['node_modules', '.git']);

function walk(dir: string, found: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) walk(full, found);
    else if (entry.isFile() && /\.(map|[cm]?js)$/.test(entry.name)) found.push(full);
  }
  return found;
}

function urlPath(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url.split(/[?#]/)[0];
  }
}

/**
 * Whether `file` is a file to read, a map or a source that a map names: a regular file within the
 * read limit (a map naming /dev/zero or a pipe would never end).
 */
function isReadableFile(file: string): boolean {
  try {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    return !!stat?.isFile() && stat.size <= DEFAULT_MAX_BYTES;
  } catch {
    return false; // a name too long, a directory that may not be read, a loop of links
  }
}

/** How many trailing path segments two paths share. */
function sharedSuffix(a: string, b: string): number {
  const x = a.split(/[\\/]/).reverse();
  const y = b.split(/[\\/]/).reverse();
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n++;
  return n;
}

/** The source maps in a directory, found for a script URL by file name (`app.js.map`, or `app.js`'s `sourceMappingURL`). */
export class SourceMaps {
  private readonly files: string[];
  private readonly maps = new Map<string, TraceMap | null>();
  private readonly sources = new Map<string, OriginalSource>();
  private readonly scripts = new Map<string, RanScript | null>();
  readonly badMaps: string[] = [];
  readonly ambiguousMaps: string[] = [];

  constructor(dir: string) {
    if (!fs.existsSync(dir)) throw new Error(`${dir}: no such directory`);
    if (!fs.statSync(dir).isDirectory()) throw new Error(`${dir}: not a directory`);
    this.files = walk(dir);
  }

  /** The map of the script at `url`, or null. */
  mapFor(url: string): TraceMap | null {
    if (!this.maps.has(url)) this.maps.set(url, this.findMap(url));
    return this.maps.get(url)!;
  }

  /**
   * The directory's files for the script at `url`, its map (`<name>.map`) or itself, best `fit`
   * first: those whose path shares most with the URL's, maps before scripts.
   */
  private filesFor(url: string, withMaps: boolean): { file: string; fit: number }[] {
    const scriptPath = urlPath(url);
    const name = path.basename(scriptPath);
    if (!name) return [];
    return this.files
      .filter((f) => (withMaps && path.basename(f) === `${name}.map`) || path.basename(f) === name)
      .map((file) => ({ file, fit: 2 * sharedSuffix(file.replace(/\.map$/, ''), scriptPath) + Number(file.endsWith('.map')) }))
      .sort((a, b) => b.fit - a.fit);
  }

  private findMap(url: string): TraceMap | null {
    const candidates = this.filesFor(url, true);
    this.noteAmbiguity(url, candidates.filter((c) => c.fit === candidates[0].fit).map((c) => c.file));
    for (const { file } of candidates) {
      const map = file.endsWith('.map') ? this.readMap(file) : this.mapOfScript(file);
      if (map) return map;
    }
    return null;
  }

  /** Files that fit a script equally well (its name in several releases' builds): when they differ, the first is used, and it is said. */
  private noteAmbiguity(url: string, files: string[]): void {
    if (files.length < 2) return;
    const bytes = (file: string) => {
      try {
        return fs.readFileSync(file);
      } catch {
        return null;
      }
    };
    const first = bytes(files[0]);
    const others = files.slice(1).filter((file) => !first || !bytes(file)?.equals(first));
    if (others.length) this.ambiguousMaps.push(`${url}: ${[files[0], ...others].join(', ')}`);
  }

  private readMap(file: string, text?: string): TraceMap | null {
    try {
      return AnyMap(JSON.parse(text ?? fs.readFileSync(file, 'utf8')), pathToFileURL(file).href);
    } catch (error) {
      this.badMaps.push(`${file}: ${(error as Error).message}`);
      return null;
    }
  }

  /** The map a script names in its last `sourceMappingURL` comment: a file beside it, or inline. */
  private mapOfScript(file: string): TraceMap | null {
    const code = fs.readFileSync(file, 'utf8');
    const found = /[#@] sourceMappingURL=(\S+)\s*(?:\*\/\s*)?$/.exec(code.slice(-4096)) ?? /\n\/\/[#@] sourceMappingURL=(\S+)/.exec(code);
    if (!found) return null;
    const ref = found[1];
    const inline = /^data:application\/json;(?:charset=utf-8;)?base64,(.*)$/.exec(ref);
    if (inline) return this.readMap(file, Buffer.from(inline[1], 'base64').toString('utf8'));
    const mapFile = path.resolve(path.dirname(file), decodeURIComponent(ref.split(/[?#]/)[0]));
    return isReadableFile(mapFile) ? this.readMap(mapFile) : null;
  }

  /**
   * Where the body starts of the function of the script at `url`, as it ran (found in the directory
   * as its map is), whose start V8 records at `line`:`column`; undefined if there is none.
   */
  bodyOfFunctionAt(url: string, line: number, column: number): { line: number; column: number } | undefined {
    if (!this.scripts.has(url)) this.scripts.set(url, this.readScript(url));
    const script = this.scripts.get(url);
    const fn = script?.byStart.get(`${line}:${column}`);
    return fn && script!.lines.position(fn.bodyStart);
  }

  private readScript(url: string): RanScript | null {
    const file = this.filesFor(url, false)[0]?.file;
    if (!file) return null;
    try {
      const code = fs.readFileSync(file, 'utf8');
      return { lines: new LineIndex(code), byStart: new Map((listFunctions(code, file) ?? []).map((fn) => [`${fn.line}:${fn.column}`, fn])) };
    } catch {
      return null;
    }
  }

  /** An original source's lines and functions (from the map's `sourcesContent`, or the file). */
  original(map: TraceMap, source: string): OriginalSource {
    const cached = this.sources.get(source);
    if (cached) return cached;
    let text = sourceContentFor(map, source);
    if (text == null && source.startsWith('file:')) {
      try {
        const file = fileURLToPath(source);
        text = isReadableFile(file) ? fs.readFileSync(file, 'utf8') : null;
      } catch {
        text = null;
      }
    }
    const entry: OriginalSource = { lines: new LineIndex(text ?? ''), functions: text == null ? null : listFunctions(text, source) };
    this.sources.set(source, entry);
    return entry;
  }
}

/**
 * The functions of an original source: JavaScript as acorn reads it, else TypeScript or JSX (what a
 * map's sources of a vite or webpack app often are) as Babel's parser reads it, as ESTree.
 */
function listFunctions(code: string, file: string): FunctionRecord[] | null {
  const list = (program: Node) => instrument({ code, program, filename: file, sourceMap: false }, LIST_ONLY_OPTIONS).functions;
  try {
    return list(parseJs(code, file));
  } catch {
    // not JavaScript that acorn reads
  }
  const bare = file.replace(/[?#].*$/, '');
  const plugins: ParserPlugin[] = /\.[cm]?ts$/i.test(bare) ? ['typescript'] : /\.tsx$/i.test(bare) ? ['typescript', 'jsx'] : ['jsx'];
  try {
    // Loaded only here: most sources are JavaScript.
    const { parse }: typeof import('@babel/parser') = require('@babel/parser');
    return list(withoutBodilessMethods(parse(code, { sourceType: 'unambiguous', plugins: [...plugins, 'estree'] }).program as unknown as Node));
  } catch {
    return null;
  }
}

/** The program without TypeScript's methods that have no body (overloads, abstract methods, `declare class`): no function runs there. */
function withoutBodilessMethods(program: Node): Node {
  const pending: any[] = [program];
  while (pending.length) {
    const node = pending.pop();
    if (node?.type === 'ClassBody') node.body = node.body.filter((member: any) => !(member.value?.type === 'FunctionExpression' && member.value.body == null));
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (Array.isArray(child)) for (const c of child) c && typeof c.type === 'string' && pending.push(c);
      else if (child && typeof child.type === 'string') pending.push(child);
    }
  }
  return program;
}

type Position = ReturnType<typeof originalPositionFor>;

/** The original functions at a mapped position: the one whose head holds it, the innermost one holding it, and whether the source's functions are known. */
function originalFunctions(maps: SourceMaps, map: TraceMap, pos: Position): { byHead?: FunctionRecord; holding?: FunctionRecord; known: boolean } {
  if (pos.source == null || pos.line == null || pos.column == null) return { known: false };
  const { lines, functions } = maps.original(map, pos.source);
  const offset = lines.offset(pos.line, pos.column + 1);
  if (!functions || offset < 0) return { known: !!functions };
  return { byHead: functionByHead(functions, offset), holding: functionAt(functions, offset), known: true };
}

/**
 * A frame as the original source names and places it, or null when it cannot be mapped. Its
 * position maps to the head of an original function, or (a call site, as Firefox and Safari give)
 * into a body, where the innermost function holding it is the frame's. Chromium's frames are
 * function starts: where the script that ran has a function starting at the frame whose start maps
 * to no function's head (a minifier that inlined `const onCrunch = async () => {…}` into
 * `{ onClick: onCrunch }` mapped the arrow's start to the name `onCrunch`, in the function around
 * it), the first token of its body with a mapping says which original function it is.
 */
function symbolicateFrame(maps: SourceMaps, map: TraceMap, url: string, frame: ProfilerFrame): { name: string; url: string; line: number; column: number } | null {
  const pos = originalPositionFor(map, { line: frame.line!, column: Math.max(0, frame.column! - 1) });
  if (pos.source == null || pos.line == null || pos.column == null) return null;
  const at = originalFunctions(maps, map, pos);
  if (!at.byHead) {
    const body = maps.bodyOfFunctionAt(url, frame.line!, frame.column!);
    const first = body && originalPositionFor(map, { line: body.line, column: body.column - 1, bias: LEAST_UPPER_BOUND });
    const inBody = first && originalFunctions(maps, map, first).holding;
    if (inBody) return { name: inBody.name, url: first.source!, line: inBody.line, column: inBody.column };
  }
  const fn = at.byHead ?? at.holding;
  if (fn) return { name: fn.name, url: pos.source, line: fn.line, column: fn.column };
  return { name: at.known ? frame.name : (pos.name ?? frame.name), url: pos.source, line: pos.line, column: pos.column + 1 };
}

/** The trace with its frames in original sources; resources, frames and stacks deduplicated again, parents first. */
export function symbolicate(trace: ProfilerTrace, maps: SourceMaps): { trace: ProfilerTrace; stats: SymbolicateStats } {
  const stats: SymbolicateStats = { frames: 0, mapped: 0, withoutMap: [], badMaps: maps.badMaps, ambiguousMaps: maps.ambiguousMaps };
  const resources: string[] = [];
  const resourceIds = new Map<string, number>();
  const frames: ProfilerFrame[] = [];
  const frameIds = new Map<string, number>();
  const internFrame = (name: string, url?: string, line?: number, column?: number): number => {
    let resourceId: number | undefined;
    if (url !== undefined) {
      resourceId = resourceIds.get(url);
      if (resourceId === undefined) resourceIds.set(url, (resourceId = resources.push(url) - 1));
    }
    const key = JSON.stringify([name, resourceId, line, column]);
    let id = frameIds.get(key);
    if (id === undefined) {
      const frame: ProfilerFrame = { name };
      if (resourceId !== undefined) frame.resourceId = resourceId;
      if (line !== undefined) frame.line = line;
      if (column !== undefined) frame.column = column;
      frameIds.set(key, (id = frames.push(frame) - 1));
    }
    return id;
  };

  const withoutMap = new Set<string>();
  const newFrameId = trace.frames.map((frame) => {
    const url = frame.resourceId === undefined ? undefined : trace.resources[frame.resourceId];
    if (url === undefined || frame.line === undefined || frame.column === undefined) return internFrame(frame.name, url, frame.line, frame.column);
    stats.frames++;
    const map = maps.mapFor(url);
    const mapped = map && symbolicateFrame(maps, map, url, frame);
    if (!map && /^(https?|file):/.test(url)) withoutMap.add(url);
    if (!mapped) return internFrame(frame.name, url, frame.line, frame.column);
    stats.mapped++;
    return internFrame(mapped.name, mapped.url, mapped.line, mapped.column);
  });
  stats.withoutMap = [...withoutMap];

  const stacks: ProfilerTrace['stacks'] = [];
  const stackIds = new Map<string, number>();
  const newStackId: number[] = [];
  for (const stack of trace.stacks) {
    const parentId = stack.parentId === undefined ? undefined : newStackId[stack.parentId];
    const frameId = newFrameId[stack.frameId];
    const key = `${parentId ?? ''}:${frameId}`;
    let id = stackIds.get(key);
    if (id === undefined) stackIds.set(key, (id = stacks.push(parentId === undefined ? { frameId } : { parentId, frameId }) - 1));
    newStackId.push(id);
  }
  const samples = trace.samples.map((s) => (s.stackId === undefined ? { timestamp: s.timestamp } : { timestamp: s.timestamp, stackId: newStackId[s.stackId] }));
  return { trace: { resources, frames, stacks, samples }, stats };
}
