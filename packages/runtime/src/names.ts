/** Names shared with `@jsprof/policy` (the runtime carries no dependency; a test keeps them equal). */
export const RUNTIME_GLOBAL = '__jsprof';
