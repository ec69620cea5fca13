'use strict';
/**
 * Overhead from work-phase times. The machine's speed drifts over tens of seconds (shared cores),
 * so each run is compared with the plain program's speed *at the time it ran*: the baseline is
 * interpolated between the plain runs just before and just after it (two per round), and the
 * overhead is the median of those ratios, minus 1. The plain ratio of medians is kept as well.
 */

function median(values) {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

class Timeline {
  constructor() {
    /** key → [{ms, at}] where `at` is the middle of the run (ms since the epoch). */
    this.runs = new Map();
  }

  add(key, ms, start, end) {
    if (!this.runs.has(key)) this.runs.set(key, []);
    this.runs.get(key).push({ ms, at: (start + end) / 2 });
  }

  times(key) {
    return (this.runs.get(key) || []).map((r) => r.ms);
  }

  /** The baseline's work time at `at`, interpolated between the nearest baseline runs around it. */
  baselineAt(at, baseline = 'plain') {
    const base = this.runs.get(baseline) || [];
    let before = null;
    let after = null;
    for (const r of base) {
      if (r.at <= at && (!before || r.at > before.at)) before = r;
      if (r.at >= at && (!after || r.at < after.at)) after = r;
    }
    if (!before || !after) return (before || after || { ms: null }).ms;
    if (after.at === before.at) return before.ms;
    return before.ms + ((after.ms - before.ms) * (at - before.at)) / (after.at - before.at);
  }

  /** Median over `key`'s runs of time / baseline at that time, minus 1 (null without runs). */
  overhead(key) {
    const ratios = (this.runs.get(key) || []).map((r) => r.ms / this.baselineAt(r.at)).filter(Number.isFinite);
    return ratios.length ? median(ratios) - 1 : null;
  }

  /**
   * Typical deviation of one run from the drift-corrected baseline: each plain run against the
   * other plain runs interpolated at its time, median of |ratio − 1|.
   */
  noise() {
    const base = this.runs.get('plain') || [];
    if (base.length < 3) return null;
    const deviations = base.map((r, i) => {
      const others = new Timeline();
      others.runs.set('plain', base.filter((_, j) => j !== i));
      return Math.abs(r.ms / others.baselineAt(r.at) - 1);
    });
    return median(deviations);
  }

  /** The ratio of medians, minus 1. */
  overheadOfMedians(key) {
    const t = this.times(key);
    return t.length ? median(t) / median(this.times('plain')) - 1 : null;
  }

  toJSON() {
    return Object.fromEntries([...this.runs].map(([k, v]) => [k, v.map((r) => Math.round(r.ms))]));
  }
}

module.exports = { Timeline, median };
