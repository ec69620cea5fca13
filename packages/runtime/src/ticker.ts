/**
 * The sampler thread, shared by Node (worker_threads) and browsers (a dedicated Worker): it watches
 * the clock and sets the shared counters to 0 when a tick falls due, so the next check on the main
 * thread takes the sample. Only where SharedArrayBuffer exists.
 */
import type { Ticker } from './engine';

/** What the thread is given: the shared buffers, and the main thread's time origin. */
export interface TickerData {
  counter: SharedArrayBuffer;
  control: SharedArrayBuffer;
  wake: SharedArrayBuffer;
  origin: number;
}

/**
 * The thread's loop, given `data` (a TickerData). `control` holds [due time, stop, ready]; `wake`
 * holds [generation (bumped to wake the thread), zeroes (how many times it zeroed the counter)].
 */
export const TICKER_LOOP = `
const counter = new Int32Array(data.counter);
const control = new Float64Array(data.control);
const wake = new Int32Array(data.wake);
const offset = performance.timeOrigin - data.origin;
control[2] = 1;
for (;;) {
  const generation = Atomics.load(wake, 0);
  if (control[1]) break;
  const due = control[0];
  const now = performance.now() + offset;
  if (now >= due) {
    for (let i = 0; i < counter.length; i++) Atomics.store(counter, i, 0);
    Atomics.add(wake, 1, 1);
    Atomics.wait(wake, 0, generation, 1);
  } else {
    Atomics.wait(wake, 0, generation, Math.min(due - now, 1000));
  }
}
`;

/**
 * Creates the shared buffers, lets `spawn` start a thread on them, and returns the main thread's
 * handle; null where SharedArrayBuffer is missing or the thread cannot start.
 */
export function startTicker(counter: Int32Array, spawn: (data: TickerData) => (() => void) | void): Ticker | null {
  if (typeof SharedArrayBuffer !== 'function' || !(counter.buffer instanceof SharedArrayBuffer)) return null;
  const control = new Float64Array(new SharedArrayBuffer(3 * 8));
  const wake = new Int32Array(new SharedArrayBuffer(2 * 4));
  control[0] = Infinity;
  let end: (() => void) | void;
  try {
    end = spawn({ counter: counter.buffer, control: control.buffer as SharedArrayBuffer, wake: wake.buffer as SharedArrayBuffer, origin: performance.timeOrigin });
  } catch {
    return null;
  }
  const poke = () => {
    Atomics.add(wake, 0, 1);
    Atomics.notify(wake, 0);
  };
  return {
    ready: () => control[2] === 1 && control[1] === 0,
    setDue(time) {
      const earlier = time < control[0];
      control[0] = time;
      // A later due time needs no wake-up (a futex call): the thread wakes at the earlier one and reads it.
      if (earlier) poke();
    },
    zeroes: () => Atomics.load(wake, 1),
    stop() {
      control[1] = 1;
      poke();
      end?.();
    },
  };
}
