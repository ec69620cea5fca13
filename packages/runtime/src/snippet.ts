/**
 * The sampling snippet (`@jsprof/runtime/snippet`, used by build tools): a small inline script that
 * decides, per page load, which build the page runs. With probability `rate` (or when the page's
 * query has `jsprof-sample=1`; `=0` never) it loads the page-load runtime (page-load.ts), which starts
 * a Profiler, then the instrumented build's scripts; otherwise the plain build's, and nothing else.
 * It stands in the page where the build's `<script>` and `<link rel="modulepreload">` tags were.
 */
import { createHash } from 'node:crypto';
import type { PageLoadOptions } from './page-load';

export type { PageLoadOptions } from './page-load';

/** A script (or a module preload) of the page, in each build. */
export interface SnippetScript {
  plain: string;
  instrumented: string;
  module?: boolean;
  /** The tag's `crossorigin` attribute, if it has one. */
  crossOrigin?: string;
}

export interface SnippetOptions {
  /** The fraction of page loads that run the instrumented build and are profiled, 0 to 1. */
  rate: number;
  /** URL of the page-load runtime (`@jsprof/runtime/page-load`), deployed with the instrumented build. */
  runtime: string;
  /** In the order the page runs them. */
  scripts: SnippetScript[];
  preloads?: SnippetScript[];
  profile?: PageLoadOptions;
}

type Tag = [plain: string, instrumented: string, module: 0 | 1, crossOrigin: string | null];

interface Config {
  rate: number;
  runtime: string;
  scripts: Tag[];
  preloads: Tag[];
  profile: PageLoadOptions;
}

/** Runs in the page as the snippet's text, so it stays ES5 and refers to nothing outside itself. */
function chooseBuild(c: Config) {
  var forced = /[?&]jsprof-sample=([01])(&|$)/.exec(location.search);
  var sampled = forced ? forced[1] === '1' : Math.random() < c.rate;
  var which: 0 | 1 = sampled ? 1 : 0;
  function add(tag: string, src: string, module: 0 | 1, crossOrigin: string | null) {
    var element = document.createElement(tag) as HTMLScriptElement & HTMLLinkElement;
    if (tag === 'link') {
      element.rel = 'modulepreload';
      element.href = src;
    } else {
      if (module) element.type = 'module';
      element.async = false;
      element.src = src;
    }
    if (crossOrigin !== null) element.crossOrigin = crossOrigin;
    document.head.appendChild(element);
  }
  if (sampled) {
    (window as any).jsprofPageLoad = c.profile;
    add('script', c.runtime, 0, null);
  }
  for (var i = 0; i < c.preloads.length; i++) add('link', c.preloads[i][which], 1, c.preloads[i][3]);
  for (var j = 0; j < c.scripts.length; j++) add('script', c.scripts[j][which], c.scripts[j][2], c.scripts[j][3]);
}

/**
 * The snippet's `<script>` element, and the `script-src` source a Content-Security-Policy needs to
 * allow it (its SHA-256; the scripts it adds must be allowed too, e.g. by `'self'`).
 */
export function samplingSnippet(options: SnippetOptions): { html: string; csp: string } {
  if (typeof options.rate !== 'number' || !(options.rate >= 0 && options.rate <= 1)) throw new TypeError(`jsprof: the sampling rate must be a number from 0 to 1 (got ${String(options.rate)})`);
  if (!options.scripts?.length) throw new TypeError('jsprof: the sampling snippet needs the scripts the page runs');
  const tag = (s: SnippetScript): Tag => [s.plain, s.instrumented, s.module ? 1 : 0, s.crossOrigin ?? null];
  const config: Config = { rate: options.rate, runtime: options.runtime, scripts: options.scripts.map(tag), preloads: (options.preloads ?? []).map(tag), profile: options.profile ?? {} };
  // Indentation dropped (the function has no multi-line strings); `<` escaped, so no URL or meta can end the script element early.
  const code = `(${chooseBuild.toString().replace(/\n\s*/g, '\n')})(${JSON.stringify(config).replace(/</g, '\\u003c')});`;
  return { html: `<script>${code}</script>`, csp: `'sha256-${createHash('sha256').update(code).digest('base64')}'` };
}
