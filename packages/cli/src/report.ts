/** The text report `jsprof run` prints; it lives with `jsprof report`'s views in @jsprof/trace-tools. */
export { displayLocation, formatReport } from '@jsprof/trace-tools';
