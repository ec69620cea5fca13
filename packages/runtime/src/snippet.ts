/**
 * The sampling snippet (`@jsprof/runtime/snippet`, used by build tools): an inline script that
 * decides, per page load, which build the page runs. It stands before the build's `<script src>` and
 * `<link rel="modulepreload">` tags, which stay in the page as they were, followed by the comment
 * `<!--jsprof:end-->`. A page load not picked runs them: exactly the plain build, found by the
 * browser's preload scanner as before. With probability `rate` (or when the page's query has
 * `jsprof-sample=1`; `=0` never), and never on a slow or data-saving connection, the snippet writes
 * into the page, where it stands, the page-load runtime (page-load.ts, which starts a Profiler) and
 * the same tags pointing at the instrumented build, then `<!--`: the parser reads the plain build's
 * tags as a comment, up to the end comment. Written by the parser, the tags keep what they were
 * (deferred, a module, async, blocking) and their order, in every engine.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PageLoadOptions } from './page-load';

export type { PageLoadOptions } from './page-load';

export interface SnippetOptions {
  /** The fraction of page loads that run the instrumented build and are profiled, 0 to 1. */
  rate: number;
  /** URL of the page-load runtime (`@jsprof/runtime/page-load`), deployed with the instrumented build. */
  runtime: string;
  profile?: PageLoadOptions;
}

/** A `<script src>` or `<link rel="modulepreload">` tag of a page, where it is in the page's text. */
export interface PageScriptTag {
  start: number;
  end: number;
  text: string;
  url: string;
}

/** A tag of the plain build and the URL of its file in the instrumented build, as the page names it. */
export interface TagPair {
  tag: PageScriptTag;
  instrumented: string;
}

export const END_COMMENT = '<!--jsprof:end-->';

interface Config {
  rate: number;
  tags: string;
  profile: PageLoadOptions;
}

/** Runs in the page as the snippet's text, so it stays ES5 and refers to nothing outside itself. */
function chooseBuild(c: Config) {
  var forced = /[?&]jsprof-sample=([01])(&|$)/.exec(location.search);
  var connection = (navigator as any).connection;
  var slow = connection && (connection.saveData || /2g/.test(connection.effectiveType));
  var sampled = forced ? forced[1] === '1' : !slow && Math.random() < c.rate;
  if (!sampled || document.readyState !== 'loading') return;
  var nonce = document.currentScript && (document.currentScript as HTMLScriptElement).nonce;
  var html: any = (nonce ? c.tags.replace(/\x3Cscript /g, '\x3Cscript nonce="' + nonce + '" ') : c.tags) + '\x3C!--';
  var trustedTypes = (window as any).trustedTypes;
  try {
    // Where Trusted Types guard document.write, the page's CSP lets a policy named jsprof pass the tags.
    if (trustedTypes && trustedTypes.createPolicy) html = trustedTypes.createPolicy('jsprof', { createHTML: function (s: string) { return s; } }).createHTML(html);
  } catch (e) {}
  (window as any).jsprofPageLoad = c.profile;
  try {
    document.write(html);
  } catch (e) {
    // refused: the page runs its plain build
    delete (window as any).jsprofPageLoad;
  }
}

/**
 * The snippet's `<script>` element, given the instrumented build's tags (the runtime's is added
 * first), and the `script-src` source a Content-Security-Policy needs to allow it (its SHA-256).
 */
export function samplingSnippet(instrumentedTags: string[], options: SnippetOptions): { html: string; csp: string } {
  if (typeof options.rate !== 'number' || !(options.rate >= 0 && options.rate <= 1)) throw new TypeError(`jsprof: the sampling rate must be a number from 0 to 1 (got ${String(options.rate)})`);
  if (!instrumentedTags.length) throw new TypeError('jsprof: the sampling snippet needs the tags of the scripts the page runs');
  const tags = [`<script src="${escapeAttribute(options.runtime)}"></script>`, ...instrumentedTags].join('');
  const config: Config = { rate: options.rate, tags, profile: options.profile ?? {} };
  // Indentation dropped (the function has no multi-line strings); every `<` of the configuration
  // escaped, so that nothing in it ends the script element or starts a comment in it.
  const code = `(${chooseBuild.toString().replace(/\n\s*/g, '\n')})(${JSON.stringify(config).replace(/</g, '\\u003c')});`;
  return { html: `<script>${code}</script>`, csp: `'sha256-${createHash('sha256').update(code).digest('base64')}'` };
}

/**
 * What stands in a page in place of its build's tags: a comment giving the Content-Security-Policy
 * source that allows the snippet, the snippet, the plain tags, the end comment.
 */
export function samplingBlock(pairs: { plain: string; instrumented: string }[], options: SnippetOptions): string {
  const snippet = samplingSnippet(
    pairs.map((p) => p.instrumented),
    options,
  );
  return [`<!-- jsprof: the sampling snippet (Content-Security-Policy script-src ${snippet.csp}) -->`, snippet.html, ...pairs.map((p) => p.plain), END_COMMENT].join('\n');
}

const BLOCK_START = /<!-- jsprof: the sampling snippet [^]*?-->\r?\n<script\b[^>]*>[^]*?<\/script>\r?\n/;

/**
 * The page without the sampling snippet it has (samplingBlock's): its plain tags where the snippet
 * had gathered them, one after the other, so that the snippet put in again gives the same page.
 */
export function withoutSamplingSnippet(html: string): string {
  const start = BLOCK_START.exec(html);
  const end = start ? html.indexOf(END_COMMENT, start.index) : -1;
  if (!start || end < 0) return html;
  const plain = scriptTagsOf(html.slice(start.index + start[0].length, end)).map((tag) => tag.text);
  return html.slice(0, start.index) + plain.join('') + html.slice(end + END_COMMENT.length);
}

const TAGS = /<script\b[^>]*>\s*<\/script\s*>|<link\b[^>]*>/gi;
const ATTRIBUTES = /\s([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** The page's `<script src>` and `<link rel="modulepreload">` tags, in order. */
export function scriptTagsOf(html: string): PageScriptTag[] {
  const tags: PageScriptTag[] = [];
  for (const match of html.matchAll(TAGS)) {
    const attributes = attributesOf(match[0]);
    const preload = match[0].slice(0, 5).toLowerCase() === '<link';
    const url = attributes.get(preload ? 'href' : 'src');
    if (url === undefined || (preload && attributes.get('rel')?.toLowerCase() !== 'modulepreload')) continue;
    tags.push({ start: match.index!, end: match.index! + match[0].length, text: match[0], url: decodeEntities(url) });
  }
  return tags;
}

function attributesOf(tag: string): Map<string, string> {
  const open = tag.slice(0, tag.indexOf('>') + 1);
  const attributes = new Map<string, string>();
  for (const a of open.matchAll(ATTRIBUTES)) if (!attributes.has(a[1].toLowerCase())) attributes.set(a[1].toLowerCase(), a[2] ?? a[3] ?? a[4] ?? '');
  return attributes;
}

/** The tag with its URL (`src`, or a preload's `href`) replaced; its other attributes as they were. */
function retargeted(tag: PageScriptTag, url: string): string {
  const name = tag.text.slice(0, 5).toLowerCase() === '<link' ? 'href' : 'src';
  const open = tag.text.indexOf('>') + 1;
  const attribute = new RegExp(`(\\s${name}\\s*=\\s*)(?:"[^"]*"|'[^']*'|[^\\s"'=<>\`]+)`, 'i');
  return tag.text.slice(0, open).replace(attribute, (_, lead) => `${lead}"${escapeAttribute(url)}"`) + tag.text.slice(open);
}

/**
 * The page with the sampling block where the first of `pairs` was; the other tags of the build move
 * there too, in their order (the comment that hides them must hold nothing else).
 */
export function withSamplingSnippet(html: string, pairs: TagPair[], options: SnippetOptions): string {
  if (!pairs.length) return html;
  const sorted = [...pairs].sort((a, b) => a.tag.start - b.tag.start);
  const block = samplingBlock(
    sorted.map((p) => ({ plain: p.tag.text, instrumented: retargeted(p.tag, p.instrumented) })),
    options,
  );
  let out = html;
  for (let i = sorted.length - 1; i >= 0; i--) out = out.slice(0, sorted[i].tag.start) + (i === 0 ? block : '') + out.slice(sorted[i].tag.end);
  return out;
}

/** The `<script>` tag that loads `url`, for pages a build does not write. */
export function scriptTag(url: string, module: boolean): string {
  return `<script${module ? ' type="module"' : ''} src="${escapeAttribute(url)}"></script>`;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function decodeEntities(value: string): string {
  return value.replace(/&(amp|quot|lt|gt|#39|apos);/g, (_, e) => ({ amp: '&', quot: '"', lt: '<', gt: '>', '#39': "'", apos: "'" })[e as string]!);
}

/** The page-load runtime (`@jsprof/runtime/page-load`) and the name to deploy it under, with a hash of its content. */
export function pageLoadRuntime(): { fileName: string; code: Buffer } {
  const code = fs.readFileSync(path.join(__dirname, 'browser', 'jsprof.page-load.js'));
  return { fileName: `jsprof.page-load.${createHash('sha256').update(code).digest('hex').slice(0, 8)}.js`, code };
}
