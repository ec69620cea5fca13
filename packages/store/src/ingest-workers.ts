/**
 * `ingestFiles` with worker threads: each reads, validates and identifies files (ingest-worker.ts)
 * and sends back their rows, while this thread writes them to the store in file order.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { IdentifyStats, IngestFilesOptions, Ingester } from './ingest';
import type { TraceRows } from './rows';

/** Files a worker is given at once, and requests kept queued per worker so none waits for this thread. */
const FILES_PER_REQUEST = 32;
const QUEUED_PER_WORKER = 2;

export interface WorkerSetup {
  sourceMaps?: string;
  releaseMaps?: string;
  mapsUrl?: string;
  /** The worker's own directory for fetched maps. */
  fetchedMapsDir?: string;
  limits?: IngestFilesOptions['limits'];
  now: number;
}

export interface WorkerReply {
  /** Rows of each file read, in order; null for a rejected file. */
  rows: (TraceRows | null)[];
  /** One line naming each rejected file. */
  rejected: string[];
  /** The worker's stats so far. */
  stats: IdentifyStats;
}

class IngestWorker {
  private readonly worker: Worker;
  private readonly waiting: { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void }[] = [];
  private failure: Error | null = null;
  stats: IdentifyStats | null = null;

  constructor(setup: WorkerSetup) {
    this.worker = new Worker(path.join(__dirname, 'ingest-worker.js'), { workerData: setup });
    this.worker.on('message', (reply: WorkerReply) => {
      this.stats = reply.stats;
      this.waiting.shift()!.resolve(reply);
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const request of this.waiting.splice(0)) request.reject(this.failure);
    };
    this.worker.on('error', fail);
    this.worker.on('messageerror', fail);
    this.worker.on('exit', (code) => fail(new Error(`an ingest worker stopped (exit status ${code})`)));
  }

  /** The rows of these files; requests are answered in the order they were made. */
  read(files: string[]): Promise<WorkerReply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(files);
    });
  }

  async stop(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}

/** `fetchedMapsDir`: with `options.mapsUrl`, where the workers keep the maps they fetch (one directory for all). */
export async function ingestInWorkers(ingester: Ingester, files: string[], options: IngestFilesOptions, fetchedMapsDir?: string): Promise<void> {
  const setup: WorkerSetup = { sourceMaps: options.sourceMaps, releaseMaps: options.releaseMaps, mapsUrl: options.mapsUrl, limits: options.limits, now: (options.now ?? new Date()).getTime() };
  const count = Math.min(options.workers!, Math.ceil(files.length / FILES_PER_REQUEST));
  const workers: IngestWorker[] = [];
  // Requests in the order of the files, each worker's answered in order: rows come back in file order.
  const requests: { files: number; reply: Promise<WorkerReply> }[] = [];
  let next = 0;
  let done = 0;
  const request = () => {
    const chunk = files.slice(next, next + FILES_PER_REQUEST);
    const worker = workers[(next / FILES_PER_REQUEST) % workers.length];
    next += chunk.length;
    const reply = worker.read(chunk);
    reply.catch(() => {}); // handled when its turn comes
    requests.push({ files: chunk.length, reply });
  };
  try {
    for (let i = 0; i < count; i++) workers.push(new IngestWorker({ ...setup, fetchedMapsDir }));
    while (next < files.length || requests.length > 0) {
      while (next < files.length && requests.length < workers.length * QUEUED_PER_WORKER) request();
      const { files: asked, reply } = requests.shift()!;
      const { rows, rejected } = await reply;
      for (const message of rejected) options.onRejected?.(message);
      for (let i = 0; i < asked; i++) {
        const traceRows = rows[i];
        if (traceRows) await ingester.addRows(traceRows);
        else ingester.reject();
        options.onFile?.(++done, files.length);
      }
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
  for (const worker of workers) if (worker.stats) ingester.countStats(worker.stats);
}
