/**
 * The sampling snippet (`@jsprof/runtime/snippet`, used by build tools): a small inline script that
 * decides, per page load, which build the page runs. With probability `rate` (or when the page's
 * query has `jsprof-sample=1`; `=0` never) it loads the page-load runtime (page-load.ts), which starts
 * a Profiler, then the instrumented build's scripts; otherwise the plain build's, and nothing else.
 * It stands in the page where the build's `<script>` and `<link rel="modulepreload">` tags were.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
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

/** A `<script src>` or `<link rel="modulepreload">` tag of a page, where it is in the page's text. */
export interface PageScriptTag {
  start: number;
  end: number;
  preload: boolean;
  url: string;
  module: boolean;
  crossOrigin?: string;
}

const TAGS = /<script\b[^>]*>\s*<\/script\s*>|<link\b[^>]*>/gi;
const ATTRIBUTES = /\s([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** The page's `<script src>` and `<link rel="modulepreload">` tags, in order. */
export function scriptTagsOf(html: string): PageScriptTag[] {
  const tags: PageScriptTag[] = [];
  for (const match of html.matchAll(TAGS)) {
    const open = match[0].slice(0, match[0].indexOf('>') + 1);
    const attributes = new Map<string, string>();
    for (const a of open.matchAll(ATTRIBUTES)) attributes.set(a[1].toLowerCase(), a[2] ?? a[3] ?? a[4] ?? '');
    const preload = open.toLowerCase().startsWith('<link');
    const url = attributes.get(preload ? 'href' : 'src');
    if (url === undefined || (preload && attributes.get('rel')?.toLowerCase() !== 'modulepreload')) continue;
    tags.push({ start: match.index!, end: match.index! + match[0].length, preload, url, module: preload || attributes.get('type') === 'module', crossOrigin: attributes.get('crossorigin') });
  }
  return tags;
}

/**
 * The page with the snippet where the first of `tags` was and the others gone; each tag paired with
 * the URL of its instrumented copy, as the page refers to it.
 */
export function withSamplingSnippet(html: string, tags: { tag: PageScriptTag; instrumented: string }[], options: Omit<SnippetOptions, 'scripts' | 'preloads'>): string {
  if (!tags.length) return html;
  const entry = ({ tag, instrumented }: { tag: PageScriptTag; instrumented: string }): SnippetScript => ({ plain: tag.url, instrumented, module: tag.module, crossOrigin: tag.crossOrigin });
  const snippet = samplingSnippet({ ...options, scripts: tags.filter((t) => !t.tag.preload).map(entry), preloads: tags.filter((t) => t.tag.preload).map(entry) });
  const sorted = [...tags].sort((a, b) => a.tag.start - b.tag.start);
  let out = html;
  for (let i = sorted.length - 1; i >= 0; i--) out = out.slice(0, sorted[i].tag.start) + (i === 0 ? snippetElement(snippet) : '') + out.slice(sorted[i].tag.end);
  return out;
}

/** The snippet's element, after a comment giving the Content-Security-Policy source that allows it. */
export function snippetElement(snippet: { html: string; csp: string }): string {
  return `<!-- jsprof: the sampling snippet (Content-Security-Policy script-src ${snippet.csp}) -->\n${snippet.html}`;
}

/** The page-load runtime (`@jsprof/runtime/page-load`) and the name to deploy it under, with a hash of its content. */
export function pageLoadRuntime(): { fileName: string; code: Buffer } {
  const code = fs.readFileSync(path.join(__dirname, 'browser', 'jsprof.page-load.js'));
  return { fileName: `jsprof.page-load.${createHash('sha256').update(code).digest('hex').slice(0, 8)}.js`, code };
}
