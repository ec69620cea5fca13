/**
 * Node's sampler thread: a worker_threads worker that watches the clock and sets the shared
 * counter to 0 when a tick falls due, so the next check on the main thread takes the sample.
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getEngine } from './hook';
import type { Ticker } from './engine';
import { TICKER_LOOP, startTicker } from './ticker';
import { FrameResolver, defaultResolver } from './trace';

export * from './index';

/** Marks the sampler thread's workerData: the runtime loaded there (by a preload) starts no thread of its own. */
const SAMPLER_THREAD = 'jsprofSamplerThread';

/**
 * The thread gets no command-line options (`-r`, `--cpu-prof`): a preload that starts a profiler
 * would otherwise run in it too. Preloads in NODE_OPTIONS still run there; the mark stops them
 * from starting a thread in turn.
 */
function startWorkerTicker(counter: Int32Array): Ticker | null {
  // Loaded when a profiler first starts, not with the runtime: a cold start need not pay for it.
  const { Worker, isMainThread, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  if (!isMainThread && workerData?.[SAMPLER_THREAD] === true) return null;
  return startTicker(counter, (data) => {
    const worker = new Worker(`const data = require('node:worker_threads').workerData;\n${TICKER_LOOP}`, {
      eval: true,
      workerData: { ...data, [SAMPLER_THREAD]: true },
      execArgv: [],
      stdout: false,
      stderr: false,
    });
    worker.unref();
    worker.on('error', () => {});
  });
}

/** Lets the engine sample from a thread in this process (the default under Node). */
export function useSamplerThread(enabled = true): void {
  getEngine().platform.startTicker = enabled ? startWorkerTicker : undefined;
}

/**
 * Samples on a grid finer than the API's 10 ms (1 ms, as `node --cpu-prof` does): new profilers'
 * intervals are then rounded up to multiples of `ms`, not of 10. Only while no profiler samples;
 * false if it could not be set.
 */
export function setBaseInterval(ms: number): boolean {
  return getEngine().setBaseInterval(ms);
}

/**
 * Calls `callback` on the program's thread after each sample a check takes, while the program runs
 * its own code (also while its event loop cannot turn, when a signal's listener cannot run): for a
 * tool that must act then, as `jsprof run` does on a signal. Sampling pauses while it runs; what it
 * throws is ignored. `null` removes it.
 */
export function afterEachSample(callback: (() => void) | null): void {
  getEngine().afterSample = callback;
}

if (process.env.JSPROF_SAMPLER !== 'count-down') useSamplerThread(true);

/**
 * The default resolver under Node: resources are URLs, as in a browser, so a CommonJS module's
 * absolute path becomes its `file:` URL; `node:` internals and URLs stay as they are.
 */
export const nodeResolver: FrameResolver = (frame) => {
  const named = defaultResolver(frame);
  if (named?.url !== undefined && isAbsolute(named.url)) named.url = pathToFileURL(named.url).href;
  return named;
};

if (getEngine().resolver === defaultResolver) getEngine().resolver = nodeResolver;
