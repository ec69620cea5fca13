/** The options every adapter of the plugin takes. */
import type { PlacementOptions } from '@jsprof/policy';
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
