'use strict';
/** The check placements the benchmarks compare (jsprof's default is `default`). */
const THRESHOLD = 10;

const ALL_CONFIGS = [
  { id: 'entry', label: 'entry only (--no-exits)', threshold: THRESHOLD, loopingFunctions: true, loops: false, exits: false },
  { id: 'default', label: 'entry+exits (default)', threshold: THRESHOLD, loopingFunctions: true, loops: false, exits: true },
  { id: 'no-looping', label: 'entry+exits, --no-looping-functions', threshold: THRESHOLD, loopingFunctions: false, loops: false, exits: true },
  { id: 'loops', label: 'entry+exits+loops (--loops)', threshold: THRESHOLD, loopingFunctions: true, loops: true, exits: true },
];

/** Ends a benchmark on bad input or a missing tool, with a one-line message. */
function usageError(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

/** The value after `flag` on a benchmark's command line, or undefined. */
function flagValue(argv, flag) {
  return argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined;
}

/**
 * The placements a benchmark runs, from its command line: `--placements id,id` (default: all) at
 * `--threshold n` (default: jsprof's). Exits with a message on a bad value.
 */
function configsFrom(argv) {
  const thresholdArg = flagValue(argv, '--threshold') ?? String(THRESHOLD);
  if (!/^\d+$/.test(thresholdArg)) usageError('--threshold must be a whole number of statements ≥ 0');
  const threshold = Number(thresholdArg);
  const ids = flagValue(argv, '--placements')?.split(',') ?? ALL_CONFIGS.map((c) => c.id);
  const unknown = ids.filter((id) => !ALL_CONFIGS.some((c) => c.id === id));
  if (unknown.length) usageError(`--placements takes a comma-separated list of ${ALL_CONFIGS.map((c) => c.id).join(', ')}; got ${ids.join(',') || 'nothing'}`);
  const configs = ALL_CONFIGS.filter((c) => ids.includes(c.id)).map((c) => ({ ...c, threshold }));
  return { threshold, configs };
}

module.exports = { configsFrom, flagValue, usageError };
