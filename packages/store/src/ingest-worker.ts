/**
 * An ingest worker thread (ingest-workers.ts): reads, validates and identifies the files it is
 * sent, and answers with their rows. Functions and stacks it has sent before are left out of later
 * rows: the store writes each once, and a failed write ends the ingest.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readOrReport } from '@jsprof/trace-tools';
import { NewFunctionsAndStacks, RowMaker } from './ingest';
import type { WorkerReply, WorkerSetup } from './ingest-workers';
import type { TraceRows } from './rows';

const setup = workerData as WorkerSetup;
const maker = new RowMaker(setup, new Date(setup.now));
const fresh = new NewFunctionsAndStacks();

parentPort!.on('message', (files: string[]) => {
  const rejected: string[] = [];
  const rows = files.map((file): TraceRows | null => {
    const document = readOrReport(file, { limits: setup.limits, onRejected: (message) => rejected.push(message) });
    if (!document) return null;
    return fresh.of(maker.rowsOf(document));
  });
  const reply: WorkerReply = { rows, rejected, stats: maker.stats };
  parentPort!.postMessage(reply);
});
