/**
 * Loading traces into a store: each document identified (symbolicated with its release's source
 * maps), turned into rows, and written in batches; traces already stored are skipped.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ReadLimits, SourceMaps, TraceDocument, TraceError, readOrReport } from '@jsprof/trace-tools';
import { FunctionRow, Identities, ReleaseMaps, StackRow } from './identity';
import { RawTrace, TraceRows, dayOf, documentOfRaw, traceRows } from './rows';
import type { Store } from './store';
import { ingestInWorkers } from './ingest-workers';
import { FetchedMaps, isReleaseName } from './fetched-maps';

export interface MapsOptions {
  /** Source maps for every trace. */
  sourceMaps?: string;
  /** Source maps per release: those of release R in `<releaseMaps>/<R>/`. */
  releaseMaps?: string;
  /** Source maps per release fetched over http(s): a URL with {release} and {path} (the script URL's path), e.g. https://maps.internal/{release}/{path}.map. */
  mapsUrl?: string;
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
  /** Releases named by traces for which `releaseMaps` has no directory, or `mapsUrl` gave no map. */
  releasesWithoutMaps: string[];
  /** With `mapsUrl`: maps fetched, fetches that failed (not 404s), and the first failures. */
  mapsFetched: number;
  mapFetchFailures: number;
  mapFetchErrors: string[];
  /** Scripts several different source maps fit, each with the maps (the first was used): the first ten. */
  ambiguousMaps: string[];
}

/** Traces a collector writes at once. */
export const DEFAULT_BATCH = 500;
/** Traces `ingestFiles` writes at once: fewer, larger commits keep the store's writing from holding up reading (2,000: +30% traces/s over 500 on 2 cores). */
export const DEFAULT_FILES_BATCH = 2000;

/** What identifying traces found: frames mapped, releases with and without source maps, maps fetched. */
export interface IdentifyStats extends Omit<IngestSummary, 'ingested' | 'duplicates' | 'rejected'> {
  /** With `mapsUrl`, releases for which a map was found: another worker may have found none for them. */
  releasesWithMaps: string[];
}

const noStats = (): IdentifyStats => ({ frames: 0, mapped: 0, releasesWithoutMaps: [], releasesWithMaps: [], mapsFetched: 0, mapFetchFailures: 0, mapFetchErrors: [], ambiguousMaps: [] });

/** Refuses `sourceMaps` and `releaseMaps` that name no directory: before a store is opened for them. */
export function checkMapsDirs(maps: MapsOptions): void {
  for (const dir of [maps.sourceMaps, maps.releaseMaps]) {
    if (dir === undefined) continue;
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    if (!stat) throw new Error(`${dir}: no such directory`);
    if (!stat.isDirectory()) throw new Error(`${dir}: not a directory`);
  }
}

/** Identifies traces (symbolicated with their release's source maps) and turns them into rows, without a store. */
export class RowMaker {
  private readonly identities = new Identities();
  private readonly releaseMaps = new Map<string, ReleaseMaps | null>();
  private readonly shared: ReleaseMaps | null;
  private readonly fetched: FetchedMaps | null;
  private readonly stats_: IdentifyStats = noStats();

  /** `fetchedMapsDir`: where maps fetched through `maps.mapsUrl` are kept (the caller removes it). */
  constructor(
    private readonly maps: MapsOptions = {},
    private readonly now = new Date(),
    fetchedMapsDir?: string,
  ) {
    checkMapsDirs(maps);
    this.shared = maps.sourceMaps ? { maps: new SourceMaps(maps.sourceMaps), dir: path.resolve(maps.sourceMaps) } : null;
    if (maps.mapsUrl && !fetchedMapsDir) throw new Error('maps fetched through mapsUrl need a directory to be kept in');
    this.fetched = maps.mapsUrl ? new FetchedMaps(maps.mapsUrl, fetchedMapsDir!) : null;
  }

  get stats(): IdentifyStats {
    const opened = [this.shared, ...this.releaseMaps.values()];
    const stats = { ...this.stats_, ambiguousMaps: opened.flatMap((release) => release?.maps.ambiguousMaps ?? []) };
    if (!this.fetched) return stats;
    const { withMaps, withoutMaps } = this.fetched.releasesFound();
    return { ...stats, releasesWithMaps: withMaps, releasesWithoutMaps: withoutMaps, mapsFetched: this.fetched.fetched, mapFetchFailures: this.fetched.failures, mapFetchErrors: [...this.fetched.failed] };
  }

  /** With `mapsUrl`: fetches the maps of the document's scripts not looked for yet in its release. */
  async prepare(document: TraceDocument): Promise<void> {
    const release = document.meta.release;
    if (this.fetched && release !== undefined) await this.fetched.fetchFor(String(release), document.trace.resources);
  }

  /** One trace's rows; with `mapsUrl`, after `prepare`. */
  rowsOf(document: TraceDocument): TraceRows {
    dayOf(document.receivedAt, this.now); // a day no store keeps is refused before anything is counted
    const identified = this.identities.identify(document.trace, this.mapsFor(document));
    if (identified.stats) {
      this.stats_.frames += identified.stats.frames;
      this.stats_.mapped += identified.stats.mapped;
    }
    return traceRows(document, identified, this.now);
  }

  private mapsFor(document: TraceDocument): ReleaseMaps | null {
    if (this.shared || !(this.maps.releaseMaps || this.fetched)) return this.shared;
    const release = document.meta.release;
    if (release === undefined) return null;
    const name = String(release);
    if (this.fetched) return this.fetched.mapsOf(name);
    if (!this.releaseMaps.has(name)) this.releaseMaps.set(name, this.openReleaseMaps(name));
    return this.releaseMaps.get(name)!;
  }

  private openReleaseMaps(release: string): ReleaseMaps | null {
    // A release name is a stranger's text: it must name a directory inside releaseMaps, nothing else.
    const dir = path.resolve(this.maps.releaseMaps!, release);
    const inside = path.dirname(dir) === path.resolve(this.maps.releaseMaps!) && isReleaseName(release);
    if (!inside || !fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
      this.stats_.releasesWithoutMaps.push(release);
      return null;
    }
    return { maps: new SourceMaps(dir), dir };
  }
}

/**
 * Leaves out of each trace's rows the functions and stacks given in earlier ones, so they are not
 * carried and filtered again trace after trace. Only for a run that ends at its first failed write
 * (`ingestFiles`): a retried or dropped batch would need the rows left out.
 */
export class NewFunctionsAndStacks {
  /** Most ids remembered; past it they are given again (the store skips them). */
  private static readonly MAX = 500_000;
  private functions = new Set<string>();
  private stacks = new Set<string>();

  of(rows: TraceRows): TraceRows {
    if (this.functions.size > NewFunctionsAndStacks.MAX) this.functions = new Set();
    if (this.stacks.size > NewFunctionsAndStacks.MAX) this.stacks = new Set();
    return { ...rows, functions: unseen(rows.functions, this.functions, (f) => f.functionId), stacks: unseen(rows.stacks, this.stacks, (s) => s.stackId) };
  }
}

function unseen<T>(rows: T[], seen: Set<string>, idOf: (row: T) => string): T[] {
  return rows.filter((row) => {
    const id = idOf(row);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Turns documents into rows and writes them to the store in batches. */
export class Ingester {
  private readonly maker: RowMaker;
  private batch: TraceRows[] = [];
  private writing: Promise<void> = Promise.resolve();
  /** Functions and stacks of traces found already stored, by id, not yet written with another trace. */
  private carried = { functions: new Map<string, FunctionRow>(), stacks: new Map<string, StackRow>() };
  private readonly counts = { ingested: 0, duplicates: 0, rejected: 0 };
  /** Stats of rows made elsewhere (ingest workers), added to the summary. */
  private readonly otherStats: IdentifyStats[] = [];

  constructor(
    private readonly store: Store,
    maps: MapsOptions = {},
    private readonly batchSize = DEFAULT_BATCH,
    now = new Date(),
    fetchedMapsDir?: string,
  ) {
    this.maker = new RowMaker(maps, now, fetchedMapsDir);
  }

  /** With `mapsUrl`: fetches the maps the document needs (before `rowsOf`). */
  prepare(document: TraceDocument): Promise<void> {
    return this.maker.prepare(document);
  }

  get summary(): IngestSummary {
    const stats = [this.maker.stats, ...this.otherStats];
    const sum = (key: 'frames' | 'mapped' | 'mapsFetched' | 'mapFetchFailures') => stats.reduce((total, s) => total + s[key], 0);
    return {
      ...this.counts,
      frames: sum('frames'),
      mapped: sum('mapped'),
      releasesWithoutMaps: [...new Set(stats.flatMap((s) => s.releasesWithoutMaps))].filter((r) => !stats.some((s) => s.releasesWithMaps.includes(r))),
      mapsFetched: sum('mapsFetched'),
      mapFetchFailures: sum('mapFetchFailures'),
      mapFetchErrors: stats.flatMap((s) => s.mapFetchErrors).slice(0, 10),
      ambiguousMaps: [...new Set(stats.flatMap((s) => s.ambiguousMaps))].slice(0, 10),
    };
  }

  /** Adds one trace (fetching its maps first, with `mapsUrl`); writes a batch when it is full. */
  async add(document: TraceDocument): Promise<void> {
    await this.prepare(document);
    await this.addRows(this.rowsOf(document));
  }

  /**
   * Adds one trace's rows (from `rowsOf`, here or in a worker). A full batch starts being written
   * while the next one fills: this waits only for the batch before it, so reading goes on while the
   * store writes. A failed write is thrown here or by `flush`.
   */
  async addRows(rows: TraceRows): Promise<void> {
    this.batch.push(rows);
    if (this.batch.length < this.batchSize) return;
    const batch = this.batch;
    this.batch = [];
    await this.writing;
    this.writing = this.write(batch);
    // Seen by the next addRows or flush; until then it must not count as unhandled.
    this.writing.catch(() => {});
  }

  /** One trace identified and turned into rows, not yet written (what `add` batches). */
  rowsOf(document: TraceDocument): TraceRows {
    return this.maker.rowsOf(document);
  }

  /** Counts the stats of rows made by another RowMaker into the summary. */
  countStats(stats: IdentifyStats): void {
    this.otherStats.push(stats);
  }

  reject(): void {
    this.counts.rejected++;
  }

  /** Waits for the batch being written, whatever comes of it: before giving up on an ingest, so that the store is not closed under a write. */
  async settle(): Promise<void> {
    await this.writing.catch(() => {});
  }

  /** Writes what is buffered, after the batch being written. */
  async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    const writing = this.writing;
    this.writing = Promise.resolve();
    await writing;
    await this.write(batch);
  }

  /**
   * Writes these rows (from `rowsOf`), skipping traces already stored; counted in the summary only
   * once written, so rows whose write failed can be written again.
   */
  async write(batch: TraceRows[]): Promise<void> {
    if (batch.length === 0) return;
    const stored = await this.store.storedTraces(batch.map((rows) => rows.trace.traceId));
    const fresh: TraceRows[] = [];
    for (const rows of batch) {
      if (stored.has(rows.trace.traceId)) {
        // Its functions and stacks go with the next trace written: later rows may leave them out (NewFunctionsAndStacks).
        for (const f of rows.functions) this.carried.functions.set(f.functionId, f);
        for (const s of rows.stacks) this.carried.stacks.set(s.stackId, s);
        continue;
      }
      stored.add(rows.trace.traceId);
      fresh.push(rows);
    }
    if (fresh.length > 0) {
      const { functions, stacks } = this.carried;
      fresh[0] = { ...fresh[0], functions: [...fresh[0].functions, ...functions.values()], stacks: [...fresh[0].stacks, ...stacks.values()] };
      await this.store.write(fresh);
      this.carried = { functions: new Map(), stacks: new Map() };
    }
    this.counts.duplicates += batch.length - fresh.length;
    this.counts.ingested += fresh.length;
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
  /** Worker threads that read and identify the files (0, the default: this thread does). */
  workers?: number;
}

/** Runs `work` with a directory for the maps fetched through `maps.mapsUrl` (none without), removed after. */
async function withFetchedMapsDir<T>(maps: MapsOptions, work: (dir: string | undefined) => Promise<T>): Promise<T> {
  const dir = maps.mapsUrl ? fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-fetched-maps-')) : undefined;
  try {
    return await work(dir);
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One file's rows, as `ingestFiles` takes them (in this thread or a worker): read and validated, its
 * maps fetched, identified, with the functions and stacks given before left out; null when the file
 * is rejected (said through `onRejected`).
 */
export async function rowsOfFile(
  file: string,
  maker: Pick<RowMaker, 'prepare' | 'rowsOf'>,
  fresh: NewFunctionsAndStacks,
  options: Pick<IngestFilesOptions, 'limits' | 'onRejected'>,
): Promise<TraceRows | null> {
  const document = readOrReport(file, options);
  if (!document) return null;
  await maker.prepare(document);
  try {
    return fresh.of(maker.rowsOf(document));
  } catch (error) {
    // A valid trace the store cannot take (stacks too deep, a day out of range): this file only.
    if (!(error instanceof TraceError)) throw error;
    options.onRejected?.(`${file}: ${error.message}`);
    return null;
  }
}

/**
 * Reads the files and writes their traces to the store, in file order. With `workers`, that many
 * worker threads read, validate and identify the files while this thread writes.
 */
export async function ingestFiles(store: Store, files: string[], options: IngestFilesOptions = {}): Promise<IngestSummary> {
  return withFetchedMapsDir(options, async (fetchedMapsDir) => {
    const ingester = new Ingester(store, options, options.batchSize ?? DEFAULT_FILES_BATCH, options.now, fetchedMapsDir);
    try {
      if ((options.workers ?? 0) > 0 && files.length > 0) {
        await ingestInWorkers(ingester, files, options, fetchedMapsDir);
      } else {
        const fresh = new NewFunctionsAndStacks();
        for (let i = 0; i < files.length; i++) {
          const rows = await rowsOfFile(files[i], ingester, fresh, options);
          if (rows) await ingester.addRows(rows);
          else ingester.reject();
          options.onFile?.(i + 1, files.length);
        }
      }
      await ingester.flush();
    } catch (error) {
      await ingester.settle();
      throw error;
    }
    return ingester.summary;
  });
}

/**
 * Ingests every raw trace of `source` into `target` again, identified through `maps`: source maps
 * that came after the traces, or better ones. The raw rows keep everything the rows are made of.
 */
export async function reingest(source: Store, target: Store, maps: MapsOptions = {}, batchSize = DEFAULT_FILES_BATCH): Promise<IngestSummary> {
  return withFetchedMapsDir(maps, async (fetchedMapsDir) => {
    const ingester = new Ingester(target, maps, batchSize, new Date(), fetchedMapsDir);
    for (let after = '0'; ; ) {
      const rows = await source.rawTraces(after, batchSize);
      if (rows.length === 0) break;
      for (const row of rows) {
        try {
          await ingester.add(documentOfRaw(JSON.parse(row.raw) as RawTrace));
        } catch (error) {
          // A trace an older jsprof took and this one refuses (stacks too deep, a day no store keeps).
          if (!(error instanceof TraceError)) throw error;
          ingester.reject();
        }
      }
      after = rows[rows.length - 1].traceId;
    }
    await ingester.flush();
    return ingester.summary;
  });
}
