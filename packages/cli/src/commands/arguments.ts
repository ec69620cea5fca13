/** What several commands share: the placement options, whole-number options, and the progress of reading many trace files. */
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_THRESHOLD, OPTIONS, PlacementOptions } from '@jsprof/policy';
import { ReadLimits, findTraceFiles, printable } from '@jsprof/trace-tools';
import { describeFsError } from '../files';

/** A commander parser for an option that must be a whole number ≥ `min`, and ≤ `max` if given (bad usage otherwise). */
export function wholeNumber(name: string, min: number, max?: number) {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || (max !== undefined && n > max)) {
      throw new InvalidArgumentError(max === undefined ? `${name} must be a whole number ≥ ${min}.` : `${name} must be a whole number from ${min} to ${max}.`);
    }
    return n;
  };
}

/** A commander parser for an option that must be a number from `min` to `max`; `problem` says what it must be (bad usage otherwise). */
export function numberIn(min: number, max: number, problem: string) {
  return (value: string) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw new InvalidArgumentError(problem);
    return n;
  };
}

/**
 * A command that only groups subcommands (`query top|flame|diff`, `cache info|clear`): run without
 * one, or with a word that is none (whatever options follow it, meant for the subcommand), it says
 * so (`problem`) and shows its help, as bad usage (2). Call it once the subcommands are made: they
 * would inherit `allowExcessArguments`.
 */
export function withSubcommands(command: Command, words: string, problem: (word?: string) => string, setExitCode: (code: number) => void): Command {
  if (command.commands.length === 0) throw new Error('withSubcommands: make the subcommands first');
  return command
    .argument(`[${words}]`)
    .allowUnknownOption()
    .allowExcessArguments()
    .action((word?: string) => {
      const named = word === undefined || word.startsWith('-') ? undefined : printable(word);
      process.stderr.write(`jsprof: ${problem(named)}\n`);
      command.outputHelp({ error: true });
      setExitCode(2);
    });
}

/** Which functions get checks, and where (`run` and `instrument`): the flags @jsprof/policy's option table gives. */
export function withPlacementOptions(command: Command): Command {
  for (const { name, flag } of OPTIONS) {
    if (!flag) continue;
    if (name === 'threshold') command.option(flag.flags, flag.description, wholeNumber('--threshold', 0), DEFAULT_THRESHOLD);
    else command.option(flag.flags, flag.description);
  }
  return command;
}

export function placementFrom(opts: any): PlacementOptions {
  return { threshold: opts.threshold, loopingFunctions: opts.loopingFunctions !== false, loops: !!opts.loops, exits: opts.exits !== false };
}

const PROGRESS_EVERY_MS = 100;
const NAMED_REJECTIONS = 20;

export interface TraceFilesProgress {
  onFile(done: number, total: number): void;
  onRejected(message: string): void;
  /** Erases the progress line and counts the rejections not named. */
  finish(): void;
}

/**
 * Reading `total` trace files: `jsprof: 120/10000 traces` on stderr, rewritten in place, when it is
 * a terminal and there are 20 files or more; each rejected file named on stderr, the first 20 of
 * them, then only counted.
 */
export function traceFilesProgress(total: number): TraceFilesProgress {
  const shown = total >= 20 && !!process.stderr.isTTY;
  let shownAt = 0;
  let rejected = 0;
  return {
    onFile(done, of) {
      if (!shown || (Date.now() - shownAt < PROGRESS_EVERY_MS && done < of)) return;
      shownAt = Date.now();
      process.stderr.write(`\r\x1b[Kjsprof: ${done}/${of} traces`);
    },
    onRejected(message) {
      if (++rejected > NAMED_REJECTIONS) return;
      process.stderr.write(`${shown ? '\r\x1b[K' : ''}jsprof: ${printable(message)}\n`);
    },
    finish() {
      if (shown) process.stderr.write('\r\x1b[K');
      const more = rejected - NAMED_REJECTIONS;
      if (more > 0) process.stderr.write(`jsprof: ${more} more ${more === 1 ? 'trace' : 'traces'} rejected\n`);
    },
  };
}

const DEFAULT_MAX_FILE_MB = 64;

/** `--max-file-size`, for the commands that read many trace files. */
export function maxFileSizeOption(): Option {
  return new Option('--max-file-size <MB>', 'traces larger than this, or gunzipping to more, are rejected').argParser(wholeNumber('--max-file-size', 1)).default(DEFAULT_MAX_FILE_MB);
}

/** The read limits `--max-file-size` sets. */
export function readLimitsOf(opts: { maxFileSize: number }): ReadLimits {
  const maxBytes = opts.maxFileSize * 1024 * 1024;
  return { maxBytes, maxInflatedBytes: maxBytes };
}

/** The trace files in `paths` (directories searched), each one that cannot be read named; none is an error. */
export function traceFilesIn(paths: string[]): string[] {
  const files = findTraceFiles(paths, (dir, error) => process.stderr.write(`jsprof: skipped ${printable(dir)}: ${describeFsError(error)}\n`));
  if (files.length === 0) throw new Error('no .json, .json.gz or .gz files in the given paths');
  return files;
}
