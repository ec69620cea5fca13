'use strict';
/**
 * Accuracy of jsprof against V8: shares averaged over runs, then the worst gap in inclusive share
 * (percentage points) over the program's and its libraries' functions (file:// URLs).
 */
const { sourceInfo } = require('./functions');

const MIN_SHARE = 0.01;

/** Averages several runs' share maps (a function absent from a run counts 0 there). */
function averageShares(runs) {
  const sum = new Map();
  for (const run of runs) {
    for (const [key, s] of run.shares) {
      const entry = sum.get(key) || { ...s, share: 0 };
      entry.share += s.share / runs.length;
      sum.set(key, entry);
    }
  }
  return sum;
}

/** Largest difference of one function's share between two runs of V8 (its own noise). */
function spread(runs) {
  let worst = { gap: 0, key: null };
  const keys = new Set(runs.flatMap((r) => [...r.shares.keys()]));
  for (const key of keys) {
    if (!key.startsWith('file:')) continue;
    const values = runs.map((r) => r.shares.get(key)?.share || 0);
    const gap = Math.max(...values) - Math.min(...values);
    if (gap > worst.gap) worst = { gap, key };
  }
  return worst;
}

function isInstrumented(key, entry, policy) {
  const info = entry && entry.url ? sourceInfo(entry.url, policy) : null;
  const f = info && info.functions.find((fn) => fn.key === key);
  return !!(f && f.instrumented);
}

function describe(key, v8, jsprof) {
  const e = v8 || jsprof;
  const name = (v8 && v8.name) || (jsprof && jsprof.name) || '(anonymous)';
  const file = e.url.split('/').pop();
  return `${name} ${file}:${e.line}`;
}

/**
 * @returns {{ instrumented: Gap, all: Gap, compared: {instrumented, all}, rows }} where Gap =
 *   {gap, fn, v8, jsprof} (shares as fractions) for the function with the largest |jsprof − V8|.
 */
function compare(v8Runs, jsprofRuns, policy) {
  const v8 = averageShares(v8Runs);
  const js = averageShares(jsprofRuns);
  const keys = new Set([...v8.keys(), ...js.keys()]);
  const rows = [];
  for (const key of keys) {
    if (!key.startsWith('file:')) continue;
    const a = v8.get(key);
    const b = js.get(key);
    const sv = a ? a.share : 0;
    const sj = b ? b.share : 0;
    if (sv < MIN_SHARE && sj < MIN_SHARE) continue;
    rows.push({ key, fn: describe(key, a, b), v8: sv, jsprof: sj, gap: Math.abs(sj - sv), instrumented: isInstrumented(key, a || b, policy) });
  }
  rows.sort((x, y) => y.gap - x.gap);
  const worst = (list) => list[0] || { gap: 0, fn: '-', v8: 0, jsprof: 0 };
  const instrumented = rows.filter((r) => r.instrumented);
  return {
    instrumented: worst(instrumented),
    all: worst(rows),
    compared: { instrumented: instrumented.length, all: rows.length },
    rows,
  };
}

module.exports = { compare, spread, averageShares };

/**
 * Frames the two profilers disagree on by name or position (a sign of a naming bug): keys both
 * have under different names, and jsprof frames that start where no function starts.
 */
function frameMismatches(v8Runs, jsprofRuns, policy) {
  const v8 = averageShares(v8Runs);
  const js = averageShares(jsprofRuns);
  const names = [];
  const unplaced = [];
  for (const [key, j] of js) {
    if (!key.startsWith('file:')) continue;
    const v = v8.get(key);
    if (v && v.name !== j.name) names.push({ key, v8: v.name, jsprof: j.name, share: j.share });
    if (j.line === 1 && j.column === 1) continue; // module code
    const info = sourceInfo(j.url, policy);
    if (info && !info.functions.some((f) => f.key === key)) unplaced.push({ key, name: j.name, share: j.share });
  }
  names.sort((a, b) => b.share - a.share);
  unplaced.sort((a, b) => b.share - a.share);
  return { names, unplaced };
}

module.exports.frameMismatches = frameMismatches;
