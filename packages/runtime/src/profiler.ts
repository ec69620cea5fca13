/**
 * The `Profiler` of the JS Self-Profiling API, behaving as native Chromium does (see docs/design.md,
 * "What native Chromium does"):
 * intervals rounded up to multiples of 10 ms, RangeError/TypeError for bad options, at most 100 at
 * once, `samplebufferfull` as a plain Event in a later task, a second `stop()` rejected with
 * InvalidStateError.
 */
import { BASE_INTERVAL, Engine, MAX_SESSIONS, Session } from './engine';
import { getEngine } from './hook';
import { cancelTimeout, rejectedPromise, resolvedPromise, startTimeout } from './builtins';
import type { ProfilerTrace } from './trace';

export interface ProfilerInitOptions {
  sampleInterval: number;
  maxBufferSize: number;
}

/** WebIDL `unsigned long` conversion (no [EnforceRange]): NaN and ±Infinity become 0. */
function toUnsignedLong(value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n)) return 0;
  const int = Math.trunc(n) % 2 ** 32;
  return int < 0 ? int + 2 ** 32 : int;
}

/** Longest interval native Chromium takes: INT_MAX microseconds. */
const MAX_INTERVAL_MS = (2 ** 31 - 1) / 1000;

const failedToRead = (member: string, problem: string) => new TypeError(`Failed to construct 'Profiler': Failed to read the '${member}' property from 'ProfilerInitOptions': ${problem}`);

/** A dictionary member read once, as WebIDL reads it: present, and a number (ToNumber, unary plus, refuses a BigInt or a Symbol). */
function readNumber(options: Record<string, unknown>, member: string): number {
  const value = options[member];
  if (value === undefined) throw failedToRead(member, 'Required member is undefined.');
  try {
    return +(value as number);
  } catch (error) {
    throw failedToRead(member, (error as Error).message);
  }
}

/** The options as native Chromium's bindings read them: members in the dictionary's order (maxBufferSize, then sampleInterval), each once. */
function readOptions(options: unknown): { interval: number; capacity: number } {
  if (options === null || options === undefined || (typeof options !== 'object' && typeof options !== 'function')) {
    throw new TypeError("Failed to construct 'Profiler': 1 argument required, but only 0 present.");
  }
  const o = options as Record<string, unknown>;
  const capacity = toUnsignedLong(readNumber(o, 'maxBufferSize'));
  const interval = readNumber(o, 'sampleInterval');
  if (!Number.isFinite(interval)) throw failedToRead('sampleInterval', 'The provided double value is non-finite.');
  if (interval < 0) throw new RangeError("Failed to construct 'Profiler': sampleInterval must be non-negative.");
  if (interval > MAX_INTERVAL_MS) throw new RangeError("Failed to construct 'Profiler': Invalid sample interval.");
  return { interval, capacity };
}

/**
 * Native Chromium takes the interval's whole milliseconds (10.9 → 10) and rounds them up to a
 * multiple of its base interval (10 ms here; see Engine.setBaseInterval), at least one.
 */
export function effectiveInterval(requested: number, base = BASE_INTERVAL): number {
  return Math.max(1, Math.ceil(Math.trunc(requested) / base)) * base;
}

export class Profiler extends EventTarget {
  #engine: Engine;
  #session: Session;
  #interval: number;
  #stopped = false;
  #onsamplebufferfull: ((this: Profiler, ev: Event) => unknown) | null = null;

  #bufferFullTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: ProfilerInitOptions) {
    super();
    const engine = getEngine();
    const { interval, capacity } = engine.guard(() => readOptions(options));
    if (engine.open >= MAX_SESSIONS) {
      throw new TypeError(`Failed to construct 'Profiler': Cannot have more than ${MAX_SESSIONS} concurrent profilers.`);
    }
    this.#engine = engine;
    this.#interval = effectiveInterval(interval, engine.baseInterval);
    this.#session = engine.start(this.#interval, capacity, () => this.#bufferFull());
  }

  get sampleInterval(): number {
    return this.#interval;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  get onsamplebufferfull() {
    return this.#onsamplebufferfull;
  }

  set onsamplebufferfull(handler) {
    if (this.#onsamplebufferfull) this.removeEventListener('samplebufferfull', this.#onsamplebufferfull as EventListener);
    this.#onsamplebufferfull = typeof handler === 'function' ? handler : null;
    if (this.#onsamplebufferfull) this.addEventListener('samplebufferfull', this.#onsamplebufferfull as EventListener);
  }

  stop(): Promise<ProfilerTrace> {
    if (this.#stopped) {
      return rejectedPromise(new DOMException('Profiler already stopped.', 'InvalidStateError'));
    }
    this.#stopped = true;
    // A samplebufferfull not yet delivered never is, as in native Chromium.
    cancelTimeout(this.#bufferFullTimer);
    // The ticks due up to now, taken in the caller of stop() as a check there would take them: code
    // without checks that ran up to stop() (a page's own loop) leaves its samples, not none.
    this.#engine.catchUp(Profiler.prototype.stop);
    return this.#engine.stopAsync(this.#session);
  }

  /** The trace at once, for tools that must write it in a process 'exit' handler. */
  stopSync(): ProfilerTrace {
    if (this.#stopped) throw new DOMException('Profiler already stopped.', 'InvalidStateError');
    this.#stopped = true;
    cancelTimeout(this.#bufferFullTimer);
    return this.#engine.stop(this.#session);
  }

  /**
   * Fires `samplebufferfull` in a later task. The timer calls `dispatchEvent` itself, so no frame of
   * the runtime is under a listener (a listener's own checks may sample for another profiler).
   * A listener's exception is reported by `dispatchEvent`, as for any event.
   */
  #bufferFull() {
    // stop() itself may fill the buffer, with the ticks it takes (catchUp): no event then either.
    if (this.#stopped) return;
    const event = new Event('samplebufferfull');
    this.#bufferFullTimer = startTimeout(this.dispatchEvent.bind(this), 0, event);
  }
}

/** The older draft's entry point: `performance.profile(options)` resolves to a started Profiler. */
export function profile(options: ProfilerInitOptions): Promise<Profiler> {
  try {
    return resolvedPromise(new Profiler(options));
  } catch (error) {
    return rejectedPromise(error);
  }
}
