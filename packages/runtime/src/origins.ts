/**
 * CORS-style origin masking, as the spec and Chromium do it: a frame of a script from another origin
 * is left out (its time goes to the nearest kept caller, its URL never reaches `resources`) unless
 * the script was fetched in CORS mode and passed: a classic `<script crossorigin>`, or a module (a
 * failed CORS check would not have run either). `coalesce` names such frames "(cross-origin)"
 * instead. What the page cannot tell (a script since removed, `importScripts` in a worker) is masked.
 * User names and passwords in URLs never reach a trace.
 */
import { FrameResolver, NamedFrame, defaultResolver } from './trace';

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
 * Script URLs that were fetched in CORS mode (and so ran only if CORS passed): the document's
 * `<script crossorigin>` and module scripts, and whatever Resource Timing saw answered with a
 * visible status (an opaque, no-cors response has `responseStatus` 0: modules imported from
 * another origin are found this way, `importScripts` and plain `<script>` are not).
 */
function corsScripts(realm: any): Set<string> {
  const out = new Set<string>();
  for (const script of Array.from(realm.document?.scripts ?? []) as any[]) {
    if (script.src && (script.type === 'module' || script.hasAttribute('crossorigin'))) out.add(withoutCredentials(script.src));
  }
  try {
    for (const entry of realm.performance?.getEntriesByType?.('resource') ?? []) {
      if (entry.responseStatus > 0) out.add(withoutCredentials(entry.name));
    }
  } catch {
    // no Resource Timing: the DOM alone decides
  }
  return out;
}

/**
 * A resolver that masks the frames of scripts the page may not see, for the realm's own origin.
 * Resolves the others with `next`.
 */
export function maskingResolver(mode: () => CrossOriginFrames, next: FrameResolver = defaultResolver): FrameResolver {
  const realm = globalThis as any;
  return (frame) => {
    const named = next(frame);
    if (!named || named.url === undefined) return named;
    const url = withoutCredentials(named.url);
    const own = realm.location?.origin;
    const origin = originOf(url);
    // A realm with no location (not a window or worker) has no origin to mask from.
    const sameOrigin = own === undefined || origin === 'data:' || (origin !== null && origin === own);
    // Each raw frame resolves once per trace, so the document's scripts are read only for the few cross-origin ones.
    if (!sameOrigin && !corsScripts(realm).has(url)) return mode() === 'coalesce' ? { name: '(cross-origin)' } : null;
    const out: NamedFrame = { ...named, url };
    return out;
  };
}
