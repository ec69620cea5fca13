/** Settings passed from `jsprof run` (or the environment) to the process it profiles. */
import { normalizeOptions } from '@jsprof/policy';
import type { InstrumentOptions } from './instrument';

export interface RunSettings {
  instrument: InstrumentOptions;
  /** Where to write the trace; absent when only instrumenting (`--import @jsprof/cli/register`). */
  out?: string;
  /** `jsprof run`'s own directory, which the program removes if jsprof ends before it (SIGKILL, out of memory). */
  scratch?: string;
  /** `jsprof run`'s process id: its child is the program it profiles (not processes the program forks). */
  jsprofPid?: number;
  sampleInterval: number;
  maxBufferSize: number;
}

export const SETTINGS_ENV = 'JSPROF_RUN';

/**
 * The settings in $JSPROF_RUN (the defaults when it is unset), checked: a value that cannot be
 * read or that the policy refuses throws a SettingsError naming it, so that the register hook
 * fails at start rather than instrumenting nothing.
 */
function readSettings(): RunSettings {
  const defaults: RunSettings = { instrument: {}, sampleInterval: 10, maxBufferSize: 1_000_000 };
  const raw = process.env[SETTINGS_ENV];
  if (!raw) return defaults;
  let given: any;
  try {
    given = JSON.parse(raw);
  } catch (error) {
    throw new SettingsError(`$${SETTINGS_ENV} is not JSON (${(error as Error).message})`);
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new SettingsError(`$${SETTINGS_ENV} must be a JSON object`);
  const settings: RunSettings = { ...defaults, ...given };
  try {
    normalizeOptions(settings.instrument);
  } catch (error) {
    throw new SettingsError(`$${SETTINGS_ENV}.instrument: ${(error as Error).message}`);
  }
  for (const key of ['sampleInterval', 'maxBufferSize'] as const) {
    if (typeof settings[key] !== 'number' || !(settings[key] >= 0)) throw new SettingsError(`$${SETTINGS_ENV}.${key} must be a number ≥ 0`);
  }
  return settings;
}

/** readSettings for the hooks loaded into a program: bad settings end it at once, with one line saying why (exit status 2). */
export function settingsOrExit(): RunSettings {
  try {
    return readSettings();
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}

class SettingsError extends Error {
  constructor(message: string) {
    super(`jsprof: ${message}`);
    this.name = 'SettingsError';
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
  // As the runtime's effectiveInterval (not imported: loading the runtime defines its global, here in jsprof's own process).
  const base = runBaseInterval(sampleInterval);
  return Math.max(1, Math.ceil(Math.trunc(sampleInterval) / base)) * base;
}

/** Where the profiled program says how many modules it instrumented, and in how long, beside its trace. */
export function instrumentingFile(traceFile: string): string {
  return `${traceFile}.instrumenting.json`;
}

/** In `jsprof run`'s scratch directory: the signal jsprof got (or passed on), for a program too busy for its listener. */
export const SIGNAL_FILE = 'signal';
