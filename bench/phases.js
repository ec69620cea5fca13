'use strict';
/**
 * A ground truth that is not a profiler: each program times its phases (phase() in
 * programs/_common.js), so a phase function's inclusive share should be the share of the work
 * phase's wall time it took in that run. jsprof's and V8's shares are each compared with the
 * timers of the runs they profiled: how well each profiler's samples follow the time, apart from
 * what its own cost does to the program.
 */
const { averageShares } = require('./accuracy');
const { median } = require('./overhead');

/** The median share of each phase in the work phase's time, over runs' `work` lines. */
function timerShares(works) {
  const names = Object.keys(works[0]?.phases ?? {});
  return new Map(names.map((name) => [name, median(works.map((w) => (w.phases[name] ?? 0) / w.ms))]));
}

/**
 * @param keyOf a phase's function name → its key in the share maps
 * @param jsprof {works, shares}: jsprof runs' work lines and share maps
 * @param v8 {works, shares}: the same for node --cpu-prof runs
 * @param plainWorks work lines of the plain program, for reference
 */
function comparePhases(keyOf, jsprof, v8, plainWorks) {
  const jsprofTimers = timerShares(jsprof.works);
  const v8Timers = timerShares(v8.works);
  const plainTimers = timerShares(plainWorks);
  const jsprofShares = averageShares(jsprof.shares);
  const v8Shares = averageShares(v8.shares);
  const rows = [...plainTimers.keys()].map((name) => {
    const key = keyOf(name);
    return {
      name,
      plain: plainTimers.get(name),
      jsprofTimer: jsprofTimers.get(name),
      jsprof: jsprofShares.get(key)?.share ?? 0,
      v8Timer: v8Timers.get(name),
      v8: v8Shares.get(key)?.share ?? 0,
    };
  });
  const worst = (share, timer) => Math.max(0, ...rows.map((r) => Math.abs(r[share] - r[timer])));
  return { rows, worstJsprof: worst('jsprof', 'jsprofTimer'), worstV8: worst('v8', 'v8Timer') };
}

module.exports = { comparePhases };
