'use strict';
/**
 * Runs one program one way and returns what it printed about its work phase.
 * Ways: plain `node`, `node --import register.js` (checks in place, no profiler), `jsprof run`
 * (profiling, either sampler), and `node --cpu-prof` (V8's profiler: the ground truth, and the
 * same with checks in place, to tell the checks' own distortion from the sampling's bias).
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const ROOT = path.resolve(__dirname, '..');
const REGISTER = path.join(ROOT, 'packages/cli/dist/register.js');
const JSPROF = path.join(ROOT, 'packages/cli/bin/jsprof.js');
const STATS_HELPER = path.join(__dirname, 'stats-helper.js');

/** The instrument options in the order `jsprof run` writes them, so all runs share the module cache. */
function instrumentOptions(config) {
  return { threshold: config.threshold, loopingFunctions: config.loopingFunctions, loops: config.loops, exits: config.exits };
}

function instrumentSettings(config) {
  return { instrument: instrumentOptions(config) };
}

function jsprofFlags(config) {
  return ['--threshold', String(config.threshold), ...(config.loopingFunctions ? [] : ['--no-looping-functions']), ...(config.loops ? ['--loops'] : []), ...(config.exits ? [] : ['--no-exits'])];
}

function baseEnv() {
  const env = { ...process.env };
  for (const k of ['JSPROF_RUN', 'JSPROF_SAMPLER', 'JSPROF_BENCH_STATS', 'NODE_OPTIONS']) delete env[k];
  return env;
}

/** Spawns node with `args` from the repository root; returns the parsed work line or throws with stderr. */
function spawnNode(args, env, what) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const line = (result.stdout || '').split('\n').find((l) => l.startsWith('{"work"'));
  if (result.status !== 0 || !line) {
    const err = new Error(`${what} failed (exit ${result.status}${result.signal ? `, ${result.signal}` : ''}):\n${(result.stderr || '').slice(-2000)}`);
    err.stderr = result.stderr;
    throw err;
  }
  return { work: JSON.parse(line).work, stderr: result.stderr };
}

function plain(program) {
  return spawnNode([program.file], baseEnv(), `node ${program.name}`);
}

function checksOnly(program, config) {
  const env = { ...baseEnv(), JSPROF_RUN: JSON.stringify(instrumentSettings(config)) };
  return spawnNode(['--import', pathToFileURL(REGISTER).href, program.file], env, `register ${program.name} ${config.id}`);
}

/** Loads the program's modules only (instrumenting them into the cache) without its work. */
function warm(program, config) {
  const env = { ...baseEnv(), JSPROF_RUN: JSON.stringify(instrumentSettings(config)) };
  spawnSync(process.execPath, ['--import', pathToFileURL(REGISTER).href, program.file, '--load-only'], { cwd: ROOT, env, stdio: 'ignore' });
}

/** `jsprof run` at 10 ms; returns the work line, the trace and the sampler's own counters. */
function profiled(program, config, sampler, tracePath) {
  const statsPath = `${tracePath}.stats.json`;
  fs.rmSync(statsPath, { force: true });
  const env = {
    ...baseEnv(),
    NODE_OPTIONS: `--import=${pathToFileURL(STATS_HELPER).href}`,
    JSPROF_BENCH_STATS: statsPath,
    ...(sampler === 'count-down' ? { JSPROF_SAMPLER: 'count-down' } : {}),
  };
  const args = [JSPROF, 'run', '-q', '--out', tracePath, '--sample-interval', '10', ...jsprofFlags(config), program.file];
  const run = spawnNode(args, env, `jsprof run ${program.name} ${config.id} ${sampler}`);
  const trace = JSON.parse(fs.readFileSync(tracePath, 'utf8'));
  const stats = fs.existsSync(statsPath) ? JSON.parse(fs.readFileSync(statsPath, 'utf8')) : null;
  return { ...run, trace, stats };
}

/**
 * `node --cpu-prof`, of the plain program or (with `config`) of the program with checks in place and
 * no profiler; returns the work line and the main thread's profile (a loader-hooks thread writes
 * its own).
 */
function cpuProfiled(program, dir, config) {
  fs.rmSync(dir, { recursive: true, force: true });
  const env = config ? { ...baseEnv(), JSPROF_RUN: JSON.stringify(instrumentSettings(config)) } : baseEnv();
  const args = ['--cpu-prof', '--cpu-prof-dir', dir, ...(config ? ['--import', pathToFileURL(REGISTER).href] : []), program.file];
  const run = spawnNode(args, env, `node --cpu-prof ${program.name}${config ? ` ${config.id}` : ''}`);
  const profiles = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
  const profile = profiles.find((p) => p.nodes.some((n) => n.callFrame.functionName === 'work')) || profiles[0];
  return { ...run, profile };
}

module.exports = { plain, checksOnly, warm, profiled, cpuProfiled, instrumentOptions };
