/** Options every front end accepts, validated once, with messages that say what to write instead. */

export type RuntimeAccess = 'global' | 'import';

export interface PolicyOptions {
  /** Functions that can run at least this many statements in one call (see statements.ts) get checks. */
  threshold: number;
  /** Functions with a loop of their own get checks too, whatever their count. */
  loopingFunctions: boolean;
  /** Also check at the back-edge of every loop inside an instrumented function. */
  loops: boolean;
  /** Also check when an instrumented function returns (after its body, or as a `return` leaves it; not on a throw). */
  exits: boolean;
  /** How instrumented code reaches the runtime: the `__jsprof` global, or an import of `@jsprof/runtime`. */
  runtime: RuntimeAccess;
  /** Module specifier imported when `runtime` is `import`. */
  importSource: string;
  /** Only files matching one of these are instrumented (substring or RegExp); empty = all. */
  include: Array<string | RegExp>;
  /** Files matching one of these are left alone. */
  exclude: Array<string | RegExp>;
}

/** The options that decide which functions get checks and where: every front end and the CLI take them. */
export type PlacementOptions = Pick<PolicyOptions, 'threshold' | 'loopingFunctions' | 'loops' | 'exits'>;

export const DEFAULT_THRESHOLD = 10;

export const DEFAULT_OPTIONS: Readonly<PolicyOptions> = Object.freeze({
  threshold: DEFAULT_THRESHOLD,
  loopingFunctions: true,
  loops: false,
  exits: true,
  runtime: 'global',
  importSource: '@jsprof/runtime',
  include: [],
  exclude: [],
});

/** Options under which a front end checks no function and only lists them (names, starts, ranges). */
export const LIST_ONLY_OPTIONS: Readonly<Partial<PolicyOptions>> = Object.freeze({ threshold: Number.MAX_SAFE_INTEGER, loopingFunctions: false });

const KNOWN = new Set(Object.keys(DEFAULT_OPTIONS));

export class OptionsError extends Error {
  constructor(message: string) {
    super(`@jsprof: ${message}`);
    this.name = 'OptionsError';
  }
}

function patternList(name: string, value: unknown): Array<string | RegExp> {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  for (const item of list) {
    if (typeof item !== 'string' && !(item instanceof RegExp)) {
      throw new OptionsError(`option "${name}" must be a string, a RegExp or an array of them; got ${describe(item)}`);
    }
  }
  return list;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return String(value);
  return typeof value;
}

export function normalizeOptions(raw: unknown): PolicyOptions {
  if (raw === undefined || raw === null) return { ...DEFAULT_OPTIONS, include: [], exclude: [] };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new OptionsError(`options must be an object, got ${describe(raw)}`);
  }
  const input = raw as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!KNOWN.has(key)) {
      throw new OptionsError(`unknown option "${key}"; known options are: ${[...KNOWN].join(', ')}`);
    }
  }
  const options: PolicyOptions = { ...DEFAULT_OPTIONS, include: [], exclude: [] };
  if (input.threshold !== undefined) {
    const t = input.threshold;
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 0) {
      throw new OptionsError(`option "threshold" must be a whole number of statements ≥ 0; got ${describe(t)}`);
    }
    options.threshold = t;
  }
  for (const flag of ['loopingFunctions', 'loops', 'exits'] as const) {
    if (input[flag] !== undefined) {
      if (typeof input[flag] !== 'boolean') {
        throw new OptionsError(`option "${flag}" must be true or false; got ${describe(input[flag])}`);
      }
      options[flag] = input[flag] as boolean;
    }
  }
  if (input.runtime !== undefined) {
    if (input.runtime !== 'global' && input.runtime !== 'import') {
      throw new OptionsError(`option "runtime" must be "global" or "import"; got ${describe(input.runtime)}`);
    }
    options.runtime = input.runtime;
  }
  if (input.importSource !== undefined) {
    if (typeof input.importSource !== 'string' || input.importSource === '') {
      throw new OptionsError(`option "importSource" must be a module specifier string; got ${describe(input.importSource)}`);
    }
    options.importSource = input.importSource;
  }
  options.include = patternList('include', input.include);
  options.exclude = patternList('exclude', input.exclude);
  return options;
}

function matches(pattern: string | RegExp, filename: string): boolean {
  if (typeof pattern === 'string') return filename.includes(pattern);
  pattern.lastIndex = 0;
  return pattern.test(filename);
}

/** jsprof's runtime as a project installs it: never instrumented, whatever include says (its checks would call into itself). */
export const INSTALLED_RUNTIME = /\/node_modules\/@jsprof\/runtime\//;

/** Whether a file is to be instrumented at all; code with no file name is. */
export function shouldInstrumentFile(options: PolicyOptions, filename: string | undefined | null): boolean {
  if (!filename) return true;
  const name = filename.replace(/\\/g, '/');
  if (INSTALLED_RUNTIME.test(name)) return false;
  if (options.include.length && !options.include.some((p) => matches(p, name))) return false;
  return !options.exclude.some((p) => matches(p, name));
}
