'use strict';
/**
 * `jsprof` run as a child process, timed, with its peak resident set size: this file is preloaded
 * into the child (`--require`), where it writes the peak to a file when the process exits.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { isMainThread } = require('node:worker_threads');
const { ROOT, JSPROF } = require('./field-traces');
const RSS_FILE = 'JSPROF_BENCH_RSS';

/** `jsprof <args>` in a fresh process (spawnSync `options`): its result, wall seconds, and peak RSS in MB. */
function jsprofMeasured(args, options = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-bench-rss-'));
  const rssFile = path.join(dir, 'rss');
  try {
    const started = process.hrtime.bigint();
    const run = spawnSync(process.execPath, ['--require', __filename, JSPROF, ...args], { cwd: ROOT, encoding: 'utf8', ...options, env: { ...process.env, [RSS_FILE]: rssFile } });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const maxRssMb = fs.existsSync(rssFile) ? Number(fs.readFileSync(rssFile, 'utf8')) / 1024 : NaN;
    return { run, seconds, maxRssMb };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Preloaded into the child (its main thread only: worker threads inherit --require).
if (require.main !== module && isMainThread && process.env[RSS_FILE]) {
  const rssFile = process.env[RSS_FILE];
  process.on('exit', () => fs.writeFileSync(rssFile, String(process.resourceUsage().maxRSS)));
}

module.exports = { jsprofMeasured };
