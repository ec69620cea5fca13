/**
 * What is inserted. Every front end emits exactly these texts, so instrumented code is the same
 * whichever tool produced it, and a second pass recognises the first.
 *
 * A check is `--C[i] < 0 && S(k)`: one load, one store and one branch while no sample is due.
 * `C` is a two-element counter the runtime owns: the sampler thread sets both to 0 when a sample is
 * due (SharedArrayBuffer). Without a thread, the runtime sets `C[0]` to the number of checks
 * expected before the next sample (a count-down) and keeps `C[1]` at 0, so that the exit of every
 * function with loops of its own reads the clock: a count of checks cannot see time pass while
 * such a function loops between sparse checks, and its exit is where that time is charged.
 * `S` captures the stack when a sample is due and re-arms `C`. Without the runtime, a local
 * stand-in re-arms `C` every 2^30 checks and does nothing else.
 *
 * The check at a function's entry passes 1: the function has not run yet, so the time since the
 * sample fell due was spent by its callers, and the sample leaves the function's own frame out.
 * The check at the exit of a function with loops passes 2, the others nothing; they keep the whole stack.
 */

export const RUNTIME_GLOBAL = '__jsprof';
export const COUNTER_ID = '__jsprof$c';
export const SLOW_PATH_ID = '__jsprof$s';
/** The property names of the hook object the runtime publishes. */
export const HOOK_COUNTER = 'c';
export const HOOK_SLOW_PATH = 's';

/** The check at a function's entry. */
export const ENTRY_CHECK_SOURCE = `--${COUNTER_ID}[0] < 0 && ${SLOW_PATH_ID}(1);`;
/** The check at the exit of a function with loops of its own, in a `finally` (counted on `C[1]`, see above). */
export const EXIT_CHECK_SOURCE = `--${COUNTER_ID}[1] < 0 && ${SLOW_PATH_ID}(2);`;
/** The check at loop back-edges, and at the exit of a function without loops. */
export const CHECK_SOURCE = `--${COUNTER_ID}[0] < 0 && ${SLOW_PATH_ID}();`;

/** The check at a function's exit, given whether the function has loops of its own (not in nested functions or classes). */
export function exitCheckSource(hasOwnLoops: boolean): string {
  return hasOwnLoops ? EXIT_CHECK_SOURCE : CHECK_SOURCE;
}

/**
 * The declarations that bind `C` and `S` in a script or module reaching the runtime through the global.
 * `C` is first a hoisted function declaration, so a check that runs before this prelude (an ES module's
 * function called, through an import cycle, by a module it imports) computes `--f[0]` on a function:
 * NaN, never below 0, so no sample and no error.
 */
export const GLOBAL_PRELUDE_SOURCE =
  `function ${COUNTER_ID}() {}` +
  `var ${SLOW_PATH_ID};` +
  `(function (h) { ${COUNTER_ID} = h.${HOOK_COUNTER}; ${SLOW_PATH_ID} = h.${HOOK_SLOW_PATH}; })(` +
  `typeof ${RUNTIME_GLOBAL} == "object" && ${RUNTIME_GLOBAL} ||` +
  ` { ${HOOK_COUNTER}: [1073741824, 1073741824], ${HOOK_SLOW_PATH}: function () { ${COUNTER_ID}[0] = ${COUNTER_ID}[1] = 1073741824; } });`;

/** The names `@jsprof/runtime` exports for instrumented modules that import it. */
export const IMPORTED_COUNTER = 'checkCounter';
export const IMPORTED_SLOW_PATH = 'checkSlowPath';

/** The prelude of an ES module reaching the runtime through an import. */
export function importPreludeSource(importSource: string): string {
  return `import { ${IMPORTED_COUNTER} as ${COUNTER_ID}, ${IMPORTED_SLOW_PATH} as ${SLOW_PATH_ID} } from ${JSON.stringify(importSource)};`;
}

/** The prelude of a script (CommonJS) reaching the runtime through `require`. */
export function requirePreludeSource(importSource: string): string {
  return `var { ${IMPORTED_COUNTER}: ${COUNTER_ID}, ${IMPORTED_SLOW_PATH}: ${SLOW_PATH_ID} } = require(${JSON.stringify(importSource)});`;
}

/** Whether code already carries jsprof's prelude, in any of its forms (a second pass must change nothing). */
export function isInstrumentedSource(code: string): boolean {
  return /function\s+__jsprof\$c\s*\(|\bvar\s+__jsprof\$c\b|\bas\s+__jsprof\$c\b|checkCounter\s*:\s*__jsprof\$c\b/.test(code);
}
