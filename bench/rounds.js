'use strict';
/**
 * What the checks and profiling cost in wall time during warm-up and once V8 has optimised the
 * code. Each library's workload (bench/instructions/workloads.js) runs for about two seconds in a
 * process of its own, plain, with the default placement's checks, and with them and a profiler
 * sampling every 10 ms (the sampler thread), the three alternating; every round is timed inside
 * the process. Overheads are medians over the alternations of each run's time against the plain
 * run next to it, for the first tenth of the rounds (mostly compilation and tier-up), the second
 * half (optimised code) and all rounds. Ratios between processes run side by side cancel most of
 * this machine's drift; the rounds leave out loading and instrumenting the library.
 *
 *   node bench/rounds.js [--only NAME] [--runs N]     (N alternations, default 10; about 5 minutes)
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { flagValue, usageError } = require('./configs');
const { median } = require('./overhead');
const { pct, table } = require('./report');
const workloads = require('./instructions/workloads');

const CHILD = path.join(__dirname, 'rounds', 'child.js');
const OUT = path.join(__dirname, 'out');
const VARIANTS = ['plain', 'checks', 'profiled'];

const argv = process.argv.slice(2);
const only = flagValue(argv, '--only');
const runsArg = flagValue(argv, '--runs') ?? '10';
if (only && !workloads[only]) usageError(`no program ${only}; there are ${Object.keys(workloads).join(', ')}`);
if (!/^[1-9]\d*$/.test(runsArg)) usageError('--runs must be a whole number ≥ 1');
const RUNS = Number(runsArg);

function runChild(program, variant) {
  const r = spawnSync(process.execPath, [CHILD, program, variant, String(workloads[program].wallRounds)], { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.status !== 0) throw new Error(`${program} ${variant} failed (exit ${r.status}):\n${(r.stderr || '').slice(-2000)}`);
  return JSON.parse(r.stdout);
}

function measure(program) {
  const runs = Object.fromEntries(VARIANTS.map((v) => [v, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const v of i % 2 ? [...VARIANTS].reverse() : VARIANTS) runs[v].push(runChild(program, v));
    process.stderr.write(`  ${program}: run ${i + 1}/${RUNS}\n`);
  }
  const checks = new Set(VARIANTS.flatMap((v) => runs[v].map((r) => r.check)));
  if (checks.size !== 1) process.stderr.write(`  WARNING: ${program} computed different results: ${[...checks].join(', ')}\n`);
  const rounds = workloads[program].wallRounds;
  const windows = { 'first tenth': [0, Math.ceil(rounds / 10)], 'second half': [Math.floor(rounds / 2), rounds], all: [0, rounds] };
  const sum = (times, [from, to]) => times.slice(from, to).reduce((a, b) => a + b, 0);
  const result = { program, rounds, runs: RUNS, windows: {}, samples: runs.profiled.map((r) => r.samples) };
  for (const [name, window] of Object.entries(windows)) {
    const plain = runs.plain.map((r) => sum(r.times, window));
    const overhead = (v) => median(runs[v].map((r, i) => sum(r.times, window) / plain[i])) - 1;
    result.windows[name] = { rounds: window, plainMs: median(plain), checks: overhead('checks'), profiled: overhead('profiled') };
  }
  return result;
}

const programs = only ? [only] : Object.keys(workloads);
const results = programs.map(measure);
const rows = [];
for (const r of results) {
  for (const [i, [name, w]] of Object.entries(r.windows).entries()) {
    rows.push([i ? '' : r.program, `${name} (rounds ${w.rounds[0] + 1}-${w.rounds[1]})`, `${Math.round(w.plainMs)} ms`, pct(w.checks), pct(w.profiled)]);
  }
  rows.push('—');
}
const columns = [
  { title: 'library', align: 'l' },
  { title: 'rounds', align: 'l' },
  { title: 'plain', align: 'r' },
  { title: 'checks only', align: 'r' },
  { title: 'profiling', align: 'r' },
];
console.log(`jsprof rounds bench — ${os.cpus()[0].model.trim()}, ${os.cpus().length} cores, node ${process.version}; median of ${RUNS} alternations\n`);
console.log(table(columns, rows.slice(0, -1)));
console.log(`\nsamples taken by the profiled runs: ${results.map((r) => `${r.program} ${median(r.samples)}`).join(', ')} (median)`);
fs.mkdirSync(OUT, { recursive: true });
fs.writeFileSync(path.join(OUT, 'rounds.json'), JSON.stringify(results, null, 2));
