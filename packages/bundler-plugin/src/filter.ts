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
/**
 * What vite and rollup hand over after the build's own transforms: scripts, and the components of
 * Vue and Svelte, whose plugins have compiled them to JavaScript by then.
 */
export const COMPILED_MODULES = /\.([cm]?[jt]sx?|vue|svelte)$/;
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

/**
 * What a module of vite or rollup holds, as a file name: a block of a component says its language
 * in its query, as vite's plugins name them (`App.vue?vue&type=style&index=0&lang.module.css` is CSS,
 * `App.vue?vue&type=script&setup=true&lang.ts` TypeScript); other modules are what their file is.
 */
export function contentName(id: string): string {
  const [file, query = ''] = id.split('?');
  const lang = /(?:^|&)lang\.([\w.-]+)(?:&|$)/.exec(query)?.[1];
  return lang ? `${file}.${lang}` : file;
}

/**
 * Checks the patterns now (bad options fail when the config loads) and returns the filter, which
 * takes the module's file, and what its code is as a file name (`contentName`) when that differs.
 */
export function moduleFilter(options: { include?: FilterPattern; exclude?: FilterPattern }, scripts: RegExp): (file: string, content?: string) => boolean {
  const include = patterns('include', options.include).map(matcher);
  const exclude = patterns('exclude', options.exclude).map(matcher);
  return (file, content = file) => {
    const name = slashes(file);
    if (isJsprofRuntime(file) || exclude.some((m) => m(name))) return false;
    return scripts.test(slashes(content)) && (include.length === 0 || include.some((m) => m(name)));
  };
}
