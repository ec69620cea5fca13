/**
 * What is inserted. Every front end emits exactly these texts, so instrumented code is the same
 * whichever tool produced it, and a second pass recognises the first.
 *
 * The check is `--C[0] < 0 && S()`: one load, one store and one branch while no sample is due.
 * `C` is a one-element counter the runtime owns: the sampler thread sets it to 0 when a sample is due
 * (SharedArrayBuffer), or the runtime sets it to the number of checks expected before the next one
 * (count-down, no SharedArrayBuffer). `S` captures the stack when a sample is due and re-arms `C`.
 * Without the runtime, a local stand-in re-arms `C` every 2^30 checks and does nothing else.
 */

export const RUNTIME_GLOBAL = '__jsprof';
export const COUNTER_ID = '__jsprof$c';
export const SLOW_PATH_ID = '__jsprof$s';
/** The property names of the hook object the runtime publishes. */
export const HOOK_COUNTER = 'c';
export const HOOK_SLOW_PATH = 's';

export const CHECK_SOURCE = `--${COUNTER_ID}[0] < 0 && ${SLOW_PATH_ID}();`;

/** The declarations that bind `C` and `S` in a script or module reaching the runtime through the global. */
export const GLOBAL_PRELUDE_SOURCE =
  `var ${COUNTER_ID}, ${SLOW_PATH_ID};` +
  `(function (h) { ${COUNTER_ID} = h.${HOOK_COUNTER}; ${SLOW_PATH_ID} = h.${HOOK_SLOW_PATH}; })(` +
  `typeof ${RUNTIME_GLOBAL} == "object" && ${RUNTIME_GLOBAL} ||` +
  ` { ${HOOK_COUNTER}: [1073741824], ${HOOK_SLOW_PATH}: function () { ${COUNTER_ID}[0] = 1073741824; } });`;

/** The names `@jsprof/runtime` exports for instrumented modules that import it. */
export const IMPORTED_COUNTER = 'checkCounter';
export const IMPORTED_SLOW_PATH = 'checkSlowPath';

export function importPreludeSource(importSource: string): string {
  return `import { ${IMPORTED_COUNTER} as ${COUNTER_ID}, ${IMPORTED_SLOW_PATH} as ${SLOW_PATH_ID} } from ${JSON.stringify(importSource)};`;
}

/** Whether code already carries jsprof's prelude (a second pass must change nothing). */
export function isInstrumentedSource(code: string): boolean {
  return code.includes(`var ${COUNTER_ID}, ${SLOW_PATH_ID};`) || code.includes(`${IMPORTED_COUNTER} as ${COUNTER_ID}`);
}
