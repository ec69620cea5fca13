/** The options every adapter of the plugin takes. */
import { OptionsError, type PlacementOptions } from '@jsprof/policy';
import type { FilterPattern } from './filter';
import type { SamplingOptions } from './sampling';

export interface JsprofPluginOptions extends Partial<PlacementOptions> {
  /** Which scripts, as unplugin and rollup take it (filter.ts): by default every one, `node_modules` included (third-party time is time too). */
  include?: FilterPattern;
  /** Scripts left alone, as unplugin and rollup take it. */
  exclude?: FilterPattern;
  /** A plain build and an instrumented one beside it, and a snippet that picks one per page load (sampling.ts). */
  sampling?: SamplingOptions;
}

const KNOWN = ['threshold', 'loopingFunctions', 'loops', 'exits', 'include', 'exclude', 'sampling'];

/**
 * Refuses, when the config loads, an option the plugin does not take: a misspelt one, or the other
 * front ends' `runtime` and `importSource` (the plugin's code always reaches the runtime through the
 * global, which a page loads first). Each option's value is checked by what reads it.
 */
export function checkOptionNames(options: unknown): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new OptionsError('options must be an object, e.g. { threshold: 10 }');
  for (const key of Object.keys(options)) {
    if (KNOWN.includes(key)) continue;
    const why = key === 'runtime' || key === 'importSource' ? `the plugin does not take "${key}": its code always reaches the runtime through globalThis.__jsprof (load @jsprof/runtime/global first)` : `unknown option "${key}"`;
    throw new OptionsError(`${why}; known options are: ${KNOWN.join(', ')}`);
  }
}
