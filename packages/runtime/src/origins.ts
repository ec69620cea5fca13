/**
 * CORS-style origin masking, as the spec and Chromium do it: a frame of a script from another origin
 * is left out (its time goes to the nearest kept caller, its URL never reaches `resources`) unless
 * the script was fetched in CORS mode and passed: a classic `<script crossorigin>`, or a module (a
 * failed CORS check would not have run either). `coalesce` names such frames "(cross-origin)"
 * instead. What the page cannot tell (a script since removed, `importScripts` in a worker) is masked,
 * and so is a script of the page's own origin redirected to another.
 * User names and passwords in URLs never reach a trace.
 */
import { FrameResolver, NamedFrame, defaultResolver } from './trace';
import { OwnMap, OwnSet } from './builtins';

export type CrossOriginFrames = 'drop' | 'coalesce';

/** The URL without user name and password. */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1');
}

function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    // blob: URLs carry their creator's origin; data: URLs are fetched like same-origin ones.
    if (parsed.protocol === 'data:') return 'data:';
    return parsed.origin === 'null' ? null : parsed.origin;
  } catch {
    return null;
  }
}

/**
 * Resource Timing's `responseStatus` by URL, from an observer that sees every entry as it comes (from
 * when the runtime loads; those before, from the buffer): by the time frames are resolved the buffer
 * (250 entries by default) may be full, or cleared by the page. 0 is an opaque answer (no-cors), and
 * stays once seen; JavaScriptCore gives no `responseStatus`.
 */
const answers = new OwnMap<string, number>();
/** What fetches scripts: `<script>` and imports, `<link rel=modulepreload>`, `importScripts`. */
const SCRIPT_FETCHES = /^(script|link|other)$/;
let observer: any;
const realm = globalThis as any;
/**
 * The realm's origin, read as the runtime loads: its location's, or where that is "null" (an
 * about:srcdoc or about:blank document), `self.origin`, which such a document has from its creator
 * (and which a page's own `var origin` replaces, so it comes second); none without a location
 * (Node), where nothing is masked.
 */
const ownOrigin: string | undefined = realm.location && (realm.location.origin !== 'null' || typeof realm.origin !== 'string' ? realm.location.origin : realm.origin);

/**
 * Keeps the answers that decide something, so that the map stays small whatever the page loads: an
 * opaque one (a script redirected away from the page's origin is masked), or another origin's that
 * passed CORS (its script is kept).
 */
function note(entries: any[]): OwnMap<string, number> {
  for (const entry of entries) {
    if (!SCRIPT_FETCHES.test(entry.initiatorType)) continue;
    const name = withoutCredentials(entry.name);
    const status = entry.responseStatus;
    if (status === 0 || (status > 0 && answers.get(name) !== 0 && originOf(name) !== ownOrigin)) answers.set(name, status);
  }
  return answers;
}

function watchResources(): void {
  try {
    observer ??= new realm.PerformanceObserver((list: any) => note(list.getEntries()));
    observer.observe({ type: 'resource', buffered: true });
  } catch {
    // no Resource Timing: the DOM alone decides
  }
}

/** Every answer so far, those not yet delivered to the observer included. */
function readAnswers(): OwnMap<string, number> {
  try {
    return note(observer.takeRecords());
  } catch {
    return answers;
  }
}

/**
 * Script URLs by how they were fetched. In CORS mode (so they ran only if CORS passed): the
 * document's `<script crossorigin>` and module scripts, and whatever Resource Timing saw answered
 * with a visible status (modules imported from another origin are found this way). Opaque (no-cors):
 * the document's other `<script src>`, and Resource Timing's opaque answers. `importScripts` fetches
 * without CORS: its scripts never pass.
 */
function scriptFetches(): { cors: Set<string>; opaque: Set<string> } {
  const cors = new OwnSet<string>();
  const opaque = new OwnSet<string>();
  for (const script of Array.from(realm.document?.scripts ?? []) as any[]) {
    if (!script.src) continue;
    const passed = script.type === 'module' || script.hasAttribute('crossorigin');
    (passed ? cors : opaque).add(withoutCredentials(script.src));
  }
  readAnswers().forEach((status, url) => (status ? cors : opaque).add(url));
  return { cors, opaque };
}

const QUERY_AND_FRAGMENT = /[?#][^]*$/;

/**
 * Whether the script at `url` was fetched in CORS mode. JavaScriptCore's stacks name scripts without
 * their query and fragment: such a URL stands for every script at that path, and passes only if one
 * of them was fetched with CORS and none of those seen was opaque.
 */
function passedCors(url: string): boolean {
  const { cors, opaque } = scriptFetches();
  if (cors.has(url)) return true;
  if (QUERY_AND_FRAGMENT.test(url)) return false;
  const atPath = (urls: Set<string>) => Array.from(urls).some((u) => u.replace(QUERY_AND_FRAGMENT, '') === url);
  return atPath(cors) && !atPath(opaque);
}

/**
 * Whether a script at a URL of the page's own origin came from another origin, through a redirect
 * (Chromium names it by the URL it asked for): Resource Timing saw it answered opaquely.
 */
const redirectedAway = (url: string): boolean => readAnswers().get(url) === 0;

/**
 * A resolver that masks the frames of scripts the page may not see, for the realm's own origin.
 * Resolves the others with `next`.
 */
export function maskingResolver(mode: () => CrossOriginFrames, next: FrameResolver = defaultResolver): FrameResolver {
  if (ownOrigin !== undefined) watchResources();
  return (frame) => {
    const named = next(frame);
    if (!named || named.url === undefined) return named;
    const url = withoutCredentials(named.url);
    const origin = originOf(url);
    const sameOrigin = ownOrigin === undefined || origin === 'data:' || (origin !== null && origin === ownOrigin && !redirectedAway(url));
    // Each raw frame resolves once per trace, so the document's scripts are read only for the few cross-origin ones.
    if (!sameOrigin && !passedCors(url)) return mode() === 'coalesce' ? { name: '(cross-origin)' } : null;
    const out: NamedFrame = { ...named, url };
    return out;
  };
}
