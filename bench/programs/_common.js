'use strict';
/**
 * Shared by the bench programs: a seeded random generator (so every run does the same work) and
 * the line each program prints when its work phase ends, which bench/run.js reads:
 * {"work": {"ms": elapsed, "t0": start, "t1": end, "check", "phases": {name: ms}}} with
 * performance.now() values, so the trace's samples inside the work phase can be counted.
 */

/** mulberry32: a small deterministic PRNG. */
function random(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Milliseconds spent in each phase (by function name) of the work, as timed by phase(). */
const phases = {};

/** Calls `fn(...args)` and adds the time it took to its phase: the bench's wall-clock truth for its inclusive share. */
function phase(fn, ...args) {
  const t0 = performance.now();
  const result = fn(...args);
  phases[fn.name] = (phases[fn.name] || 0) + performance.now() - t0;
  return result;
}

/** Runs `work` and prints how long it took and its phases; `check` is a checksum printed along to prove determinism. */
function timed(work) {
  const t0 = performance.now();
  const check = work();
  const t1 = performance.now();
  process.stdout.write(JSON.stringify({ work: { ms: t1 - t0, t0, t1, check, phases } }) + '\n');
}

module.exports = { random, timed, phase };
