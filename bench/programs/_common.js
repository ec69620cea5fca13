'use strict';
/**
 * Shared by the bench programs: a seeded random generator (so every run does the same work) and
 * the line each program prints when its work phase ends, which bench/run.js reads:
 * {"work": {"ms": elapsed, "t0": start, "t1": end}} with performance.now() values, so the trace's
 * samples inside the work phase can be counted.
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

/** Runs `work` and prints how long it took; `check` is a checksum printed along to prove determinism. */
function timed(work) {
  const t0 = performance.now();
  const check = work();
  const t1 = performance.now();
  process.stdout.write(JSON.stringify({ work: { ms: t1 - t0, t0, t1, check } }) + '\n');
}

module.exports = { random, timed };
