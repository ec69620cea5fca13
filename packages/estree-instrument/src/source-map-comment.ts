/**
 * A script's own source map, named by its trailing `sourceMappingURL` comment, and that comment
 * replaced: what `jsprof instrument`, the module hooks of `jsprof run` and the SWC front do so that
 * the map an instrumented file names leads back to its original sources (debuggers,
 * `--enable-source-maps`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

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
  const sources = map.sources.map((source: string | null) => {
    if (source == null || /^[a-z][\w+.-]*:/i.test(source) || path.isAbsolute(source)) return source;
    return path.relative(toDir, path.resolve(fromDir, source)).split(path.sep).join('/');
  });
  return { ...map, file, sources };
}

/** The map a `data:` URL holds (base64 or percent-encoded JSON); throws where it holds no JSON. */
function mapOfDataUrl(url: string): any {
  const comma = url.indexOf(',');
  const meta = url.slice(5, comma);
  const data = url.slice(comma + 1);
  return JSON.parse(meta.endsWith(';base64') ? Buffer.from(data, 'base64').toString('utf8') : decodeURIComponent(data));
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

/** The file's own source map (a data: URL or a file next to it), or null when it has none or it cannot be read. */
export function readSourceMap(code: string, file: string): { map: any; inline: boolean; dir: string } | null {
  const url = sourceMappingUrl(code);
  if (!url) return null;
  try {
    if (url.startsWith('data:')) return { map: mapOfDataUrl(url), inline: true, dir: path.dirname(file) };
    const mapFile = path.resolve(path.dirname(file), decodeURIComponent(url));
    return { map: JSON.parse(fs.readFileSync(mapFile, 'utf8')), inline: false, dir: path.dirname(mapFile) };
  } catch {
    return null;
  }
}

/** The code with its trailing sourceMappingURL comment replaced by one holding `map`. */
export function withInlineSourceMap(code: string, map: object): string {
  return `${splitSourceMappingUrl(code).body}//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}
