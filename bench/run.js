'use strict';
/**
 * jsprof's benchmark: overhead and accuracy of four check placements on real programs.
 *
 *   node bench/run.js [--quick] [--only NAME] [--rounds N] [--placements ID,ID] [--threshold N] [--reprint]
 *
 * For each program (bench/programs/), in interleaved rounds: the plain program (baseline), the
 * program with checks but no profiler (`node --import register.js`), the program under
 * `jsprof run` at 10 ms (thread sampler; count-down sampler in the first rounds) and under
 * `node --cpu-prof` (ground truth, first rounds). Times are the program's own work phase. Prints
 * one table and writes bench/out/results.json.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const PROGRAMS = require('./programs');
const measure = require('./measure');
const { sourceInfo, instrumentedSourceInfo } = require('./functions');
const { cpuProfileShares } = require('./cpuprofile');
const { traceShares, workCoverage } = require('./trace');
const { compare, spread, frameMismatches } = require('./accuracy');
const { pct, points, coverage, gap, table } = require('./report');
const { Timeline, median } = require('./overhead');
const { comparePhases } = require('./phases');
const { configsFrom, flagValue, usageError } = require('./configs');

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const ONLY = flagValue(argv, '--only') ?? null;
const { threshold: THRESHOLD, configs: CONFIGS } = configsFrom(argv);
/** The placement whose phase shares and frame mismatches are reported: the default, where it runs. */
const mainConfigOf = (configs) => configs.find((c) => c.id === 'default') ?? configs[0];
const ROUNDS = argv.includes('--rounds') ? Number(flagValue(argv, '--rounds')) : QUICK ? 2 : 5; // overhead: runs of each variant
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) usageError('--rounds must be a whole number of rounds ≥ 1');
const V8_RUNS = QUICK ? 1 : 3; // ground truth runs (V8 shares move by up to 8 points between runs)
const COUNT_DOWN_RUNS = QUICK ? 1 : 2; // jsprof runs with the no-SharedArrayBuffer sampler
const V8_CHECKS_RUNS = QUICK ? 1 : 2; // V8 runs of the program with checks in place, per config
const GAP_GOAL = 0.1; // issue 2: worst inclusive-share gap vs V8 ≤ 10 points on every program
const INTERVAL = 10;
const SETTINGS = { rounds: ROUNDS, v8Runs: V8_RUNS, countDownRuns: COUNT_DOWN_RUNS, v8ChecksRuns: V8_CHECKS_RUNS, threshold: THRESHOLD, sampleInterval: INTERVAL };

/** The options that decide which functions get checks. */
const policyOf = (config) => ({ threshold: config.threshold, loopingFunctions: config.loopingFunctions });

const OUT = path.join(__dirname, 'out');
process.chdir(path.resolve(__dirname, '..')); // the instrumentation cache is node_modules/.cache/jsprof
const log = (msg) => process.stderr.write(`${msg}\n`);


function sumCoverage(list) {
  const total = { due: 0, recorded: 0, taken: 0, onTime: 0 };
  for (const c of list) for (const k of Object.keys(total)) total[k] += c[k];
  total.delay = median(list.map((c) => c.delay).filter((d) => d != null));
  return total;
}

/** The variants of one round, rotated so no variant always runs first or last; the plain program runs twice, half a round apart. */
function variantsOf(round) {
  const list = [];
  for (const config of CONFIGS) list.push({ kind: 'checks', config });
  for (const config of CONFIGS) list.push({ kind: 'profiled', config, sampler: 'thread' });
  if (round < COUNT_DOWN_RUNS) for (const config of CONFIGS) list.push({ kind: 'profiled', config, sampler: 'count-down' });
  if (round < V8_RUNS) list.push({ kind: 'cpuprof' });
  if (round < V8_CHECKS_RUNS) for (const config of CONFIGS) list.push({ kind: 'cpuprof', config });
  list.splice(list.length >> 1, 0, { kind: 'plain' });
  list.unshift({ kind: 'plain' });
  const shift = (round * 3) % list.length;
  return [...list.slice(shift), ...list.slice(0, shift)];
}

function benchProgram(program) {
  const url = pathToFileURL(program.file).href;
  const functions = sourceInfo(url).functions;
  const work = functions.find((f) => f.name === 'work');
  if (!work) throw new Error(`${program.file} has no function named work`);
  const rootKey = work.key;
  const keyOfPhase = (name) => functions.find((f) => f.name === name)?.key;

  // Instrument the program and its libraries into the cache, once per configuration.
  for (const config of CONFIGS) measure.warm(program, config);

  const times = new Timeline();
  const runs = {};
  for (const c of CONFIGS) {
    for (const s of ['thread', 'count-down']) runs[`${c.id}/${s}`] = { shares: [], coverage: [], stats: [], works: [] };
  }
  const v8Runs = [];
  const v8Works = [];
  const plainWorks = [];
  const v8ChecksRuns = Object.fromEntries(CONFIGS.map((c) => [c.id, []]));
  const resolvePlain = (u) => sourceInfo(u);
  const checksums = new Set();
  const traceDir = path.join(OUT, 'traces');
  fs.mkdirSync(traceDir, { recursive: true });

  for (let round = 0; round < ROUNDS; round++) {
    const started = Date.now();
    for (const v of variantsOf(round)) {
      const start = Date.now();
      if (v.kind === 'plain') {
        const r = measure.plain(program);
        times.add('plain', r.work.ms, start, Date.now());
        checksums.add(r.work.check);
        plainWorks.push(r.work);
      } else if (v.kind === 'checks') {
        const r = measure.checksOnly(program, v.config);
        times.add(`checks/${v.config.id}`, r.work.ms, start, Date.now());
        checksums.add(r.work.check);
      } else if (v.kind === 'profiled') {
        const tracePath = path.join(traceDir, `${program.name}-${v.config.id}-${v.sampler}-${round}.json`);
        const r = measure.profiled(program, v.config, v.sampler, tracePath);
        times.add(`profiled/${v.config.id}/${v.sampler}`, r.work.ms, start, Date.now());
        checksums.add(r.work.check);
        const bucket = runs[`${v.config.id}/${v.sampler}`];
        bucket.shares.push(traceShares(r.trace, rootKey));
        bucket.coverage.push(workCoverage(r.trace, r.work, INTERVAL));
        bucket.stats.push(r.stats);
        bucket.works.push(r.work);
      } else {
        const c = v.config;
        const r = measure.cpuProfiled(program, path.join(OUT, 'cpuprofiles', `${program.name}-${c ? c.id : 'plain'}-${round}`), c);
        checksums.add(r.work.check);
        if (!c) {
          v8Runs.push(cpuProfileShares(r.profile, rootKey, resolvePlain));
          v8Works.push(r.work);
        }
        else v8ChecksRuns[c.id].push(cpuProfileShares(r.profile, rootKey, (u) => instrumentedSourceInfo(u, measure.instrumentOptions(c))));
      }
    }
    log(`  ${program.name}: round ${round + 1}/${ROUNDS} done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  if (checksums.size !== 1) log(`  WARNING: ${program.name} computed different results across runs: ${[...checksums].join(', ')}`);

  const base = median(times.times('plain'));
  const overhead = (key) => times.overhead(key);
  const overheadOfMedians = (key) => times.overheadOfMedians(key);
  const configs = CONFIGS.map((c) => {
    const bySampler = {};
    for (const s of ['thread', 'count-down']) {
      const r = runs[`${c.id}/${s}`];
      bySampler[s] = {
        overhead: overhead(`profiled/${c.id}/${s}`),
        overheadOfMedians: overheadOfMedians(`profiled/${c.id}/${s}`),
        runs: r.shares.length,
        coverage: sumCoverage(r.coverage),
        samplerStats: r.stats,
        accuracy: r.shares.length ? compare(v8Runs, r.shares, policyOf(c)) : null,
      };
    }
    const thread = bySampler.thread.accuracy;
    return {
      id: c.id,
      label: c.label,
      options: measure.instrumentOptions(c),
      checksOverhead: overhead(`checks/${c.id}`),
      checksOverheadOfMedians: overheadOfMedians(`checks/${c.id}`),
      thread: bySampler.thread,
      countDown: bySampler['count-down'],
      worstInstrumented: thread.instrumented,
      worstAll: thread.all,
      // jsprof against V8 on the same instrumented code: the sampling's own bias.
      bias: compare(v8ChecksRuns[c.id], runs[`${c.id}/thread`].shares, policyOf(c)).instrumented,
      // V8 on instrumented code against V8 on the plain program: how much the checks move the time.
      distortion: compare(v8Runs, v8ChecksRuns[c.id], policyOf(c)).instrumented,
      v8ChecksUnmatched: [...new Set(v8ChecksRuns[c.id].flatMap((r) => r.unmatched))],
      mismatches: frameMismatches(v8Runs, runs[`${c.id}/thread`].shares, policyOf(c)),
    };
  });
  return {
    name: program.name,
    what: program.what,
    baselineMs: base,
    times: times.toJSON(),
    noise: times.noise(),
    deterministic: checksums.size === 1,
    // The main placement's shares of the program's phases, against the phases' own timers.
    phases: comparePhases(keyOfPhase, runs[`${mainConfigOf(CONFIGS).id}/thread`], { works: v8Works, shares: v8Runs }, plainWorks),
    v8: {
      runs: v8Runs.length,
      samples: v8Runs.map((r) => r.samples),
      spread: spread(v8Runs),
      unmatched: [...new Set(v8Runs.flatMap((r) => r.unmatched))],
    },
    configs,
  };
}

function summarize(results) {
  return results[0].configs.map((c) => {
    const rows = results.map((p) => p.configs.find((x) => x.id === c.id));
    const mean = (f) => rows.reduce((s, r) => s + f(r), 0) / rows.length;
    const summary = {
      id: c.id,
      label: c.label,
      checksOverhead: mean((r) => r.checksOverhead),
      profilingOverhead: mean((r) => r.thread.overhead),
      countDownOverhead: mean((r) => r.countDown.overhead ?? 0),
      meanWorstGap: mean((r) => r.worstInstrumented.gap),
      maxWorstGap: Math.max(...rows.map((r) => r.worstInstrumented.gap)),
      meanCountDownGap: mean((r) => (r.countDown.accuracy ? r.countDown.accuracy.instrumented.gap : 0)),
      meanBias: mean((r) => r.bias.gap),
      meanDistortion: mean((r) => r.distortion.gap),
      meanWorstAll: mean((r) => r.worstAll.gap),
    };
    return summary;
  });
}

function printTable(machine, results, summary, settings) {
  const main = mainConfigOf(results[0].configs);
  const { rounds, v8Runs, countDownRuns, v8ChecksRuns, threshold, quick } = settings;
  const out = [];
  out.push(`jsprof bench — ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, ${machine.os}${quick ? ' (--quick)' : ''}`);
  out.push('');
  const columns = [
    { title: 'program (baseline, noise)', align: 'l' },
    { title: 'config', align: 'l' },
    { title: 'checks only', align: 'r' },
    { title: 'profiling', align: 'r' },
    { title: 'prof. c-down', align: 'r' },
    { title: 'samples thread', align: 'r' },
    { title: 'samples c-down', align: 'r' },
    { title: 'gap, instrumented fns (worst)', align: 'l' },
    { title: 'gap c-down', align: 'r' },
    { title: 'bias', align: 'r' },
    { title: 'distort.', align: 'r' },
    { title: 'gap, all fns ≥1% (worst)', align: 'l' },
  ];
  const rows = [];
  for (const p of results) {
    if (rows.length) rows.push('rule');
    p.configs.forEach((c, i) => {
      const baseline = `${Math.round(p.baselineMs)} ms, ±${((p.noise || 0) * 100).toFixed(1)}%`;
      const first = (p.configs.length > 1 ? [p.name, baseline] : [`${p.name} ${baseline}`])[i] || '';
      rows.push([
        first,
        c.label,
        pct(c.checksOverhead),
        pct(c.thread.overhead),
        pct(c.countDown.overhead),
        coverage(c.thread.coverage),
        coverage(c.countDown.coverage),
        gap(c.worstInstrumented),
        c.countDown.accuracy ? points(c.countDown.accuracy.instrumented.gap) : '-',
        points(c.bias.gap),
        points(c.distortion.gap),
        gap(c.worstAll),
      ]);
    });
  }
  rows.push('rule');
  summary.forEach((s, i) => {
    rows.push([i ? '' : 'mean of programs', s.label, pct(s.checksOverhead), pct(s.profilingOverhead), pct(s.countDownOverhead), '', '',
      `${points(s.meanWorstGap)} (max ${points(s.maxWorstGap)})`, points(s.meanCountDownGap), points(s.meanBias), points(s.meanDistortion), points(s.meanWorstAll)]);
  });
  out.push(table(columns, rows));
  // The default is the cheapest placement that meets the accuracy goal on every program.
  const accurate = summary.filter((s) => s.maxWorstGap <= GAP_GOAL);
  const best = [...(accurate.length ? accurate : summary)].sort((a, b) => (accurate.length ? a.profilingOverhead - b.profilingOverhead : a.maxWorstGap - b.maxWorstGap))[0];
  out.push('');
  out.push(
    accurate.length
      ? `best trade-off: ${best.label} (the lowest profiling overhead among the placements whose worst gap is ≤ ${points(GAP_GOAL)} points on every program: ${accurate.map((s) => s.id).join(', ')})`
      : `best trade-off: none meets a worst gap ≤ ${points(GAP_GOAL)} points on every program; the closest is ${best.label}`,
  );
  out.push('');
  out.push('legend:');
  out.push(`- checks only / profiling / prof. c-down: work-phase time vs the plain program's, median of ${rounds} runs (c-down: ${countDownRuns});`);
  out.push('  checks only = node --import register.js (no profiler); profiling = jsprof run at 10 ms, sampler thread; c-down = JSPROF_SAMPLER=count-down.');
  out.push("  Runs are interleaved with the plain program (twice a round) and each is compared with the plain program's time interpolated at the");
  out.push('  moment it ran, as this machine drifts by 10-30% over a minute (ratios of medians are in results.json). noise: median deviation');
  out.push('  of one plain run from that estimate; the median of 5 ratios is good to about half of it.');
  out.push('- samples: taken (with a stack) / due in the work phase; in brackets on time (captured within the interval of its tick, not backfilled).');
  out.push(`- gap: worst |jsprof − V8| inclusive share in points over the functions that placement instruments (threshold ${threshold}; with loops, too, unless --no-looping-functions) with ≥1% in either profile,`);
  out.push(`  shares averaged over ${v8Runs} run(s) of node --cpu-prof (inlined functions split out by line, GC charged to the allocating code) and ${rounds} jsprof run(s);`);
  out.push('  c-down: the same with the count-down sampler. V8 under-counts functions it inlined (their callees hang under the caller), which adds to gaps.');
  out.push(`- bias: jsprof vs V8 profiling the same instrumented code (${v8ChecksRuns} run(s)): the sampling's own error, without the checks' cost.`);
  out.push('- distort.: V8 on instrumented code vs V8 on the plain program: how much the checks themselves move time between functions.');
  out.push('- all fns: also functions below the threshold; without checks they never appear as a leaf in jsprof, so that gap is expected to be larger.');
  out.push(`- V8 against itself, worst spread of one function's share between its runs: ${results.map((p) => `${p.name} ${p.v8.runs > 1 ? points(p.v8.spread.gap) : '-'}`).join(', ')}.`);
  out.push('');
  out.push(`phases: inclusive share of each phase function of the program (${main.label}, sampler thread) against the share of the work`);
  out.push("phase's wall time it took by the program's own timers, in the runs each profiler profiled (plain runs' timers for reference):");
  for (const p of results.filter((r) => r.phases)) {
    const rows = p.phases.rows.map((r) => `${r.name} ${points(r.plain)} (jsprof ${points(r.jsprof)}/${points(r.jsprofTimer)}, V8 ${points(r.v8)}/${points(r.v8Timer)})`);
    out.push(`- ${p.name}: worst gap jsprof ${points(p.phases.worstJsprof)}, V8 ${points(p.phases.worstV8)} points; ${rows.join(', ')}`);
  }
  const notes = [];
  for (const p of results) {
    if (!p.deterministic) notes.push(`${p.name}: results differed between runs`);
    if (p.v8.unmatched.length) notes.push(`${p.name}: ${p.v8.unmatched.length} V8 frame(s) start where the Babel plugin has no function, e.g. ${p.v8.unmatched.slice(0, 3).join('; ')}`);
    const m = p.configs.find((c) => c.id === main.id).mismatches;
    if (m.unplaced.length) notes.push(`${p.name}: ${m.unplaced.length} jsprof frame(s) start where no function starts, e.g. ${m.unplaced.slice(0, 3).map((u) => `${u.name || "''"} ${u.key}`).join('; ')}`);
    if (m.names.length) notes.push(`${p.name}: ${m.names.length} frame(s) named differently than V8 names them, e.g. ${m.names.slice(0, 3).map((n) => `V8 '${n.v8}' jsprof '${n.jsprof}' (${n.key.split('/').pop()})`).join('; ')}`);
    for (const c of p.configs) {
      for (const st of c.countDown.samplerStats.concat(c.thread.samplerStats)) {
        if (st && st.error) notes.push(`${p.name} ${c.id}: samplerStats failed: ${st.error}`);
      }
      const modes = (list) => new Set(list.filter(Boolean).map((st) => st.mode));
      const cd = modes(c.countDown.samplerStats);
      const th = modes(c.thread.samplerStats);
      if (cd.size && !(cd.size === 1 && cd.has('count-down'))) notes.push(`${p.name} ${c.id}: JSPROF_SAMPLER=count-down ended in mode ${[...cd].join('/')}`);
      if (th.size && !(th.size === 1 && th.has('thread'))) notes.push(`${p.name} ${c.id}: the thread sampler ended in mode ${[...th].join('/')}`);
    }
  }
  if (notes.length) out.push('', 'notes:', ...notes.map((n) => `- ${n}`));
  return out.join('\n');
}

function main() {
  if (argv.includes('--reprint')) {
    // Prints the table again from bench/out/results.json (for working on the table itself).
    const saved = JSON.parse(fs.readFileSync(path.join(OUT, 'results.json'), 'utf8'));
    process.stdout.write(`${printTable(saved.machine, saved.programs, summarize(saved.programs), { ...saved.settings, quick: saved.quick })}\n`);
    return;
  }
  const machine = { cpu: os.cpus()[0].model, cores: os.cpus().length, node: process.version, os: `${os.type()} ${os.release()}` };
  fs.mkdirSync(OUT, { recursive: true });
  fs.rmSync(path.join(OUT, 'traces'), { recursive: true, force: true });
  fs.rmSync(path.join(OUT, 'cpuprofiles'), { recursive: true, force: true });
  const programs = ONLY ? PROGRAMS.filter((p) => p.name === ONLY) : PROGRAMS;
  const started = Date.now();
  const results = [];
  for (const program of programs) {
    log(`${program.name}: ${program.what}`);
    results.push(benchProgram(program));
  }
  const summary = summarize(results);
  const text = printTable(machine, results, summary, { ...SETTINGS, quick: QUICK });
  process.stdout.write(`${text}\n`);
  const seconds = (Date.now() - started) / 1000;
  log(`bench took ${seconds.toFixed(0)} s`);
  const json = {
    machine,
    quick: QUICK,
    settings: SETTINGS,
    seconds,
    programs: results.map((p) => ({
      ...p,
      configs: p.configs.map((c) => ({
        ...c,
        thread: { ...c.thread, accuracy: trimAccuracy(c.thread.accuracy) },
        countDown: { ...c.countDown, accuracy: trimAccuracy(c.countDown.accuracy) },
      })),
    })),
    summary,
    table: text,
  };
  fs.writeFileSync(path.join(OUT, 'results.json'), JSON.stringify(json, null, 2));
  log(`results written to ${path.relative(process.cwd(), path.join(OUT, 'results.json'))}`);
}

/** Keeps the 15 largest gaps of each comparison in results.json. */
function trimAccuracy(a) {
  return a && { ...a, rows: a.rows.slice(0, 15) };
}

main();
