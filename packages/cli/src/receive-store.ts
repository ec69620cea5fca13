/**
 * Accepted traces on their way into a store (`@jsprof/store`): turned into rows by its `Ingester`
 * as they arrive, written in batches, one write at a time. When the store cannot be reached the
 * rows wait, up to a bound (beyond it the receiver answers 503 so that clients try again), and the
 * write is tried again with a growing pause. `close` writes what is left; what still cannot be
 * written (or all that is left, once `stopWaiting` is called) is saved as trace files for
 * `jsprof ingest`, never dropped in silence.
 */
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_BATCH, Ingester, MapsOptions, RawTrace, Store, TraceRows, documentOfRaw } from '@jsprof/store';
import type { TraceDocument } from '@jsprof/trace-tools';
import { writeAtomic } from './files';

export interface StoreWriterOptions extends Pick<MapsOptions, 'sourceMaps' | 'releaseMaps'> {
  /** Traces written at once (default 500). */
  batchSize?: number;
  /** Longest a trace waits before its batch is written, in ms (default 1000). */
  flushMs?: number;
  /** Most traces held for the store; beyond, the receiver answers 503 (default 10,000). */
  maxBuffered?: number;
  /** Where traces that cannot be written when the receiver closes are saved as files. */
  spillDir?: string;
  /** Longest `close` keeps trying the store before saving what is left, in ms (default 10 s). */
  closeTimeoutMs?: number;
  /** Called when a write fails (it is tried again). */
  onError?: (error: Error) => void;
}

export interface StoreStatus {
  written: number;
  buffered: number;
  failures: number;
  /** Why the last write failed, while the store is failing. */
  error?: string;
}

export interface CloseSummary {
  /** Traces that could not be written to the store when it closed. */
  unwritten: number;
  /** Where they were saved, if they were. */
  savedIn?: string;
}

const MAX_RETRY_MS = 30_000;
/** Longest `close` keeps trying the store, by default, in ms. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

/** `work`, or a rejection at the deadline or when `stop` is aborted, whichever comes first. */
function withDeadline<T>(work: Promise<T>, deadline: number, stop: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let stopped = () => {};
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), Math.max(0, deadline - Date.now()));
    stopped = () => reject(new Error('stopped'));
    stop.addEventListener('abort', stopped);
  });
  return Promise.race([work, late]).finally(() => {
    clearTimeout(timer);
    stop.removeEventListener('abort', stopped);
  });
}

/** Traces held for the store at most, by default, before clients get 503. */
export const DEFAULT_MAX_BUFFERED = 10_000;

export class StoreWriter {
  private readonly ingester: Ingester;
  private readonly batchSize: number;
  private readonly maxBuffered: number;
  private queue: TraceRows[] = [];
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private retryMs = 0;
  /** The size of the batch whose write failed, until it is written. */
  private failedBatch: number | null = null;
  private closed = false;
  private readonly stopping = new AbortController();
  private readonly counts: Omit<StoreStatus, 'buffered'> = { written: 0, failures: 0 };

  constructor(
    store: Store,
    private readonly options: StoreWriterOptions = {},
  ) {
    this.batchSize = options.batchSize ?? DEFAULT_BATCH;
    this.maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    // Its own batches are never used: rows go through `write`, so a failed write keeps them.
    this.ingester = new Ingester(store, options, Infinity);
  }

  get status(): StoreStatus {
    return { ...this.counts, buffered: this.queue.length };
  }

  get full(): boolean {
    return this.queue.length >= this.maxBuffered;
  }

  /** The rows of a trace, made before it is accepted (so that nothing is half accepted). */
  rowsOf(document: TraceDocument): TraceRows {
    return this.ingester.rowsOf(document);
  }

  add(rows: TraceRows): void {
    this.queue.push(rows);
    if (this.queue.length >= this.batchSize && this.retryMs === 0) this.schedule(0);
    else this.schedule(this.retryMs || (this.options.flushMs ?? 1000));
  }

  /** Writes everything held; throws (keeping the rows) when the store fails. */
  async flush(): Promise<void> {
    while (this.running) await this.running.catch(() => {});
    while (this.queue.length > 0) {
      this.running = this.writeBatch();
      try {
        await this.running;
      } finally {
        this.running = null;
      }
    }
  }

  /**
   * Stops the timer, writes what is left (trying until `closeTimeoutMs`, or until `stopWaiting`),
   * saves what cannot be.
   */
  async close(): Promise<CloseSummary> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const deadline = Date.now() + (this.options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
    const stop = this.stopping.signal;
    for (let pause = 250; !stop.aborted; pause = Math.min(pause * 2, 2000)) {
      try {
        // A write that hangs past the deadline is not waited for: if it lands after all, the saved
        // files are found already stored when they are ingested.
        await withDeadline(this.flush(), deadline, stop);
        return { unwritten: 0 };
      } catch {
        if (Date.now() + pause > deadline) break;
        await sleep(pause, undefined, { signal: stop }).catch(() => {});
      }
    }
    return this.spill();
  }

  /** Makes `close` (now or when it comes) stop trying the store and save what is left at once. */
  stopWaiting(): void {
    this.stopping.abort();
  }

  private schedule(ms: number): void {
    if (this.closed || (this.timer && ms > 0)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush().then(
        () => {
          this.retryMs = 0;
        },
        () => {
          this.retryMs = Math.min(MAX_RETRY_MS, Math.max(500, this.retryMs * 2));
          if (this.queue.length) this.schedule(this.retryMs);
        },
      );
    }, ms);
  }

  private async writeBatch(): Promise<void> {
    // A batch that failed is written again as it was, however many traces came since: the store
    // names a batch by its traces to skip what the failed write left (ClickHouse).
    const batch = this.queue.slice(0, this.failedBatch ?? this.batchSize);
    try {
      await this.ingester.write(batch);
      this.failedBatch = null;
    } catch (error) {
      this.failedBatch = batch.length;
      this.counts.failures++;
      this.counts.error = (error as Error)?.message ?? String(error);
      this.options.onError?.(error as Error);
      throw error;
    }
    this.queue.splice(0, batch.length);
    this.counts.written += batch.length;
    delete this.counts.error;
  }

  /** The traces still held, as files `jsprof ingest` reads (their raw rows give the same rows again). */
  private spill(): CloseSummary {
    const unwritten = this.queue.length;
    const dir = this.options.spillDir;
    if (!dir) return { unwritten };
    for (const rows of this.queue) {
      const document = documentOfRaw(JSON.parse(rows.raw.raw) as RawTrace);
      writeAtomic(path.join(dir, `unwritten-${rows.trace.traceId}.json`), JSON.stringify(document));
    }
    this.queue = [];
    return { unwritten, savedIn: dir };
  }
}
