/**
 * The check protocol: what instrumented code and the runtime agree on. The texts inserted are
 * check.ts's; these are the names and numbers both sides use, defined once: the policy builds the
 * checks from them. `@jsprof/runtime`, which promises no dependencies, keeps a copy of the ones it
 * uses (its names.ts and engine.ts), which runtime/test/node.test.ts holds equal to these.
 */

export const RUNTIME_GLOBAL = '__jsprof';
/** The properties of the hook object the runtime publishes (the counter, and the slow path's Proxy). */
export const HOOK_COUNTER = 'c';
export const HOOK_SLOW_PATH = 's';
/** The globals the checks read: the hook's counter and slow path. */
export const COUNTER_ID = `${RUNTIME_GLOBAL}$${HOOK_COUNTER}`;
export const SLOW_PATH_ID = `${RUNTIME_GLOBAL}$${HOOK_SLOW_PATH}`;
/** Where scripts with a function table say so (`@jsprof/estree-instrument`'s TABLE_REGISTRATION). */
export const TABLE_REGISTRY_ID = `${RUNTIME_GLOBAL}$t`;
/** The names `@jsprof/runtime` exports for instrumented modules that import it. */
export const IMPORTED_COUNTER = 'checkCounter';
export const IMPORTED_SLOW_PATH = 'checkTrap';

/** The kinds the slow path is given (the key a check deletes). */
export const CHECK_KIND = 0;
export const ENTRY_CHECK_KIND = 1;
export const LOOPING_EXIT_CHECK_KIND = 2;

/**
 * How many counters the exits of functions with loops count on: `C[1 + slot]`, whose slow path is
 * reached with the key `2 + slot` (LOOPING_EXIT_CHECK_KIND + slot). Without a thread the runtime
 * has each of them read the clock every so many exits, as many as came in a while when it last
 * read it. One counter for all of them could not see a function's exits slow down: right after a
 * short function with loops exited thousands of times a millisecond, a function with loops whose
 * time goes to built-ins and that is called a few times waited for thousands of exits before the
 * clock was read, and got no sample at all (a program splitting and counting words for 1.3 s in 16
 * calls: no sample with one counter, 62–70% of them with a counter each, 62–68% with the thread).
 */
export const EXIT_SLOTS = 256;

/**
 * The protocol of the checks this jsprof inserts and its runtime arms: the counter `C` and the trap
 * `S` (check.ts). Protocol 1, before it, checked by calling functions of the file's own (`__jsprof$e()`,
 * `__jsprof$c()`), which no runtime arms now. Raise it whenever a runtime could no longer arm
 * checks already written, and recognise the old preludes as that protocol.
 */
export const CHECK_PROTOCOL = 2;
