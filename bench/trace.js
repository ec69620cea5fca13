'use strict';
/**
 * What a jsprof trace (JS Self-Profiling format) says: inclusive share per function over the
 * samples whose stack contains `rootKey`, and how many samples of the work phase have a stack.
 */
const { keyOf } = require('./functions');

function frameKey(trace, frame) {
  const url = frame.resourceId === undefined ? '' : trace.resources[frame.resourceId];
  return keyOf(url, frame.line, frame.column);
}

/** Frame keys on each stack (stacks are parent-first), each key once. */
function stackKeys(trace) {
  const keys = [];
  trace.stacks.forEach((s, i) => {
    const up = s.parentId === undefined ? [] : keys[s.parentId];
    const frame = trace.frames[s.frameId];
    const key = frame.resourceId === undefined ? null : frameKey(trace, frame);
    keys[i] = !key || up.includes(key) ? up : [...up, key];
  });
  return keys;
}

/** @returns {{ samples: number, shares: Map<string, {name, url, line, column, share}> }} */
function traceShares(trace, rootKey) {
  const frames = new Map();
  for (const f of trace.frames) {
    if (f.resourceId === undefined) continue;
    frames.set(frameKey(trace, f), { name: f.name, url: trace.resources[f.resourceId], line: f.line, column: f.column });
  }
  const keysOf = stackKeys(trace);
  const inclusive = new Map();
  let total = 0;
  for (const sample of trace.samples) {
    if (sample.stackId === undefined) continue;
    const keys = keysOf[sample.stackId];
    if (!keys.includes(rootKey)) continue;
    total++;
    for (const k of keys) inclusive.set(k, (inclusive.get(k) || 0) + 1);
  }
  const shares = new Map();
  for (const [key, n] of inclusive) shares.set(key, { ...frames.get(key), share: n / total });
  return { samples: total, shares };
}

/**
 * Samples taken vs due in the work phase [t0, t1] (performance.now() of the profiled process):
 * due = whole intervals in the window; taken = samples in it that carry a stack.
 *
 * A tick that passes with no check running is recorded later, with the stack of the next check
 * and a timestamp exactly on the 10 ms grid ("backfilled"); a sample captured at the first check
 * after its tick carries the time of that check. So `onTime` = taken minus those on the grid, and
 * `delay` = median time from tick to capture of the on-time ones. The grid is recognised as the
 * remainder (mod 10 ms) that several samples share exactly.
 */
function workCoverage(trace, work, intervalMs) {
  const inWindow = trace.samples.filter((s) => s.timestamp >= work.t0 && s.timestamp <= work.t1);
  const withStack = inWindow.filter((s) => s.stackId !== undefined);
  const remainder = (t) => ((t % intervalMs) + intervalMs) % intervalMs;
  const groups = new Map();
  for (const s of trace.samples) {
    const r = remainder(s.timestamp).toFixed(6);
    groups.set(r, (groups.get(r) || 0) + 1);
  }
  let grid = null;
  let most = 2;
  for (const [r, n] of groups) if (n > most) (grid = Number(r)), (most = n);
  const delays = [];
  for (const s of withStack) {
    if (grid === null) continue;
    const d = remainder(remainder(s.timestamp) - grid);
    if (d > 1e-5 && d < intervalMs - 1e-5) delays.push(d);
  }
  delays.sort((a, b) => a - b);
  return {
    due: Math.floor((work.t1 - work.t0) / intervalMs),
    recorded: inWindow.length,
    taken: withStack.length,
    onTime: grid === null ? withStack.length : delays.length,
    delay: delays.length ? delays[delays.length >> 1] : null,
  };
}

module.exports = { traceShares, workCoverage };
