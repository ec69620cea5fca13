/**
 * The runtime in browsers (`@jsprof/runtime/browser`, and the classic script): where the page or
 * worker is cross-origin isolated (SharedArrayBuffer exists), a dedicated Worker made from a Blob
 * samples as a thread; elsewhere, or where a Content-Security-Policy forbids it, the count-down does.
 * Sampling pauses while the page is hidden.
 */
import { getEngine } from './hook';
import type { Ticker } from './engine';
import { TICKER_LOOP, startTicker } from './ticker';

export * from './index';

function startBrowserTicker(counter: Int32Array): Ticker | null {
  if (typeof Worker !== 'function' || typeof Blob !== 'function' || typeof URL !== 'function' || !URL.createObjectURL) return null;
  return startTicker(counter, (data) => {
    const url = URL.createObjectURL(new Blob([`onmessage = (e) => { const data = e.data; ${TICKER_LOOP} close(); };`], { type: 'text/javascript' }));
    const worker = new Worker(url);
    worker.onerror = () => {};
    worker.postMessage(data);
    return () => {
      worker.terminate();
      URL.revokeObjectURL(url);
    };
  });
}

getEngine().platform.startTicker = startBrowserTicker;

// Sampling pauses while the page is hidden.
const doc = (globalThis as any).document;
if (doc && typeof doc.addEventListener === 'function') {
  const follow = () => getEngine().setPaused(doc.visibilityState === 'hidden');
  doc.addEventListener('visibilitychange', follow);
  follow();
}
