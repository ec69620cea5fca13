/** `jsprof cache info` and `jsprof cache clear`: the cache of modules instrumented by `jsprof run` and the register hook. */
import * as fs from 'node:fs';
import type { Command } from 'commander';
import { withSubcommands } from './arguments';
import { DEFAULT_MAX_MB, DIR_ENV, MAX_MB_ENV, cacheBound, cacheContents, cacheDir, clearCache } from '../module-cache';

/** Sizes as the bound is given: megabytes of 1024 × 1024 bytes (kilobytes below one). */
function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Where the cache is: a directory, or nothing yet; anything else (`$JSPROF_CACHE_DIR` naming a file) is an error. */
function cacheDirectory(): string {
  const dir = cacheDir();
  if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) throw new Error(`${dir}${process.env[DIR_ENV] ? ` (${DIR_ENV})` : ''}: not a directory`);
  return dir;
}

export function addCacheCommand(program: Command, setExitCode: (code: number) => void): void {
  const cache = program
    .command('cache')
    .usage('<info|clear>')
    .description('Show or clear the cache of instrumented modules that makes a second `jsprof run` fast.')
    .addHelpText(
      'after',
      `\nThe cache is in $${DIR_ENV} if set, else node_modules/.cache/jsprof in the current directory if node_modules exists,` +
        `\nelse jsprof-cache in the system temp directory. A run that instrumented anything ends by removing the least recently` +
        `\nused modules until the cache is within $${MAX_MB_ENV} megabytes (default ${DEFAULT_MAX_MB}).`,
    );
  cache
    .command('info')
    .description('Print where the cache is, how many modules it holds, its size and its bound.')
    .action(() => {
      const dir = cacheDirectory();
      const { entries, bytes } = cacheContents(dir);
      const bound = cacheBound();
      const boundText = size(bound.bytes) + (bound.invalid === undefined ? '' : ` (${MAX_MB_ENV}=${bound.invalid} is not a number ≥ 0, so the default)`);
      process.stdout.write(`location  ${dir}\nentries   ${entries} modules\nsize      ${size(bytes)}\nbound     ${boundText}\n`);
    });

  cache
    .command('clear')
    .description('Remove every cached module (nothing else in the cache directory).')
    .action(() => {
      const dir = cacheDirectory();
      const { bytes } = cacheContents(dir);
      const removed = clearCache(dir);
      process.stdout.write(`jsprof: removed ${removed} cached modules (${size(bytes)}) from ${dir}\n`);
    });

  withSubcommands(cache, 'info|clear', (word) => `${word === undefined ? 'which? ' : `no cache command "${word}"; `}info or clear`, setExitCode);
}
