'use strict';
/**
 * Self time against V8's own profiler (issue 24): what a reader who looks at self time first sees.
 *
 *   node bench/self-time.js [--runs N] [--only NAME]
 *
 * For the bench programs and two large real CLI programs nobody here wrote (prettier formatting
 * 1.9 MB of JavaScript, eslint linting 192 files; installed into bench/out/real on first use), it
 * runs `node --cpu-prof` (1 ms) and `jsprof run` at 10 ms with each sampler, and compares each
 * function's self share. V8's profile is folded first as jsprof promises to charge time: a function
 * jsprof does not instrument (below the threshold, a built-in) counts in its nearest instrumented
 * caller. Shares are of the samples with a function jsprof instruments on the stack (for the bench
 * programs, in their work phase): start-up and module code, which no check can charge, are left out. Prints, per program and sampler, the worst self-share gap and the functions of
 * jsprof's top 5 by self whose folded V8 self share is under 1%; writes bench/out/self-time.json.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const ROOT = path.resolve(__dirname, '..');
const { sourceInfo, functionAt, keyOf } = require('./functions');
const { profileNodes, splitInlined } = require('./cpuprofile');
const { flagValue, usageError } = require('./configs');
const PROGRAMS = require('./programs');
const { isOwnFile } = require(path.join(ROOT, 'packages/cli/dist/filter.js'));
const { REAL, ensureReal } = require('./real');

const argv = process.argv.slice(2);
const RUNS = argv.includes('--runs') ? Number(flagValue(argv, '--runs')) : 2;
if (!Number.isInteger(RUNS) || RUNS < 1) usageError('--runs must be a whole number ≥ 1');
const ONLY = flagValue(argv, '--only') ?? null;
const JSPROF = path.join(ROOT, 'packages/cli/bin/jsprof.js');
const OUT = path.join(__dirname, 'out');
/** jsprof run's default placement: which functions it instruments. */
const POLICY = { threshold: 10, loopingFunctions: true };
const GOAL_POINTS = 5;
const SMALL = 0.01;
const log = (msg) => process.stderr.write(`${msg}\n`);

const REAL_PACKAGES = ['prettier@3.10.1', 'eslint@9.39.5'];
const LINT_RULES = '{"no-unused-vars":"error","eqeqeq":"error","no-shadow":"error","prefer-const":"error","complexity":["error",5]}';

/** prettier and eslint with inputs taken from this repository's node_modules, installed once. */
function realPrograms() {
  ensureReal(REAL_PACKAGES);
  const inputs = path.join(REAL, 'inputs');
  const copy = (from, to) => fs.cpSync(path.join(ROOT, 'node_modules', from), path.join(inputs, to), { recursive: true });
  if (!fs.existsSync(inputs)) {
    copy('@babel/parser/lib/index.js', 'format/babel-parser.js');
    copy('vite/dist/node/chunks/config.js', 'format/vite-config.js');
    copy('js-yaml/lib', 'lint/js-yaml');
    copy('webpack/lib/optimize', 'lint/webpack-optimize');
    copy('webpack/lib/dependencies', 'lint/webpack-dependencies');
  }
  return [
    { name: 'prettier', cwd: REAL, args: ['node_modules/prettier/bin/prettier.cjs', 'inputs/format'], what: 'prettier 3 formats 1.9 MB of JavaScript (2 files)' },
    {
      name: 'eslint',
      cwd: REAL,
      args: ['node_modules/eslint/bin/eslint.js', '--no-config-lookup', '--rule', LINT_RULES, 'inputs/lint'],
      what: 'eslint 9 lints 192 files (js-yaml, webpack) with 5 rules',
      exitCodes: [0, 1], // it finds problems
    },
  ];
}

function run(program, args, env = {}) {
  const result = spawnSync(process.execPath, args, { cwd: program.cwd ?? ROOT, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (!(program.exitCodes ?? [0]).includes(result.status)) throw new Error(`${program.name}: exit ${result.status}\n${result.stderr.slice(-2000)}`);
  return result;
}

/** Whether jsprof instruments the function with this key (keys of files it does not read: no). */
function instrumented(key, url) {
  const info = url && url.startsWith('file:') ? sourceInfo(url, POLICY) : null;
  return !!info?.functions.find((f) => f.key === key)?.instrumented;
}

/**
 * Folded V8 self shares: each sample's self time, split from its node by line where V8 inlined
 * (see cpuprofile.js), goes to the innermost function jsprof instruments on its stack.
 */
function v8SelfShares(profile, rootKey) {
  const { byId, parent, hits } = profileNodes(profile);
  const place = (cf) => {
    if (!cf.url || (cf.url.startsWith('file:') && isOwnFile(cf.url))) return null;
    const line = cf.lineNumber + 1;
    const column = cf.columnNumber + 1;
    const info = cf.url.startsWith('file:') ? sourceInfo(cf.url) : null;
    const fn = info ? functionAt(info, line, column) : null;
    return { key: fn ? fn.key : keyOf(cf.url, line, column), url: cf.url, name: cf.functionName, info, fn };
  };
  const stackOf = (node) => {
    const frames = [];
    for (let n = node; n; n = byId.get(parent.get(n.id))) {
      const f = place(n.callFrame);
      if (f) frames.push(f);
    }
    return frames; // innermost first
  };
  const self = new Map();
  const names = new Map();
  let total = 0;
  for (const [id, count] of hits) {
    const node = byId.get(id);
    const stack = stackOf(node);
    if (stack.length === 0 || (rootKey && !stack.some((f) => f.key === rootKey))) continue;
    const own = place(node.callFrame);
    for (const [inlined, weight] of splitInlined(node, count, own?.info, own?.fn)) {
      const frames = inlined ? [{ key: inlined.key, url: node.callFrame.url, name: inlined.name }, ...stack] : stack;
      const owner = frames.find((f) => instrumented(f.key, f.url));
      if (!owner) continue; // startup, module code: no function jsprof instruments to charge
      total += weight;
      self.set(owner.key, (self.get(owner.key) || 0) + weight);
      names.set(owner.key, owner.name || '(anonymous)');
    }
  }
  return { total, shares: sharesOf(self, total, names) };
}

/** jsprof's self shares as its report shows them: the innermost frame of each sample, built-ins passed over. */
function jsprofSelfShares(trace, rootKey) {
  const keyOfFrame = (f) => (f.resourceId === undefined ? null : keyOf(trace.resources[f.resourceId], f.line, f.column));
  const self = new Map();
  const names = new Map();
  let total = 0;
  for (const sample of trace.samples) {
    if (sample.stackId === undefined) continue;
    const keys = [];
    const urls = [];
    for (let s = sample.stackId; s !== undefined; s = trace.stacks[s].parentId) {
      const frame = trace.frames[trace.stacks[s].frameId];
      const key = keyOfFrame(frame);
      if (key) {
        keys.push(key);
        urls.push(trace.resources[frame.resourceId]);
        if (!names.has(key)) names.set(key, frame.name || '(anonymous)');
      }
    }
    if (keys.length === 0 || (rootKey && !keys.includes(rootKey))) continue;
    if (!keys.some((key, i) => instrumented(key, urls[i]))) continue; // as V8's samples with no such function
    total++;
    self.set(keys[0], (self.get(keys[0]) || 0) + 1);
  }
  return { total, shares: sharesOf(self, total, names) };
}

function sharesOf(weights, total, names) {
  const shares = new Map();
  for (const [key, w] of weights) shares.set(key, { name: names.get(key), share: total ? w / total : 0 });
  return shares;
}

function average(list) {
  const sum = new Map();
  for (const { shares } of list) {
    for (const [key, s] of shares) {
      const entry = sum.get(key) || { name: s.name, share: 0 };
      entry.share += s.share / list.length;
      sum.set(key, entry);
    }
  }
  return sum;
}

function compare(v8, jsprof) {
  let worst = { gap: 0, key: '-', v8: 0, jsprof: 0 };
  for (const key of new Set([...v8.keys(), ...jsprof.keys()])) {
    const a = v8.get(key)?.share ?? 0;
    const b = jsprof.get(key)?.share ?? 0;
    if (Math.abs(b - a) > worst.gap) worst = { gap: Math.abs(b - a), key, name: (jsprof.get(key) ?? v8.get(key)).name, v8: a, jsprof: b };
  }
  const top5 = [...jsprof].sort((x, y) => y[1].share - x[1].share).slice(0, 5);
  const crowned = top5.filter(([key]) => (v8.get(key)?.share ?? 0) < SMALL).map(([key, s]) => ({ key, name: s.name, jsprof: s.share, v8: v8.get(key)?.share ?? 0 }));
  return { worst, crowned, top5: top5.map(([key, s]) => ({ key, name: s.name, jsprof: s.share, v8: v8.get(key)?.share ?? 0 })) };
}

const where = (key) => {
  const m = /([^/]+):(\d+):\d+$/.exec(key);
  return m ? `${m[1]}:${m[2]}` : key;
};
const pct = (x) => `${(100 * x).toFixed(1)}%`;

function benchOne(program) {
  const rootKey = program.root ? sourceInfo(pathToFileURL(program.args[0]).href).functions.find((f) => f.name === program.root)?.key : null;
  const dir = path.join(OUT, 'self-time', program.name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // One run first, so that every profiled run finds the instrumentation cache warm.
  run(program, [JSPROF, 'run', '-q', '--out', path.join(dir, 'warm-up.json'), ...program.args]);
  const v8 = [];
  const jsprof = { thread: [], 'count-down': [] };
  for (let i = 0; i < RUNS; i++) {
    const profDir = path.join(dir, `v8-${i}`);
    run(program, ['--cpu-prof', '--cpu-prof-dir', profDir, ...program.args]);
    const profiles = fs.readdirSync(profDir).map((f) => JSON.parse(fs.readFileSync(path.join(profDir, f), 'utf8')));
    const profile = profiles.sort((a, b) => b.samples.length - a.samples.length)[0];
    v8.push(v8SelfShares(profile, rootKey));
    for (const sampler of Object.keys(jsprof)) {
      const out = path.join(dir, `${sampler}-${i}.json`);
      run(program, [JSPROF, 'run', '-q', '--out', out, '--sample-interval', '10', ...program.args], sampler === 'count-down' ? { JSPROF_SAMPLER: 'count-down' } : {});
      jsprof[sampler].push(jsprofSelfShares(JSON.parse(fs.readFileSync(out, 'utf8')), rootKey));
    }
    log(`self-time: ${program.name} run ${i + 1}/${RUNS}`);
  }
  const v8Shares = average(v8);
  const result = { name: program.name, what: program.what, v8Samples: v8.map((r) => r.total), samplers: {} };
  for (const [sampler, runs] of Object.entries(jsprof)) {
    result.samplers[sampler] = { samples: runs.map((r) => r.total), ...compare(v8Shares, average(runs)) };
  }
  return result;
}

function main() {
  const programs = [
    ...PROGRAMS.map((p) => ({ name: p.name, args: [p.file], root: 'work', what: p.what })),
    ...realPrograms(),
  ].filter((p) => !ONLY || p.name === ONLY);
  if (programs.length === 0) usageError(`no program named ${ONLY}`);
  const results = programs.map(benchOne);
  fs.writeFileSync(path.join(OUT, 'self-time.json'), JSON.stringify({ date: new Date().toISOString(), runs: RUNS, policy: POLICY, results }, null, 2));
  const lines = [
    `Self time vs V8 (node --cpu-prof, folded into the nearest function jsprof instruments), ${RUNS} runs each, jsprof run at 10 ms; goal: worst gap ≤ ${GOAL_POINTS} points, no function under 1% (V8) in jsprof's top 5.`,
    '',
    'program      sampler     worst self gap (jsprof vs V8)                                top 5 by self under 1% in V8',
  ];
  for (const r of results) {
    for (const [sampler, s] of Object.entries(r.samplers)) {
      const w = s.worst;
      const gapText = `${(100 * w.gap).toFixed(1).padStart(5)} pts  ${`${w.name} ${where(w.key)}`.slice(0, 40).padEnd(40)} ${pct(w.jsprof)} vs ${pct(w.v8)}`;
      const crowned = s.crowned.length ? s.crowned.map((c) => `${c.name} ${pct(c.jsprof)} (V8 ${pct(c.v8)})`).join(', ') : 'none';
      lines.push(`${r.name.padEnd(12)} ${sampler.padEnd(11)} ${gapText.padEnd(76)} ${crowned}`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
