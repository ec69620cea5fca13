#!/usr/bin/env node
'use strict';
/**
 * test262's language tests through each jsprof front end: which tests pass untouched and fail
 * instrumented. See `node scripts/conformance.js --help`.
 */
const { fork, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { checkoutProblem, findTests, readMetadata, unsupported, UNSUPPORTED_FEATURES } = require('./conformance/test262');
const { FRONTS, SETTINGS } = require('./conformance/fronts');
const { ASYNC_TIMEOUT_MS } = require('./conformance/execute');

/** A run (one test, one way) that takes longer than this hangs: its worker is killed and the run fails. */
const HANG_MS = 30_000;

const HELP = `Usage: npm run conformance -- <test262 checkout> [options]
       node scripts/conformance.js <test262 checkout> [options]

Runs tc39/test262's language tests (test/language/**, not _FIXTURE files) untouched, then each one
that passes untouched instrumented by each jsprof front end (Babel plugin, ESTree/acorn, SWC) at
{ threshold: 1 } and at { threshold: 1, loops: true }. Instrumented code runs twice: as it is
(no runtime: the prelude's inert stand-ins) and with a stand-in runtime whose every check takes the
slow path. A test fails instrumented if any of those runs does not pass; a front that refuses a
test whose negative phase is parse, with a syntax error, passes.

Each test runs as test262's INTERPRETING.md says: in a new vm context with print and $262
(createRealm, evalScript, detachArrayBuffer, gc, global; no agent), harness files as scripts of
their own before it (never instrumented), strict and non-strict unless its flags say otherwise,
modules as vm.SourceTextModule (imported _FIXTURE modules are instrumented as the test is).
Tests needing features Node 20 lacks are skipped. An async test fails if it has not printed its
result ${ASYNC_TIMEOUT_MS / 1000} s after its code ran; a run that takes over ${HANG_MS / 1000} s in all fails as hung (its worker is
killed and replaced). Needs \`npm run build\` first (it uses packages/*/dist).

Options:
  --front babel|estree|swc   only this front (repeatable; default all three)
  --filter <text>            only tests whose path (e.g. test/language/expressions/object/…)
                             contains <text> (repeatable: any of them)
  --jobs <n>                 worker processes (default 2)
  --json                     print the results as JSON on stdout instead of the report
  -h, --help                 this text

Prints, per front, the tests that pass untouched and fail instrumented (with the first failing
run: setting, variant, runtime or not, and what happened), then a table per front and setting.
Progress goes to stderr when it is a terminal.
Exit status: 0 if no test fails instrumented, 1 if some do, 2 for bad arguments or a directory
that is not a test262 checkout.`;

function fail(message) {
  process.stderr.write(`conformance: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { root: null, fronts: [], filters: [], jobs: 2, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${a} needs a value (see --help)`);
      return argv[++i];
    };
    if (a === '-h' || a === '--help') {
      process.stdout.write(`${HELP}\n`);
      process.exit(0);
    } else if (a === '--json') args.json = true;
    else if (a === '--front') {
      const f = value();
      if (!FRONTS.includes(f)) fail(`unknown front ${JSON.stringify(f)} (babel, estree or swc)`);
      if (!args.fronts.includes(f)) args.fronts.push(f);
    } else if (a === '--filter') args.filters.push(value());
    else if (a === '--jobs') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1 || n > 64) fail('--jobs needs a whole number from 1 to 64');
      args.jobs = n;
    } else if (a.startsWith('-')) fail(`unknown option ${a} (see --help)`);
    else if (args.root) fail(`one test262 checkout only (got ${args.root} and ${a})`);
    else args.root = a;
  }
  if (!args.root) fail('give the path of a tc39/test262 checkout (see --help)');
  if (args.fronts.length === 0) args.fronts = FRONTS.slice();
  else args.fronts = FRONTS.filter((f) => args.fronts.includes(f));
  args.root = path.resolve(args.root);
  return args;
}

function distProblem() {
  const repo = path.resolve(__dirname, '..');
  for (const p of ['packages/policy/dist/index.js', 'packages/babel-plugin/dist/index.js', 'packages/estree-instrument/dist/index.js', 'packages/swc-plugin/dist/index.js']) {
    if (!fs.existsSync(path.join(repo, p))) return `${p} is missing: run npm run build first`;
  }
  return null;
}

const RECYCLE_RSS = 600 * 1024 * 1024; // a worker this large is replaced (vm modules are never collected)

/** Every worker process alive, to end them if this process is interrupted. */
const children = new Set();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const child of children) child.kill('SIGKILL');
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  });
}

/**
 * The worker pool: each worker takes one test at a time. A worker silent for HANG_MS is killed, the
 * run it was in fails, and the test goes back in the queue for its other runs.
 */
function runPool({ root, jobs, fronts, tests, onRun, onProgress }) {
  return new Promise((resolve) => {
    const queue = tests.map((rel, i) => ({ id: i, rel, root, fronts, skip: [] }));
    const known = new Map(); // job id → labels reported
    let finished = 0;
    const workers = [];

    const spawn = () => {
      const child = fork(path.join(__dirname, 'conformance', 'worker.js'), [], {
        execArgv: ['--experimental-vm-modules', '--expose-gc', '--no-warnings'],
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      children.add(child);
      child.on('exit', () => children.delete(child));
      const w = { child, job: null, label: null, lastHeard: Date.now(), dead: false };
      child.on('message', (m) => {
        if (!w.job || m.id !== w.job.id) return;
        w.lastHeard = Date.now();
        if (m.type === 'start') w.label = m.label;
        else if (m.type === 'run') {
          known.get(m.id).add(m.label);
          onRun(w.job.rel, m.run);
        } else if (m.type === 'done') {
          if (m.error) onRun(w.job.rel, { kind: 'error', pass: false, detail: `runner error: ${m.error.split('\n')[0]}` });
          finish(w, m.rss);
        }
      });
      child.on('exit', () => {
        if (w.dead) return;
        w.dead = true;
        if (w.job) lost(w, 'the worker process died');
        replace(w);
      });
      workers.push(w);
      next(w);
      return w;
    };

    const replace = (w) => {
      const i = workers.indexOf(w);
      if (i >= 0) workers.splice(i, 1);
      if (queue.length > 0) spawn();
      else if (!workers.some((x) => x.job)) done();
    };

    const finish = (w, rss) => {
      w.job = null;
      w.label = null;
      finished++;
      onProgress(finished, tests.length);
      if (rss > RECYCLE_RSS && queue.length > 0) {
        w.dead = true;
        w.child.kill();
        replace(w);
      } else next(w);
    };

    /** The run a dead or hung worker was in fails; the test goes back in the queue without it. */
    const lost = (w, why) => {
      const job = w.job;
      const label = w.label;
      w.job = null;
      if (label) {
        const [kind, ...rest] = label.split('|');
        if (kind === 'untouched') onRun(job.rel, { kind: 'untouched', variant: rest[0], pass: false, detail: why });
        else onRun(job.rel, { kind: 'instrumented', front: kind, setting: rest[0], variant: rest[1], runtime: rest[2] === 'runtime', pass: false, detail: why });
        known.get(job.id).add(label);
        if (kind !== 'untouched') {
          queue.unshift({ ...job, skip: [...known.get(job.id)] });
          return;
        }
      }
      finished++;
      onProgress(finished, tests.length);
    };

    const next = (w) => {
      if (w.dead) return;
      const job = queue.shift();
      if (!job) {
        w.dead = true;
        w.child.kill();
        const i = workers.indexOf(w);
        if (i >= 0) workers.splice(i, 1);
        if (!workers.some((x) => x.job)) done();
        return;
      }
      if (!known.has(job.id)) known.set(job.id, new Set());
      w.job = job;
      w.label = null;
      w.lastHeard = Date.now();
      w.child.send(job);
    };

    let resolved = false;
    const done = () => {
      if (resolved) return;
      resolved = true;
      clearInterval(watchdog);
      for (const w of workers) {
        w.dead = true;
        w.child.kill();
      }
      resolve();
    };

    const watchdog = setInterval(() => {
      for (const w of workers.slice()) {
        if (w.job && !w.dead && Date.now() - w.lastHeard > HANG_MS) {
          w.dead = true;
          w.child.kill('SIGKILL');
          lost(w, `hung: nothing for ${HANG_MS / 1000} s, the worker was killed`);
          replace(w);
        }
      }
    }, 1000);

    if (queue.length === 0) return done();
    for (let i = 0; i < Math.min(jobs, queue.length); i++) spawn();
  });
}

function checkoutCommit(root) {
  try {
    return execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

function formatMs(ms) {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const problem = checkoutProblem(args.root) ?? distProblem();
  if (problem) fail(problem);
  const started = Date.now();

  const all = findTests(args.root).filter((rel) => args.filters.length === 0 || args.filters.some((f) => rel.includes(f)));
  const skipped = {};
  let skippedTests = 0;
  const tests = [];
  for (const rel of all) {
    const missing = unsupported(readMetadata(fs.readFileSync(path.join(args.root, rel), 'utf8')));
    if (missing.length) {
      skippedTests++;
      for (const f of missing) skipped[f] = (skipped[f] ?? 0) + 1;
    } else tests.push(rel);
  }

  const records = new Map(tests.map((rel) => [rel, { untouched: [], runs: [] }]));
  const tty = process.stderr.isTTY && !process.env.CI;
  let lastDraw = 0;
  const progress = (count, total) => {
    if (!tty) return;
    const now = Date.now();
    if (now - lastDraw < 250 && count < total) return;
    lastDraw = now;
    process.stderr.write(`\r\x1b[K${count}/${total} tests, ${formatMs(now - started)}`);
  };
  await runPool({
    root: args.root,
    jobs: args.jobs,
    fronts: args.fronts,
    tests,
    onRun(rel, run) {
      const record = records.get(rel);
      if (run.kind === 'untouched' || run.kind === 'error') record.untouched.push(run);
      else record.runs.push(run);
    },
    onProgress: progress,
  });
  if (tty) process.stderr.write('\r\x1b[K');
  const elapsedMs = Date.now() - started;

  // What each test did.
  const passUntouched = [];
  const failUntouched = [];
  for (const [rel, record] of records) {
    const bad = record.untouched.find((r) => !r.pass);
    if (bad || record.untouched.length === 0) failUntouched.push({ test: rel, variant: bad?.variant, detail: bad?.detail ?? 'no result' });
    else passUntouched.push(rel);
  }
  const summary = [];
  const failures = {};
  for (const front of args.fronts) {
    failures[front] = [];
    for (const rel of passUntouched) {
      const runs = records.get(rel).runs.filter((r) => r.front === front);
      const failed = runs.filter((r) => !r.pass);
      if (failed.length === 0) continue;
      const settings = SETTINGS.map((s) => s.name).filter((s) => failed.some((r) => r.setting === s));
      const entry = { test: rel, settings, runs: failed.map(({ kind, front: _f, ...r }) => r) };
      if (front === 'babel') entry.babelAlone = failed.every((r) => r.control && !r.control.pass);
      failures[front].push(entry);
    }
    for (const setting of SETTINGS) {
      const failing = failures[front].filter((e) => e.settings.includes(setting.name));
      let checks = 0;
      for (const rel of passUntouched) for (const r of records.get(rel).runs) if (r.front === front && r.setting === setting.name) checks += r.checks ?? 0;
      summary.push({
        front,
        setting: setting.name,
        options: setting.options,
        run: tests.length,
        passUntouched: passUntouched.length,
        failInstrumented: failing.length,
        frontRefused: failing.filter((e) => e.runs.some((r) => r.setting === setting.name && r.frontRefused)).length,
        failWithoutJsprof:
          front === 'babel'
            ? failing.filter((e) => e.runs.filter((r) => r.setting === setting.name).every((r) => r.control && !r.control.pass)).length
            : null,
        checksFired: checks,
      });
    }
  }

  const result = {
    test262: { root: args.root, commit: checkoutCommit(args.root) },
    node: process.version,
    filters: args.filters,
    fronts: args.fronts,
    settings: SETTINGS.map((s) => ({ name: s.name, options: s.options })),
    elapsedMs,
    tests: { found: all.length, skipped: skippedTests, run: tests.length, passUntouched: passUntouched.length, failUntouched: failUntouched.length },
    skippedFeatures: skipped,
    summary,
    failures,
    failUntouched,
  };

  if (args.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    const out = [];
    const commit = result.test262.commit ? ` (${result.test262.commit.slice(0, 12)})` : '';
    out.push(`test262${commit} at ${args.root}, test/language${args.filters.length ? ` filtered by ${args.filters.map((f) => JSON.stringify(f)).join(' or ')}` : ''}:`);
    out.push(`${all.length} tests, ${skippedTests} skipped (features Node ${process.versions.node} lacks), ${tests.length} run, ${passUntouched.length} pass untouched.`);
    for (const front of args.fronts) {
      const list = failures[front];
      out.push('');
      out.push(`${front}: ${list.length} ${list.length === 1 ? 'test passes untouched and fails' : 'tests pass untouched and fail'} instrumented`);
      for (const e of list) {
        const first = e.runs[0];
        const where = `${first.setting}, ${first.variant}, ${first.runtime ? 'runtime' : 'no runtime'}`;
        const more = e.runs.length > 1 ? ` (+${e.runs.length - 1} more run${e.runs.length > 2 ? 's' : ''})` : '';
        const alone = e.babelAlone ? ' [fails with Babel alone too]' : '';
        out.push(`  ${e.test} [${e.settings.join('; ')}]${alone}`);
        out.push(`    ${where}: ${first.detail}${more}`);
      }
    }
    out.push('');
    const header = ['front', 'setting', 'tests run', 'pass untouched', 'fail instrumented', 'front refused', 'also without jsprof'];
    const rows = summary.map((s) => [s.front, `{ ${Object.entries(s.options).map(([k, v]) => `${k}: ${v}`).join(', ')} }`, s.run, s.passUntouched, s.failInstrumented, s.frontRefused, s.failWithoutJsprof ?? '-'].map(String));
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    out.push(line(header));
    for (const r of rows) out.push(line(r));
    out.push('');
    out.push(`"front refused": the front threw on a test that parses. "also without jsprof" (Babel only): Babel with no plugin fails it too.`);
    out.push(`${formatMs(elapsedMs)} with ${args.jobs} worker${args.jobs === 1 ? '' : 's'}.`);
    process.stdout.write(`${out.join('\n')}\n`);
  }
  process.exitCode = summary.some((s) => s.failInstrumented > 0) ? 1 : 0;
}

main().catch((error) => {
  process.stderr.write(`conformance: ${error?.stack ?? error}\n`);
  process.exit(2);
});
