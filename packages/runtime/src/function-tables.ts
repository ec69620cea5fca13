/**
 * Function tables: `<script>.jsprof.json`, written beside a script by `jsprof instrument` and the
 * bundler plugins, lists where each of its functions starts, where its body starts and where it
 * ends, where V8 places it and its name. With it the runtime names and places frames the same way in
 * every engine: V8's call sites give a position in the function's head (the `function` keyword),
 * SpiderMonkey's and JavaScriptCore's stacks the position of a call inside its body; either way the
 * frame becomes the function, at the start native Chromium reports. Tables are fetched when a
 * profiler stops, for the scripts its frames are in that said they have one (each pushes a function
 * of its own, which makes an Error there when called, to `globalThis.__jsprof$t`); without one, a
 * frame keeps its position.
 */
import { RawFrame, scriptOf } from './capture';
import { TABLE_REGISTRY_GLOBAL } from './names';
import type { FrameResolver } from './trace';
import { OwnMap, OwnSet, cancelTimeout, startTimeout } from './builtins';

/**
 * [name, start line, start column, body line, body column, end line, end column, V8 line, V8 column,
 * checks (1 when the function carries checks; tables written before say nothing)]; 1-based, sorted by start.
 */
export type TableEntry = [string, number, number, number, number, number, number, number, number, (0 | 1)?];

export const FUNCTION_TABLE_SUFFIX = '.jsprof.json';
const FETCH_TIMEOUT_MS = 3000;

const tables = new OwnMap<string, TableEntry[] | null>();

/** Where the table of the script at `url` is, if it can have one. */
export function functionTableUrl(url: string): string | null {
  return /^https?:/.test(url) ? url.replace(/[?#].*$/, '') + FUNCTION_TABLE_SUFFIX : null;
}

function asTable(value: any): TableEntry[] | null {
  const entries = value?.version === 1 && Array.isArray(value.functions) ? value.functions : null;
  const valid = (e: any) => Array.isArray(e) && (e.length === 9 || e.length === 10) && typeof e[0] === 'string' && e.slice(1).every((n: unknown) => typeof n === 'number');
  return entries && entries.every(valid) ? entries : null;
}

const withTables = new OwnSet<string>();

/** The scripts that said they have a table since last asked (see @jsprof/estree-instrument's TABLE_REGISTRATION). */
function readRegistrations(): void {
  const registry = (globalThis as any)[TABLE_REGISTRY_GLOBAL];
  if (!Array.isArray(registry)) return;
  for (let i = 0; i < registry.length; i++) {
    const url = scriptOf(registry[i]);
    if (url) withTables.add(url);
  }
  try {
    registry.length = 0;
  } catch {
    // a frozen array is read again next time
  }
}

/** Fetches the tables of these scripts that have one and are not loaded yet; gives up on any after a few seconds. */
export async function loadFunctionTables(urls: Iterable<string>): Promise<void> {
  readRegistrations();
  const wanted = [...new OwnSet(urls)].filter((url) => !tables.has(url) && withTables.has(url) && functionTableUrl(url));
  if (wanted.length === 0 || typeof fetch !== 'function') return;
  const abort = typeof AbortController === 'function' ? new AbortController() : undefined;
  const timer = startTimeout(() => abort?.abort(), FETCH_TIMEOUT_MS);
  await Promise.all(
    wanted.map(async (url) => {
      let table: TableEntry[] | null = null;
      try {
        const response = await fetch(functionTableUrl(url)!, { signal: abort?.signal, credentials: 'same-origin' });
        if (response.ok) table = asTable(await response.json());
      } catch {
        // no table: the frames of this script keep their positions
      }
      tables.set(url, table);
    }),
  );
  cancelTimeout(timer);
}

function before(line: number, column: number, entryLine: number, entryColumn: number): boolean {
  return line < entryLine || (line === entryLine && column < entryColumn);
}

/**
 * The function whose head holds the frame's position (V8 gives a function's start), or else the
 * innermost one holding it (other engines give the position of the call inside the function).
 */
export function functionOf(table: TableEntry[], frame: Pick<RawFrame, 'line' | 'column'>): TableEntry | undefined {
  let head: TableEntry | undefined;
  let innermost: TableEntry | undefined;
  for (const e of table) {
    if (before(frame.line, frame.column, e[1], e[2])) break;
    if (before(frame.line, frame.column, e[3], e[4])) head = e;
    if (before(frame.line, frame.column, e[5], e[6])) innermost = e;
  }
  return head ?? innermost;
}

/** Names and places frames of scripts with a loaded table as their functions; others go to `next`. */
export function functionTableResolver(next: FrameResolver): FrameResolver {
  return (frame) => {
    const named = next(frame);
    const table = frame.url ? tables.get(frame.url) : undefined;
    const fn = named && table && functionOf(table, frame);
    if (!fn) return named;
    const checks = fn.length === 10 ? { instrumented: fn[9] === 1 } : {};
    return { ...named, name: fn[0], line: fn[7], column: fn[8], ...checks };
  };
}
