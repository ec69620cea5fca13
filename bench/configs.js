'use strict';
/** The check placements the benchmarks compare (jsprof's default is `default`). */
const THRESHOLD = 10;

const CONFIGS = [
  { id: 'entry', label: 'entry only (--no-exits)', threshold: THRESHOLD, loopingFunctions: true, loops: false, exits: false },
  { id: 'default', label: 'entry+exits (default)', threshold: THRESHOLD, loopingFunctions: true, loops: false, exits: true },
  { id: 'no-looping', label: 'entry+exits, --no-looping-functions', threshold: THRESHOLD, loopingFunctions: false, loops: false, exits: true },
  { id: 'loops', label: 'entry+exits+loops (--loops)', threshold: THRESHOLD, loopingFunctions: true, loops: true, exits: true },
];

module.exports = { THRESHOLD, CONFIGS };
