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

export class OptionsError extends Error {
  constructor(message: string) {
    super(`@jsprof: ${message}`);
    this.name = 'OptionsError';
  }
}

/**
 * Each option once: what it takes, its default as the README shows it, what it means, and, for
 * the placement options the CLI takes, its flag. Validation (normalizeOptions), the CLI's flags and
 * the options table of this package's README are made from it (a test holds the README to it).
 */
export interface OptionSpec {
  name: keyof PolicyOptions;
  /** Checks and returns the value given, or throws an OptionsError naming the option. */
  parse(value: unknown, name: string): unknown;
  shownDefault: string;
  description: string;
  /** The CLI's flag and its help, for the placement options. */
  flag?: { flags: string; description: string };
}

function wholeNumber(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new OptionsError(`option "${name}" must be a whole number of statements ≥ 0; got ${describe(value)}`);
  return value;
}

function flag(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw new OptionsError(`option "${name}" must be true or false; got ${describe(value)}`);
  return value;
}

function runtimeAccess(value: unknown, name: string): RuntimeAccess {
  if (value !== 'global' && value !== 'import') throw new OptionsError(`option "${name}" must be "global" or "import"; got ${describe(value)}`);
  return value;
}

function specifier(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new OptionsError(`option "${name}" must be a module specifier string; got ${describe(value)}`);
  return value;
}

function patternList(value: unknown, name: string): Array<string | RegExp> {
  const list = Array.isArray(value) ? value : [value];
  for (const item of list) {
    if (typeof item !== 'string' && !(item instanceof RegExp)) {
      throw new OptionsError(`option "${name}" must be a string, a RegExp or an array of them; got ${describe(item)}`);
    }
    // A glob would be matched as text, match nothing, and leave every file as it was, silently.
    if (typeof item === 'string' && item.includes('*')) {
      throw new OptionsError(`option "${name}" takes parts of file paths or RegExps, not globs; got ${describe(item)} (write a RegExp, such as /\\.test\\.js$/)`);
    }
  }
  return list;
}

export const OPTIONS: readonly OptionSpec[] = Object.freeze([
  {
    name: 'threshold',
    parse: wholeNumber,
    shownDefault: '`10`',
    description: 'functions that can run at least this many statements in one call get checks (see [the statement count](#the-statement-count)); a whole number ≥ 0',
    flag: { flags: '--threshold <n>', description: 'instrument functions that can run at least this many statements in one call' },
  },
  {
    name: 'loopingFunctions',
    parse: flag,
    shownDefault: '`true`',
    description: 'functions with a loop of their own get checks too, whatever their count',
    flag: { flags: '--no-looping-functions', description: 'do not instrument functions below the threshold that have a loop of their own' },
  },
  {
    name: 'loops',
    parse: flag,
    shownDefault: '`false`',
    description: 'also check at the back-edge of every loop inside an instrumented function',
    flag: { flags: '--loops', description: 'also check at every loop back-edge of instrumented functions' },
  },
  {
    name: 'exits',
    parse: flag,
    shownDefault: '`true`',
    description: 'also check when an instrumented function returns (after its body, or as a `return` leaves it; not when it throws)',
    flag: { flags: '--no-exits', description: 'do not check when instrumented functions return' },
  },
  {
    name: 'runtime',
    parse: runtimeAccess,
    shownDefault: "`'global'`",
    description: "how instrumented code reaches the runtime: through `globalThis.__jsprof` (`'global'`), or by importing `importSource` (`'import'`)",
  },
  { name: 'importSource', parse: specifier, shownDefault: "`'@jsprof/runtime'`", description: "the module imported when `runtime: 'import'`" },
  {
    name: 'include',
    parse: patternList,
    shownDefault: '`[]` (every file)',
    description: 'only files whose name matches one of these are instrumented: a string (matched as a substring) or a RegExp, or an array of them',
  },
  { name: 'exclude', parse: patternList, shownDefault: '`[]`', description: 'files whose name matches one of these are left alone' },
]);

/** The README's table of OPTIONS. */
export function optionsTable(): string {
  const rows = OPTIONS.map((o) => `| \`${o.name}\` | ${o.shownDefault} | ${o.description} |`);
  return ['| option | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

const KNOWN = new Set(OPTIONS.map((o) => o.name));

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return String(value);
  return typeof value;
}

export function normalizeOptions(raw: unknown): PolicyOptions {
  const options: PolicyOptions = { ...DEFAULT_OPTIONS, include: [], exclude: [] };
  if (raw === undefined || raw === null) return options;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new OptionsError(`options must be an object, got ${describe(raw)}`);
  }
  const input = raw as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!KNOWN.has(key as keyof PolicyOptions)) {
      throw new OptionsError(`unknown option "${key}"; known options are: ${[...KNOWN].join(', ')}`);
    }
  }
  for (const spec of OPTIONS) {
    if (input[spec.name] !== undefined) (options as any)[spec.name] = spec.parse(input[spec.name], spec.name);
  }
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
