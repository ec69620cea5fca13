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
