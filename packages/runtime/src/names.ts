/** Names shared with `@jsprof/policy` (the runtime carries no dependency; a test keeps them equal). */
export const RUNTIME_GLOBAL = '__jsprof';
/** The globals the checks of ES modules read (the hook's `c` and `s`): see `@jsprof/policy`'s check.ts. */
export const COUNTER_GLOBAL = `${RUNTIME_GLOBAL}$c`;
export const SLOW_PATH_GLOBAL = `${RUNTIME_GLOBAL}$s`;
/** Where scripts with a function table say so: see `@jsprof/estree-instrument`'s TABLE_REGISTRATION. */
export const TABLE_REGISTRY_GLOBAL = `${RUNTIME_GLOBAL}$t`;
