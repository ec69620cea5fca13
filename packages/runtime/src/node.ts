/**
 * Node's sampler thread: a worker_threads worker that watches the clock and sets the shared
 * counter to 0 when a tick falls due, so the next check on the main thread takes the sample.
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { getEngine } from './hook';
import type { Ticker } from './engine';
import { FrameResolver, defaultResolver } from './trace';

export * from './index';

const TICKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const counter = new Int32Array(workerData.counter);
const control = new Float64Array(workerData.control);
const wake = new Int32Array(workerData.wake); // [generation, zeroes]
const offset = performance.timeOrigin - workerData.origin;
control[2] = 1;
for (;;) {
  const generation = Atomics.load(wake, 0);
  if (control[1]) break;
  const due = control[0];
  const now = performance.now() + offset;
  if (now >= due) {
    Atomics.store(counter, 0, 0);
    Atomics.add(wake, 1, 1);
    Atomics.wait(wake, 0, generation, 1);
  } else {
    Atomics.wait(wake, 0, generation, Math.min(due - now, 1000));
  }
}
`;

function startWorkerTicker(counter: Int32Array): Ticker | null {
  if (!(counter.buffer instanceof SharedArrayBuffer)) return null;
  const control = new Float64Array(new SharedArrayBuffer(3 * 8)); // [due, stop, ready]
  const wake = new Int32Array(new SharedArrayBuffer(2 * 4)); // [generation, zeroes]
  control[0] = Infinity;
  const worker = new Worker(TICKER_SOURCE, {
    eval: true,
    workerData: { counter: counter.buffer, control: control.buffer, wake: wake.buffer, origin: performance.timeOrigin },
    stdout: false,
    stderr: false,
  });
  worker.unref();
  worker.on('error', () => {});
  const poke = () => {
    Atomics.add(wake, 0, 1);
    Atomics.notify(wake, 0);
  };
  return {
    ready: () => control[2] === 1 && control[1] === 0,
    setDue(time) {
      if (control[0] === time) return;
      control[0] = time;
      poke();
    },
    zeroes: () => Atomics.load(wake, 1),
    stop() {
      control[1] = 1;
      poke();
    },
  };
}

/** Lets the engine sample from a thread in this process (the default under Node). */
export function useSamplerThread(enabled = true): void {
  getEngine().platform.startTicker = enabled ? startWorkerTicker : undefined;
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
