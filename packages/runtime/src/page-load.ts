/**
 * The page-load build (`@jsprof/runtime/page-load`, a classic script). The sampling snippet
 * (snippet.ts) loads it, for the page loads it picks, before the instrumented build: it installs the
 * runtime as the global build does, profiles the page load as `globalThis.jsprofPageLoad` says, and
 * sends the trace. `jsprof.pageLoadTrace` resolves to the trace (null where nothing was profiled).
 */
import * as runtime from './browser';
import { defineGlobal } from './globals';
import { cancelTimeout, startTimeout } from './builtins';
import { sendTrace } from './send';
import type { ProfilerTrace } from './trace';

export interface PageLoadOptions {
  /** 10 ms by default. */
  sampleInterval?: number;
  /** 6,000 by default: a minute at 10 ms. */
  maxBufferSize?: number;
  /** How long to profile after the runtime loads, in ms (10,000 by default); a page hidden or left sooner stops it then. */
  duration?: number;
  /** Where `sendTrace` POSTs the trace; without it the trace is only `jsprof.pageLoadTrace`. */
  send?: string;
  /** Travels with the trace; `page` (the path of the page that loaded) is added unless given. */
  meta?: Record<string, string | number | boolean>;
}

function profilePageLoad(options: PageLoadOptions): Promise<ProfilerTrace> {
  const profiler = new runtime.Profiler({ sampleInterval: options.sampleInterval ?? 10, maxBufferSize: options.maxBufferSize ?? 6000 });
  const realm = globalThis as any;
  const doc = realm.document;
  // The page that loaded: a single-page app may have gone to another by the time the trace is sent.
  const page: string = realm.location?.pathname ?? '';
  let leaving = false;
  return new Promise<ProfilerTrace>((resolve, reject) => {
    const stopLater = startTimeout(() => {
      unlisten();
      profiler.stop().then(resolve, reject); // fetches the scripts' function tables
    }, options.duration ?? 10_000);
    // A page going away cannot wait for function tables, or for gzip.
    const stopNow = () => {
      cancelTimeout(stopLater);
      unlisten();
      leaving = true;
      try {
        resolve(profiler.stopSync());
      } catch (error) {
        reject(error); // never into the page's event dispatch
      }
    };
    const onVisibility = () => doc.visibilityState === 'hidden' && stopNow();
    const unlisten = () => {
      doc?.removeEventListener?.('visibilitychange', onVisibility);
      realm.removeEventListener?.('pagehide', stopNow);
    };
    doc?.addEventListener?.('visibilitychange', onVisibility);
    realm.addEventListener?.('pagehide', stopNow);
  }).then(async (trace) => {
    if (options.send) await sendTrace(trace, { url: options.send, meta: { page, ...options.meta }, gzip: !leaving });
    return trace;
  });
}

runtime.install();
defineGlobal('jsprof', { ...runtime, pageLoadTrace: pageLoadTrace() });

async function pageLoadTrace(): Promise<ProfilerTrace | null> {
  const options = (globalThis as any).jsprofPageLoad;
  if (!options || typeof options !== 'object') return null;
  try {
    return await profilePageLoad(options);
  } catch {
    return null;
  }
}
