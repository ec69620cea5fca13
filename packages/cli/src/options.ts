/** Settings passed from `jsprof run` (or the environment) to the process it profiles. */
import type { InstrumentOptions } from './instrument';

export interface RunSettings {
  instrument: InstrumentOptions;
  /** Where to write the trace; absent when only instrumenting (`--import @jsprof/cli/register`). */
  out?: string;
  sampleInterval: number;
  maxBufferSize: number;
}

export const SETTINGS_ENV = 'JSPROF_RUN';

export function readSettings(): RunSettings {
  const fallback: RunSettings = { instrument: {}, sampleInterval: 10, maxBufferSize: 1_000_000 };
  const raw = process.env[SETTINGS_ENV];
  if (!raw) return fallback;
  try {
    return { ...fallback, ...JSON.parse(raw) };
  } catch {
    return fallback;
  }
}

/**
 * The grid `jsprof run` samples on: the API's 10 ms for multiples of 10, else 1 ms, so that
 * `--sample-interval 1` samples every millisecond, as `node --cpu-prof` does.
 */
export function runBaseInterval(sampleInterval: number): number {
  return sampleInterval > 0 && sampleInterval % 10 === 0 ? 10 : 1;
}

/** The interval a `jsprof run` profile samples at (see runBaseInterval). */
export function runInterval(sampleInterval: number): number {
  const base = runBaseInterval(sampleInterval);
  return Math.max(1, Math.ceil(sampleInterval / base)) * base;
}

/** Where the profiled program says how many modules it instrumented, and in how long, beside its trace. */
export function instrumentingFile(traceFile: string): string {
  return `${traceFile}.instrumenting.json`;
}
