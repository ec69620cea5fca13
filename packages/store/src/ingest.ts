/**
 * Loading traces into a store: each document identified (symbolicated with its release's source
 * maps), turned into rows, and written in batches; traces already stored are skipped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ReadLimits, SourceMaps, TraceDocument, readOrReport } from '@jsprof/trace-tools';
import { Identities, ReleaseMaps } from './identity';
import { RawTrace, TraceRows, documentOfRaw, traceRows } from './rows';
import type { Store } from './store';

export interface MapsOptions {
  /** Source maps for every trace. */
  sourceMaps?: string;
  /** Source maps per release: those of release R in `<releaseMaps>/<R>/`. */
  releaseMaps?: string;
}

export interface IngestSummary {
  /** Traces written. */
  ingested: number;
  /** Traces found already stored (or twice in the input), not written again. */
  duplicates: number;
  /** Files that could not be read or are not valid traces. */
  rejected: number;
  /** Frames with a position, and of those, frames mapped to an original source. */
  frames: number;
  mapped: number;
  /** Releases named by traces for which `releaseMaps` has no directory. */
  releasesWithoutMaps: string[];
}

export const DEFAULT_BATCH = 500;

/** Turns documents into rows and writes them to the store in batches. */
export class Ingester {
  private readonly identities = new Identities();
  private readonly releaseMaps = new Map<string, ReleaseMaps | null>();
  private readonly shared: ReleaseMaps | null;
  private batch: TraceRows[] = [];
  readonly summary: IngestSummary = { ingested: 0, duplicates: 0, rejected: 0, frames: 0, mapped: 0, releasesWithoutMaps: [] };

  constructor(
    private readonly store: Store,
    private readonly maps: MapsOptions = {},
    private readonly batchSize = DEFAULT_BATCH,
    private readonly now = new Date(),
  ) {
    this.shared = maps.sourceMaps ? { maps: new SourceMaps(maps.sourceMaps), dir: path.resolve(maps.sourceMaps) } : null;
    if (maps.releaseMaps && !fs.statSync(maps.releaseMaps, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${maps.releaseMaps}: not a directory`);
  }

  /** Adds one trace; writes a batch when it is full. */
  async add(document: TraceDocument): Promise<void> {
    this.batch.push(this.rowsOf(document));
    if (this.batch.length >= this.batchSize) await this.flush();
  }

  /** One trace identified and turned into rows, not yet written (what `add` batches). */
  rowsOf(document: TraceDocument): TraceRows {
    const identified = this.identities.identify(document.trace, this.mapsFor(document));
    if (identified.stats) {
      this.summary.frames += identified.stats.frames;
      this.summary.mapped += identified.stats.mapped;
    }
    return traceRows(document, identified, this.now);
  }

  reject(): void {
    this.summary.rejected++;
  }

  /** Writes what is buffered. */
  async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    await this.write(batch);
  }

  /**
   * Writes these rows (from `rowsOf`), skipping traces already stored; counted in the summary only
   * once written, so rows whose write failed can be written again.
   */
  async write(batch: TraceRows[]): Promise<void> {
    if (batch.length === 0) return;
    const stored = await this.store.storedTraces(batch.map((rows) => rows.trace.traceId));
    const fresh = batch.filter((rows) => {
      if (stored.has(rows.trace.traceId)) return false;
      stored.add(rows.trace.traceId);
      return true;
    });
    await this.store.write(fresh);
    this.summary.duplicates += batch.length - fresh.length;
    this.summary.ingested += fresh.length;
  }

  private mapsFor(document: TraceDocument): ReleaseMaps | null {
    if (this.shared || !this.maps.releaseMaps) return this.shared;
    const release = document.meta.release;
    if (release === undefined) return null;
    const name = String(release);
    if (!this.releaseMaps.has(name)) this.releaseMaps.set(name, this.openReleaseMaps(name));
    return this.releaseMaps.get(name)!;
  }

  private openReleaseMaps(release: string): ReleaseMaps | null {
    // A release name is a stranger's text: it must name a directory inside releaseMaps, nothing else.
    const dir = path.resolve(this.maps.releaseMaps!, release);
    const inside = path.dirname(dir) === path.resolve(this.maps.releaseMaps!) && release !== '.' && release !== '..';
    if (!inside || !fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
      this.summary.releasesWithoutMaps.push(release);
      return null;
    }
    return { maps: new SourceMaps(dir), dir };
  }
}

export interface IngestFilesOptions extends MapsOptions {
  limits?: ReadLimits;
  batchSize?: number;
  /** The day given to traces without `receivedAt`; default today. */
  now?: Date;
  /** Called after each file, read or rejected. */
  onFile?: (done: number, total: number) => void;
  /** Called with a rejected file's problem, one line that names the file. */
  onRejected?: (message: string) => void;
}

/** Reads the files one at a time and writes their traces to the store. */
export async function ingestFiles(store: Store, files: string[], options: IngestFilesOptions = {}): Promise<IngestSummary> {
  const ingester = new Ingester(store, options, options.batchSize, options.now);
  for (let i = 0; i < files.length; i++) {
    const document = readOrReport(files[i], options);
    if (document) await ingester.add(document);
    else ingester.reject();
    options.onFile?.(i + 1, files.length);
  }
  await ingester.flush();
  return ingester.summary;
}

/**
 * Ingests every raw trace of `source` into `target` again, identified through `maps`: source maps
 * that came after the traces, or better ones. The raw rows keep everything the rows are made of.
 */
export async function reingest(source: Store, target: Store, maps: MapsOptions = {}, batchSize = DEFAULT_BATCH): Promise<IngestSummary> {
  const ingester = new Ingester(target, maps, batchSize);
  for (let after = '0'; ; ) {
    const rows = await source.rawTraces(after, batchSize);
    if (rows.length === 0) break;
    for (const row of rows) await ingester.add(documentOfRaw(JSON.parse(row.raw) as RawTrace));
    after = rows[rows.length - 1].traceId;
  }
  await ingester.flush();
  return ingester.summary;
}
