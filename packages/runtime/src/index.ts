/**
 * `@jsprof/runtime`: the JS Self-Profiling API for code instrumented by jsprof.
 *
 *   import { Profiler } from '@jsprof/runtime';
 *   const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
 *   … const trace = await profiler.stop();
 */
import { defineGlobal } from './globals';
import { getEngine, hook } from './hook';
import { Profiler, profile } from './profiler';
import type { FrameResolver } from './trace';

export { Profiler, profile, effectiveInterval } from './profiler';
export type { ProfilerInitOptions } from './profiler';
export type { ProfilerTrace, ProfilerFrame, ProfilerStack, ProfilerSample, NamedFrame, FrameResolver } from './trace';
export type { RawFrame } from './capture';
export { parseStack, parseV8Stack, parseAtStack } from './stack-parsers';
export type { ParsedFrame } from './stack-parsers';
export { BASE_INTERVAL } from './engine';

/** For modules instrumented with `runtime: 'import'`: what their checks count down, and delete from (see @jsprof/policy's check.ts). */
export const checkCounter: Int32Array = hook.c;
export const checkTrap: object = hook.s;

/** Whether `Profiler` is a native implementation a page may construct. */
function isWorkingNative(candidate: unknown): boolean {
  if (typeof candidate !== 'function' || candidate === Profiler) return false;
  try {
    const probe = new (candidate as typeof Profiler)({ sampleInterval: 10, maxBufferSize: 0 });
    void probe.stop().catch(() => {});
    return true;
  } catch {
    return false;
  }
}

export interface InstallOptions {
  /**
   * Keep a native Profiler where the page may construct one (Chromium, with `Document-Policy:
   * js-profiling`). Finding out means constructing one, and where the page may not, Chromium logs a
   * policy violation in its console; so this is asked for, never tried by default.
   */
  preferNative?: boolean;
}

/** The global Profiler that `install` replaced (a native one, where the browser has it). */
let replaced: unknown;

/**
 * Installs `globalThis.Profiler` (and `performance.profile`), replacing a native one unless
 * `preferNative` is set and the page may construct it. Returns the Profiler now in place.
 */
export function install(options: InstallOptions = {}): typeof Profiler {
  const realm = globalThis as any;
  const other = realm.Profiler === Profiler ? replaced : realm.Profiler;
  if (options.preferNative && isWorkingNative(other)) {
    defineGlobal('Profiler', other);
    return other as typeof Profiler;
  }
  if (realm.Profiler !== Profiler) replaced = realm.Profiler;
  if (!defineGlobal('Profiler', Profiler)) return realm.Profiler;
  if (typeof realm.performance === 'object' && realm.performance) {
    try {
      Object.defineProperty(realm.performance, 'profile', { value: profile, configurable: true, writable: true, enumerable: false });
    } catch {
      // a frozen performance object keeps its own API
    }
  }
  return Profiler;
}

/** Sets how captured frames are named and placed (tools that know the original sources set this). */
export function setFrameResolver(resolver: FrameResolver): void {
  getEngine().resolver = resolver;
}

/**
 * Runs a tool's own work on the program's thread (instrumenting a module as it loads): ticks
 * falling due meanwhile are recorded without a stack, not charged to the program's next check.
 */
export function runAsOwnWork<T>(fn: () => T): T {
  return getEngine().ownWork(fn);
}

/** Counters for benchmarks: ticks that fell due, and how many were recorded with a stack. */
export function samplerStats(): { ticks: number; withStack: number; mode: string } {
  const engine = getEngine();
  return { ...engine.stats, mode: engine.mode };
}
