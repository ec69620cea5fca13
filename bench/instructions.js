'use strict';
/**
 * What the checks cost in instructions executed, where wall time is too noisy to tell a few percent
 * apart: each library's workload (bench/instructions/workloads.js) runs under valgrind (cachegrind,
 * no cache simulation) in V8 without background threads, with fixed random seeds and a predictable
 * garbage collection schedule, for two numbers of rounds; the difference, per round, is one round
 * once the code is optimised (the rounds compared come after tier-up: see workloads.js). Without
 * the fixed schedule, acorn's round moved by up to 20% between spans of rounds, as collections
 * fell in different rounds. Instructions are not time (a load that misses the cache costs more
 * than an add), but they move with every check inserted or saved. Compilation and tier-up are not
 * in these counts: the checks' larger bytecode costs there too, which the wall-time bench sees. The
 * default placement runs once more with a sample taken every so many checks (the workload's
 * `sampleEvery`), as the runtime takes them: what a sample costs.
 *
 *   node bench/instructions.js [--only NAME] [--placements ID,ID] [--threshold N]     (needs valgrind: apt-get install -y valgrind)
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { configsFrom, flagValue, usageError } = require('./configs');
const workloads = require('./instructions/workloads');
const { instrumentModule } = require('../packages/cli/dist/instrument.js');
const { instrumentOptions } = require('./measure');

const ROOT = path.resolve(__dirname, '..');
const ROUND = path.join(__dirname, 'instructions', 'round.js');
const argv = process.argv.slice(2);
const { configs: CONFIGS } = configsFrom(argv);
const ONLY = flagValue(argv, '--only') ?? null;
const PARALLEL = Math.max(1, Math.min(2, os.cpus().length));

if (spawnSync('valgrind', ['--version']).status !== 0) usageError('valgrind is needed (apt-get install -y valgrind)');
if (ONLY && !workloads[ONLY]) usageError(`no program ${ONLY}; there are ${Object.keys(workloads).join(', ')}`);

/** Instructions executed by one process running `rounds` rounds. */
function instructions(program, libraryFile, codeFile, rounds, sampleEvery) {
  const args = ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null', '--smc-check=all-non-file',
    process.execPath, '--single-threaded', '--predictable-gc-schedule', '--hash-seed=1', '--random-seed=1', ROUND, program, libraryFile, codeFile, String(rounds), ...(sampleEvery ? [String(sampleEvery)] : [])];
  return new Promise((resolve, reject) => {
    const child = spawn('valgrind', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      const refs = /I\s+refs:\s+([\d,]+)/.exec(err);
      if (code !== 0 || !refs) return reject(new Error(`${program} (${path.basename(codeFile)}) failed:\n${err.slice(-2000)}`));
      const [check, samples] = out.trim().split(' ');
      resolve({ count: Number(refs[1].replace(/,/g, '')), check, samples: Number(samples) || 0 });
    });
  });
}

async function pool(tasks, size) {
  const results = new Array(tasks.length);
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  }));
  return results;
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-instructions-'));
  const rows = [];
  try {
    for (const [program, { library, rounds = [1, 3], sampleEvery }] of Object.entries(workloads)) {
      if (ONLY && program !== ONLY) continue;
      const libraryFile = path.join(ROOT, 'node_modules', library);
      const source = fs.readFileSync(libraryFile, 'utf8');
      const variants = [{ id: 'plain', label: 'plain', file: libraryFile }];
      for (const config of CONFIGS) {
        const instrumented = instrumentModule(source, libraryFile, instrumentOptions(config));
        if (!instrumented) throw new Error(`${library} could not be instrumented`);
        const file = path.join(work, `${program}-${config.id}.js`);
        fs.writeFileSync(file, instrumented.code);
        variants.push({ id: config.id, label: config.label, file });
        if (config.id === 'default') variants.push({ id: 'sampled', label: `  sampled every ${sampleEvery.toLocaleString('en')} checks`, file, sampleEvery });
      }
      const tasks = variants.flatMap((v) => rounds.map((n) => () => instructions(program, libraryFile, v.file, n, v.sampleEvery)));
      process.stderr.write(`${program}: ${tasks.length} runs under valgrind\n`);
      const counts = await pool(tasks, PARALLEL);
      const checks = new Set(counts.map((c, i) => `${c.check}/${rounds[i % 2]}`));
      if (checks.size !== 2) process.stderr.write(`  WARNING: ${program} computed different results: ${[...checks].join(', ')}\n`);
      const perRound = variants.map((v, i) => ({
        ...v,
        count: (counts[2 * i + 1].count - counts[2 * i].count) / (rounds[1] - rounds[0]),
        samples: (counts[2 * i + 1].samples - counts[2 * i].samples) / (rounds[1] - rounds[0]),
      }));
      const unsampled = perRound.find((v) => v.id === 'default');
      for (const v of perRound) {
        const perSample = v.samples ? (v.count - unsampled.count) / v.samples : null;
        rows.push({ program, label: v.label, count: v.count, overhead: v.count / perRound[0].count - 1, samples: v.samples, perSample });
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const lines = [`jsprof instructions — ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}, node ${process.version}; instructions of one optimised round, valgrind`, ''];
  lines.push(`${'program'.padEnd(12)} ${'config'.padEnd(38)} ${'instructions'.padStart(14)} ${'vs plain'.padStart(9)}`);
  for (const r of rows) {
    const sampled = r.samples ? `  (${r.samples.toFixed(0)} samples a round, ${(r.perSample / 1e6).toFixed(2)}M instructions each)` : '';
    lines.push(`${r.program.padEnd(12)} ${r.label.padEnd(38)} ${`${(r.count / 1e6).toFixed(1)}M`.padStart(14)} ${`${r.overhead >= 0 ? '+' : ''}${(r.overhead * 100).toFixed(1)}%`.padStart(9)}${sampled}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  fs.mkdirSync(path.join(__dirname, 'out'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, 'out', 'instructions.json'), JSON.stringify(rows, null, 2));
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
