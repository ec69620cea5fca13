/**
 * What a second origin serves the masking tests of browser.test.ts (Chromium) and engines.test.ts
 * (all three engines): busy libraries with checks, as instrumented, with and without CORS.
 */
import { CHECK_SOURCE, ENTRY_CHECK_SOURCE, GLOBAL_PRELUDE_SOURCE } from '../../policy/src/check';

/** A busy function with checks, as a library would have after instrumentation: a classic script's global, or a module's export. */
export const busyLibrary = (name: string, exported = false) => `${GLOBAL_PRELUDE_SOURCE}
${exported ? 'export ' : ''}function ${name}(ms) { ${ENTRY_CHECK_SOURCE} try { const end = performance.now() + ms; let t = 0; while (performance.now() < end) { ${CHECK_SOURCE} t += Math.sqrt(t + 1); } return t; } finally { ${CHECK_SOURCE} } }
${exported ? '' : `self.${name} = ${name};`}`;

export const OTHER_ORIGIN_FILES: Record<string, { body: string; cors: boolean }> = {
  '/lib.js': { body: busyLibrary('libPlain'), cors: false },
  '/cors-lib.js': { body: busyLibrary('libCors'), cors: true },
  '/mod.mjs': { body: busyLibrary('libModule', true), cors: true },
  '/eval-lib.js': { body: `self.libEval = (ms) => eval(${JSON.stringify(`${busyLibrary('evalBusy')} evalBusy(ms);`)});`, cors: false },
};

/** A worker of the page's origin that imports both classic libraries of the other origin (importScripts is never CORS, so the one that allows CORS is opaque there too), profiles them and posts its trace. */
export const maskingWorker = (otherOrigin: string) => `importScripts('/jsprof.global.js', '${otherOrigin}/lib.js', '${otherOrigin}/cors-lib.js');
${GLOBAL_PRELUDE_SOURCE}
function workerDriver(ms) { ${ENTRY_CHECK_SOURCE} try { libPlain(ms); libCors(ms); } finally { ${CHECK_SOURCE} } }
onmessage = async () => {
  const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
  workerDriver(150);
  postMessage({ trace: await p.stop() });
};`;
