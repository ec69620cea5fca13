/**
 * What is inserted. Every front end emits exactly these texts, so instrumented code is the same
 * whichever tool produced it, and a second pass recognises the first.
 *
 * A check is a call of one of three functions the runtime owns, each `if (--C[i] < 0) S(kind)` on a
 * two-element counter `C`: the sampler thread sets both elements to 0 when a sample is due
 * (SharedArrayBuffer). Without a thread, the runtime sets `C[0]` to the number of checks expected
 * before the next sample (a count-down) and keeps `C[1]` at 0, so that the exit of every function
 * with loops of its own reads the clock: a count of checks cannot see time pass while such a
 * function loops between sparse checks, and its exit is where that time is charged. `S` captures
 * the stack when a sample is due and re-arms `C`.
 *
 * The checks are calls, not the test itself written inline: an optimising compiler inlines them
 * into a load, a store and a branch, and the slow path's call inside them has run (the runtime runs
 * each once when it loads), so taking a sample never deoptimises the program's functions, as a
 * call that had never run would.
 *
 * The check at a function's entry (`e`) tells the runtime the function has not run yet, so the time
 * since the sample fell due was spent by its callers, and the sample leaves the function's own
 * frame out. The exit check of a function with loops (`x`) counts on `C[1]`; the others (`k`: loop
 * back-edges, exits of functions without loops) keep the whole stack. Without the runtime, the
 * checks are the prelude's empty functions.
 */

export const RUNTIME_GLOBAL = '__jsprof';
/** The properties of the hook object the runtime publishes, and the names they have in instrumented code. */
export const HOOK_ENTRY_CHECK = 'e';
export const HOOK_LOOPING_EXIT_CHECK = 'x';
export const HOOK_CHECK = 'k';
export const ENTRY_CHECK_ID = `${RUNTIME_GLOBAL}$${HOOK_ENTRY_CHECK}`;
export const LOOPING_EXIT_CHECK_ID = `${RUNTIME_GLOBAL}$${HOOK_LOOPING_EXIT_CHECK}`;
export const CHECK_ID = `${RUNTIME_GLOBAL}$${HOOK_CHECK}`;

/** The check at a function's entry. */
export const ENTRY_CHECK_SOURCE = `${ENTRY_CHECK_ID}();`;
/** The check at the exit of a function with loops of its own, in a `finally` (counted on `C[1]`, see above). */
export const EXIT_CHECK_SOURCE = `${LOOPING_EXIT_CHECK_ID}();`;
/** The check at loop back-edges, and at the exit of a function without loops. */
export const CHECK_SOURCE = `${CHECK_ID}();`;

/** The check at a function's exit, given whether the function has loops of its own (not in nested functions or classes). */
export function exitCheckSource(hasOwnLoops: boolean): string {
  return hasOwnLoops ? EXIT_CHECK_SOURCE : CHECK_SOURCE;
}

/** The names `@jsprof/runtime` exports for instrumented modules that import it. */
export const IMPORTED_ENTRY_CHECK = 'checkEntry';
export const IMPORTED_LOOPING_EXIT_CHECK = 'checkLoopingExit';
export const IMPORTED_CHECK = 'check';

/** Each check: its name in instrumented code, on the hook, and among the runtime's exports. */
const CHECKS: { id: string; key: string; imported: string }[] = [
  { id: ENTRY_CHECK_ID, key: HOOK_ENTRY_CHECK, imported: IMPORTED_ENTRY_CHECK },
  { id: LOOPING_EXIT_CHECK_ID, key: HOOK_LOOPING_EXIT_CHECK, imported: IMPORTED_LOOPING_EXIT_CHECK },
  { id: CHECK_ID, key: HOOK_CHECK, imported: IMPORTED_CHECK },
];

/**
 * The prelude of a script or module reaching the runtime through the global. The checks are first
 * empty function declarations: hoisted, so a check that runs before the prelude (an ES module's
 * function called, through an import cycle, by a module it imports) does nothing, and they stay
 * empty where the runtime is not loaded.
 */
export const GLOBAL_PRELUDE_SOURCE =
  CHECKS.map(({ id }) => `function ${id}() {}`).join('') +
  `(function (h) { if (h && typeof h.${HOOK_ENTRY_CHECK} == "function") { ` +
  CHECKS.map(({ id, key }) => `${id} = h.${key}; `).join('') +
  `} })(typeof ${RUNTIME_GLOBAL} == "object" && ${RUNTIME_GLOBAL});`;

/** The prelude of an ES module reaching the runtime through an import. */
export function importPreludeSource(importSource: string): string {
  return `import { ${CHECKS.map(({ id, imported }) => `${imported} as ${id}`).join(', ')} } from ${JSON.stringify(importSource)};`;
}

/** The prelude of a script (CommonJS) reaching the runtime through `require`. */
export function requirePreludeSource(importSource: string): string {
  return `var { ${CHECKS.map(({ id, imported }) => `${imported}: ${id}`).join(', ')} } = require(${JSON.stringify(importSource)});`;
}

/** Whether code already carries jsprof's prelude, in any of its forms (a second pass must change nothing). */
export function isInstrumentedSource(code: string): boolean {
  return /\bfunction\s+__jsprof\$e\s*\(|\bas\s+__jsprof\$e\b|\bcheckEntry\s*:\s*__jsprof\$e\b/.test(code);
}
