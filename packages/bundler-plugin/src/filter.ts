/**
 * Which modules get checks: `include` and `exclude` as unplugin and rollup take them, a string
 * (a picomatch glob, resolved against the current directory unless it starts with `**` or is
 * absolute), a RegExp (tested on the path with `/` separators), or an array of them. Only scripts
 * (`scripts`: what the bundler hands over as JavaScript) are instrumented; `include` narrows them,
 * `exclude` wins over it, and jsprof's own runtime never is (own-files.ts).
 */
import * as path from 'node:path';
import { OptionsError } from '@jsprof/policy';
import { isJsprofRuntime } from './own-files';

// picomatch ships no types of its own.
const picomatch: (glob: string, options: { dot: boolean }) => (file: string) => boolean = require('picomatch');

/** What the bundlers hand over as scripts: JavaScript and, after the build's own transforms in vite and rollup, TypeScript. */
export const SCRIPTS = /\.[cm]?[jt]sx?$/;
/** esbuild hands plugins files as loaded: only JavaScript is JavaScript there. */
export const JAVASCRIPT = /\.[cm]?js$/;

export type FilterPattern = string | RegExp | ReadonlyArray<string | RegExp>;

function patterns(name: string, value: FilterPattern | undefined): Array<string | RegExp> {
  if (value === undefined) return [];
  const list = typeof value === 'string' || value instanceof RegExp ? [value] : value;
  if (!Array.isArray(list) || list.some((p) => typeof p !== 'string' && !(p instanceof RegExp))) {
    throw new OptionsError(`option "${name}" must be a glob string, a RegExp or an array of them`);
  }
  return list;
}

const slashes = (file: string) => file.replace(/\\/g, '/');

function matcher(pattern: string | RegExp): (file: string) => boolean {
  if (pattern instanceof RegExp) {
    return (file) => {
      pattern.lastIndex = 0;
      return pattern.test(file);
    };
  }
  const glob = pattern.startsWith('**') || path.isAbsolute(pattern) ? pattern : path.resolve(process.cwd(), pattern);
  return picomatch(slashes(glob), { dot: true });
}

/** Checks the patterns now (bad options fail when the config loads) and returns the filter. */
export function moduleFilter(options: { include?: FilterPattern; exclude?: FilterPattern }, scripts: RegExp): (file: string) => boolean {
  const include = patterns('include', options.include).map(matcher);
  const exclude = patterns('exclude', options.exclude).map(matcher);
  return (file) => {
    const name = slashes(file);
    if (isJsprofRuntime(file) || exclude.some((m) => m(name))) return false;
    return scripts.test(name) && (include.length === 0 || include.some((m) => m(name)));
  };
}
