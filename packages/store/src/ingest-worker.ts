/**
 * An ingest worker thread (ingest-workers.ts): reads, validates and identifies the files it is
 * sent, and answers with their rows. Functions and stacks it has sent before are left out of later
 * rows: the store writes each once, and a failed write ends the ingest.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { NewFunctionsAndStacks, RowMaker, rowsOfFile } from './ingest';
import type { WorkerReply, WorkerSetup } from './ingest-workers';
import type { TraceRows } from './rows';

const setup = workerData as WorkerSetup;
const maker = new RowMaker(setup, new Date(setup.now), setup.fetchedMapsDir);
const fresh = new NewFunctionsAndStacks();

async function rowsOfFiles(files: string[]): Promise<WorkerReply> {
  const rejected: string[] = [];
  const rows: (TraceRows | null)[] = [];
  for (const file of files) rows.push(await rowsOfFile(file, maker, fresh, { limits: setup.limits, onRejected: (message) => rejected.push(message) }));
  return { rows, rejected, stats: maker.stats };
}

// Requests are answered one at a time, in order, though fetching maps makes answering one wait.
let answering = Promise.resolve();
parentPort!.on('message', (files: string[]) => {
  answering = answering.then(async () => parentPort!.postMessage(await rowsOfFiles(files)));
});
