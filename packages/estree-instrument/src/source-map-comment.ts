/**
 * A script's own source map, named by its trailing `sourceMappingURL` comment, and that comment
 * replaced: what `jsprof instrument`, the module hooks of `jsprof run` and the SWC front do so that
 * the map an instrumented file names leads back to its original sources (debuggers,
 * `--enable-source-maps`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_MAPPING_URL = /(?:\/\/[#@][ \t]+sourceMappingURL=([^\s'"]+)[ \t]*|\/\*[#@][ \t]+sourceMappingURL=([^\s*'"]+)[ \t]*\*\/)[ \t]*$/;

/** Where the last line of `text` starts. */
function lastLineStart(text: string): number {
  return Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r')) + 1;
}

/** The code, ending in a line break, and its trailing sourceMappingURL comment (or ''). */
export function splitSourceMappingUrl(code: string): { body: string; comment: string } {
  const trimmed = code.trimEnd();
  const lineStart = lastLineStart(trimmed);
  const last = trimmed.slice(lineStart);
  if (SOURCE_MAPPING_URL.test(last)) return { body: trimmed.slice(0, lineStart), comment: last };
  return { body: /[\n\r]$/.test(code) ? code : `${code}\n`, comment: '' };
}

/**
 * The map as it will lie beside the output in `toDir`: relative sources that resolved from
 * `fromDir` (where the input's map was, or the input itself) resolve to the same files from there.
 * URLs and absolute paths stay as they are. (The chained map has its input's `sourceRoot` joined
 * into its sources.)
 */
export function relocateSources(map: any, fromDir: string, toDir: string, file: string): any {
  if (Array.isArray(map.sections)) {
    return { ...map, file, sections: map.sections.map((section: any) => (section.map ? { ...section, map: relocateSources(section.map, fromDir, toDir, file) } : section)) };
  }
  const sources = map.sources.map((source: string | null) => {
    if (source == null || /^[a-z][\w+.-]*:/i.test(source) || path.isAbsolute(source)) return source;
    return path.relative(toDir, path.resolve(fromDir, source)).split(path.sep).join('/');
  });
  return { ...map, file, sources };
}

/** The text a `data:` URL holds (base64 or percent-encoded). */
function dataOfDataUrl(url: string): string {
  const comma = url.indexOf(',');
  const meta = url.slice(5, comma);
  const data = url.slice(comma + 1);
  return meta.endsWith(';base64') ? Buffer.from(data, 'base64').toString('utf8') : decodeURIComponent(data);
}

/** The map a `data:` URL holds; throws where it holds no JSON. */
function mapOfDataUrl(url: string): any {
  return JSON.parse(dataOfDataUrl(url));
}

/** The URL the code's trailing sourceMappingURL comment names, or null. */
function sourceMappingUrl(code: string): string | null {
  const match = SOURCE_MAPPING_URL.exec(splitSourceMappingUrl(code).comment);
  return match ? (match[1] ?? match[2]) : null;
}

/** The map the code carries inline (a `data:` URL in its trailing comment), or null when it has none or it cannot be read. */
export function inlineSourceMap(code: string): any | null {
  const url = sourceMappingUrl(code);
  try {
    return url?.startsWith('data:') ? mapOfDataUrl(url) : null;
  } catch {
    return null;
  }
}

/** A script's own source map, and where its relative sources resolve from. */
export interface OwnSourceMap {
  map: any;
  inline: boolean;
  dir: string;
}

/** A source map a script's comment names that cannot be used: the URL as named, and why, in a few words. */
export interface UnusableSourceMap {
  url: string;
  inline: boolean;
  problem: string;
}

/**
 * The file's own source map (a data: URL, or a file: a path relative to the script, or a `file:`
 * URL), or what is wrong with the one it names; null when it names none.
 */
export function loadSourceMap(code: string, file: string): OwnSourceMap | UnusableSourceMap | null {
  const url = sourceMappingUrl(code);
  if (!url) return null;
  const read = (text: () => string, dir: string, inline: boolean): OwnSourceMap | UnusableSourceMap => {
    let map: any;
    try {
      map = JSON.parse(text());
    } catch (error) {
      return { url, inline, problem: error instanceof SyntaxError ? 'it is not JSON' : describeReadError(error) };
    }
    return isSourceMap(map) ? { map, inline, dir } : { url, inline, problem: 'it is not a source map' };
  };
  if (url.startsWith('data:')) return read(() => dataOfDataUrl(url), path.dirname(file), true);
  if (/^[a-z][\w+.-]*:/i.test(url) && !url.startsWith('file:')) return { url, inline: false, problem: 'it is not a local file' };
  let mapFile: string;
  try {
    mapFile = url.startsWith('file:') ? fileURLToPath(url) : path.resolve(path.dirname(file), decodeURIComponent(url));
  } catch {
    return { url, inline: false, problem: 'it is not a path' };
  }
  return read(() => fs.readFileSync(mapFile, 'utf8'), path.dirname(mapFile), false);
}

/** The file's own source map (a data: URL or a file next to it), or null when it has none or it cannot be read. */
export function readSourceMap(code: string, file: string): OwnSourceMap | null {
  const found = loadSourceMap(code, file);
  return found && 'map' in found ? found : null;
}

/** A plain source map (version 3, its sources and mappings) or an index map (its sections). */
function isSourceMap(map: any): boolean {
  if (typeof map !== 'object' || map === null) return false;
  return Array.isArray(map.sections) || (Array.isArray(map.sources) && typeof map.mappings === 'string');
}

function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return (error as Error)?.message ?? String(error);
}

/** The code with its trailing sourceMappingURL comment replaced by one holding `map`. */
export function withInlineSourceMap(code: string, map: object): string {
  return `${splitSourceMappingUrl(code).body}//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}
