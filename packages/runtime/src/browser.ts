/**
 * The runtime in browsers (`@jsprof/runtime/browser`, and the classic script): where the page or
 * worker is cross-origin isolated (SharedArrayBuffer exists), a dedicated Worker made from a Blob
 * samples as a thread; elsewhere, or where a Content-Security-Policy forbids it, the count-down does.
 * Sampling pauses while the page is hidden. Frames of cross-origin scripts are masked (origins.ts);
 * the others are named from their scripts' function tables where there are some (function-tables.ts).
 */
import { getEngine } from './hook';
import type { Ticker } from './engine';
import { TICKER_LOOP, startTicker } from './ticker';
import { CrossOriginFrames, maskingResolver } from './origins';
import { FrameResolver, defaultResolver } from './trace';
import type { RawFrame } from './capture';
import { functionTableResolver, loadFunctionTables } from './function-tables';
import { OwnSet } from './builtins';
import { mayBeLeaving } from './leaving';

export * from './index';
export type { CrossOriginFrames } from './origins';

let crossOrigin: CrossOriginFrames = 'drop';

/** Frames of cross-origin scripts that did not opt in with CORS: left out (`drop`, the default) or named "(cross-origin)". */
export function setCrossOriginFrames(mode: CrossOriginFrames): void {
  crossOrigin = mode === 'coalesce' ? 'coalesce' : 'drop';
}

function startBrowserTicker(counter: Int32Array): Ticker | null {
  return startTicker(counter, (data) => {
    let url: string;
    let worker: Worker;
    try {
      url = URL.createObjectURL(new Blob([`onmessage = (e) => { const data = e.data; ${TICKER_LOOP} close(); };`], { type: 'text/javascript' }));
      worker = new Worker(url);
    } catch (error) {
      // no Worker here, or the page refused it (Trusted Types refuse `new Worker(url)`): each try would log the refusal again
      getEngine().platform.startTicker = undefined;
      throw error;
    }
    worker.onerror = () => {};
    worker.postMessage(data);
    return () => {
      worker.terminate();
      URL.revokeObjectURL(url);
    };
  });
}

const visible = maskingResolver(() => 'drop');
const doc = (globalThis as any).document;

/**
 * The function tables of the scripts these frames are in, for those the page may see (not its own
 * document's inline scripts); none while the page may be going away: the trace would wait for them, and be lost.
 */
async function loadTablesFor(frames: RawFrame[]): Promise<void> {
  if (mayBeLeaving()) return;
  // A worker's location is its own script, which may have a table; a document's is its inline scripts'.
  const page = doc && (globalThis as any).location?.href?.replace(/#.*$/, '');
  const urls = new OwnSet<string>();
  for (const frame of frames) if (frame.url && frame.url !== page && !urls.has(frame.url) && visible(frame)) urls.add(frame.url);
  return loadFunctionTables(urls);
}

getEngine().platform.startTicker = startBrowserTicker;
getEngine().resolver = maskingResolver(() => crossOrigin, functionTableResolver(defaultResolver));
getEngine().prepareFrames = loadTablesFor;

/** Sets how frames are named and placed; frames of cross-origin scripts stay masked whatever it says. */
export function setFrameResolver(resolver: FrameResolver): void {
  getEngine().resolver = maskingResolver(() => crossOrigin, resolver);
}

// Sampling pauses while the page is hidden.
if (doc && typeof doc.addEventListener === 'function') {
  const follow = () => getEngine().setPaused(doc.visibilityState === 'hidden');
  doc.addEventListener('visibilitychange', follow);
  follow();
}
