/**
 * The page-load build (`@jsprof/runtime/page-load`, a classic script). The sampling snippet
 * (snippet.ts) loads it, for the page loads it picks, before the instrumented build: it installs the
 * runtime as the global build does, profiles the page load as `globalThis.jsprofPageLoad` says, and
 * sends the trace. `jsprof.pageLoadTrace` resolves to the trace (null where nothing was profiled).
 */
import * as runtime from './browser';
import { defineGlobal } from './globals';
import { startTimeout } from './builtins';
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
  // The page that loaded: a single-page app may have gone to another by the time the trace is sent.
  const page = location.pathname;
  return new Promise<ProfilerTrace>((resolve, reject) => {
    // The first of these stops it; a second stop() is refused, and changes nothing. Stopped while the
    // page is hidden or left, the profiler neither waits for function tables nor lets sendTrace gzip:
    // neither would finish before the page goes (leaving.ts).
    const stop = () => profiler.stop().then(resolve, reject);
    startTimeout(stop, options.duration ?? 10_000);
    document.addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && stop());
    addEventListener('pagehide', stop);
  }).then(async (trace) => {
    if (options.send) await sendTrace(trace, { url: options.send, meta: { page, ...options.meta } });
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
