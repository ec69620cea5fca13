/** Aggregating trace files: found under directories, read one at a time, bad ones counted and skipped. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ReadLimits, readTraceFile } from '../read';
import { TraceDocument, TraceError } from '../validate';
import { AggregateOptions, AggregateResult, Aggregator } from './aggregator';

/** The names of trace files looked for in directories: plain JSON or gzip. */
export const TRACE_FILE = /\.(json|gz)$/i;

/**
 * The names `jsprof symbolicate` and `jsprof convert --to speedscope` give what they write beside a
 * trace: in a directory, a page load that counts already, or no trace at all.
 */
export const DERIVED_FILE = /\.(symbolicated|speedscope)\.json$/i;

/**
 * The files named, and every .json, .json.gz and .gz file under the directories named (searched
 * recursively, in name order; symbolic links are not followed), but those named as `DERIVED_FILE`.
 * A file is listed once. A directory inside them that cannot be read is passed to `onUnreadable`
 * and skipped.
 */
export function findTraceFiles(paths: string[], onUnreadable: (dir: string, error: Error) => void = () => {}): string[] {
  const files: string[] = [];
  const seen = new Set<string>();
  const add = (file: string) => {
    const full = path.resolve(file);
    if (!seen.has(full)) files.push(file);
    seen.add(full);
  };
  const walk = (dir: string, given: boolean) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    } catch (error) {
      if (given) throw error;
      onUnreadable(dir, error as Error);
      return;
    }
    for (const entry of entries) {
      const child = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(child, false);
      else if (entry.isFile() && TRACE_FILE.test(entry.name) && !DERIVED_FILE.test(entry.name)) add(child);
    }
  };
  for (const given of paths) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(given);
    } catch {
      throw new Error(`no such file or directory: ${given}`);
    }
    if (stat.isDirectory()) walk(given, true);
    else add(given);
  }
  return files;
}

export interface AggregateFilesOptions extends AggregateOptions {
  limits?: ReadLimits;
  /** Called after each file, read or rejected. */
  onFile?: (done: number, total: number, file: string) => void;
  /** Called with a rejected file's problem, one line that names the file. */
  onRejected?: (message: string) => void;
  /** Applied to each document before it is merged (symbolicating it, say). */
  transform?: (document: TraceDocument) => TraceDocument;
}

/** Reads the files one at a time with `readTraceFile` and merges them; a file that fails is counted as rejected. */
export function aggregateFiles(files: string[], options: AggregateFilesOptions = {}): AggregateResult {
  const aggregator = new Aggregator(options);
  files.forEach((file, i) => {
    const document = readOrReport(file, options);
    if (document) aggregator.add(options.transform ? options.transform(document) : document);
    else aggregator.reject();
    options.onFile?.(i + 1, files.length, file);
  });
  return aggregator.result();
}

/** `readTraceFile`, or null for a file that fails, its problem given to `onRejected` in one line that names it. */
export function readOrReport(file: string, options: Pick<AggregateFilesOptions, 'limits' | 'onRejected'>): TraceDocument | null {
  try {
    return readTraceFile(file, options.limits);
  } catch (error) {
    options.onRejected?.(error instanceof TraceError ? error.message : `${file}: ${(error as Error).message}`);
    return null;
  }
}
