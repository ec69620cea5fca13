'use strict';
/**
 * Loaded with NODE_OPTIONS=--import into `jsprof run`: in the profiled process (the one that has
 * JSPROF_RUN set), writes the runtime's samplerStats() (ticks due vs recorded with a stack, and the
 * sampler mode) to the file named by JSPROF_BENCH_STATS when the process exits.
 */
const fs = require('node:fs');

const out = process.env.JSPROF_BENCH_STATS;
if (out && process.env.JSPROF_RUN) {
  process.on('exit', () => {
    try {
      const { samplerStats } = require('@jsprof/runtime/node');
      fs.writeFileSync(out, JSON.stringify(samplerStats()));
    } catch (error) {
      fs.writeFileSync(out, JSON.stringify({ error: String(error) }));
    }
  });
}
