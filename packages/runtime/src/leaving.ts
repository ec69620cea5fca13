/**
 * Whether the page may be going away: hidden, or left (its `pagehide` fired, and no `pageshow`
 * since; it fires while the page is still visible). Work that takes more than microtasks then
 * (fetching function tables, gzip) would not finish before the page goes, and a trace waiting for
 * it would be lost.
 */
const realm = globalThis as any;
let left = false;
// Capturing, so that these run before the page's own listeners, which may stop a profiler and send.
realm.addEventListener?.('pagehide', () => (left = true), true);
realm.addEventListener?.('pageshow', () => (left = false), true);

export const mayBeLeaving = (): boolean => left || realm.document?.visibilityState === 'hidden';
