'use strict';
/**
 * Field traces for the benches, made from real ones: seed traces recorded with `jsprof run` from
 * real programs, cut into busy stretches between idle ones, each trace keeping only the stacks,
 * frames and resources its samples use (as a profiler emits them), its scripts served from a site's
 * URLs that change with every release. `bench/aggregate.js` and `bench/store.js` build on it.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const JSPROF = path.join(ROOT, 'packages/cli/bin/jsprof.js');

/** A small seeded generator (mulberry32), so every run generates the same traces. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Records a trace of each program with `jsprof run` into `dir`; `log` reports each. */
function recordSeeds(dir, programs, log) {
  return programs.map((program, i) => {
    const out = path.join(dir, `seed-${i}.json`);
    const run = spawnSync(process.execPath, [JSPROF, 'run', '-q', '--out', out, program], { cwd: ROOT, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`jsprof run ${program} failed: ${run.stderr}`);
    const trace = JSON.parse(fs.readFileSync(out, 'utf8'));
    log(`  seed ${path.relative(ROOT, program)}: ${trace.samples.length} samples, ${trace.frames.length} frames, ${trace.stacks.length} stacks`);
    return trace;
  });
}

/**
 * The seed's resources as a site serves them in a release: its files under the release's path (or
 * under the same path in every release when `release` is null), with `query` if any.
 */
function siteResources(seed, release, query = '') {
  const prefix = release === null ? 'https://shop.example/static/' : `https://shop.example/static/${release}/`;
  return seed.resources.map((url) => (url.startsWith('file:') ? `${prefix}${path.relative(ROOT, new URL(url).pathname)}${query}` : url));
}

/**
 * Samples like a field trace's, 10 ms apart: `count` of them, busy stretches of the seed (starting
 * anywhere, or from `start` within `spread` of the seed's samples) between idle ones.
 */
function fieldSamples(seed, rand, { count, start = 0, spread = 1, busy = [20, 320], idle = 200 }) {
  const samples = [];
  let time = 500 + rand() * 60_000;
  const tick = (stackId) => {
    // Without cross-origin isolation, performance.now() ticks in whole milliseconds.
    samples.push(stackId === undefined ? { timestamp: Math.round(time) } : { timestamp: Math.round(time), stackId });
    time += 10;
  };
  const n = seed.samples.length;
  while (samples.length < count) {
    const from = Math.floor(start * n + rand() * spread * n);
    const stretch = busy[0] + Math.floor(rand() * (busy[1] - busy[0]));
    for (let i = 0; i < stretch; i++) tick(seed.samples[(from + i) % n].stackId);
    const gap = Math.floor(rand() * idle);
    for (let i = 0; i < gap; i++) tick(undefined);
  }
  samples.length = count;
  return samples;
}

/** The trace of `samples`, keeping only the stacks, frames and resources they use (as a profiler emits them). */
function traceOf(seed, resources, samples) {
  const usedStacks = new Set();
  for (const s of samples) for (let id = s.stackId; id !== undefined && !usedStacks.has(id); id = seed.stacks[id].parentId) usedStacks.add(id);
  const stackIds = [...usedStacks].sort((a, b) => a - b);
  const frameIds = [...new Set(stackIds.map((id) => seed.stacks[id].frameId))].sort((a, b) => a - b);
  const resourceIds = [...new Set(frameIds.map((id) => seed.frames[id].resourceId).filter((r) => r !== undefined))].sort((a, b) => a - b);
  const index = (ids) => new Map(ids.map((id, i) => [id, i]));
  const [stackIndex, frameIndex, resourceIndex] = [index(stackIds), index(frameIds), index(resourceIds)];
  return {
    resources: resourceIds.map((id) => resources[id]),
    frames: frameIds.map((id) => {
      const frame = seed.frames[id];
      return frame.resourceId === undefined ? frame : { ...frame, resourceId: resourceIndex.get(frame.resourceId) };
    }),
    stacks: stackIds.map((id) => {
      const { frameId, parentId } = seed.stacks[id];
      const stack = { frameId: frameIndex.get(frameId) };
      if (parentId !== undefined) stack.parentId = stackIndex.get(parentId);
      return stack;
    }),
    samples: samples.map((s) => (s.stackId === undefined ? s : { timestamp: s.timestamp, stackId: stackIndex.get(s.stackId) })),
  };
}

/** The stack id of a sample of `seed` whose innermost frame is named `name` (the first found). */
function stackOfFunction(seed, name) {
  for (const sample of seed.samples) {
    if (sample.stackId !== undefined && seed.frames[seed.stacks[sample.stackId].frameId].name === name) return sample.stackId;
  }
  throw new Error(`no sample of the seed is in ${name}`);
}

/** The named function with the second most self samples in `seed`: a plausible place for a regression. */
function hotFunction(seed) {
  const self = new Map();
  for (const s of seed.samples) {
    if (s.stackId === undefined) continue;
    const name = seed.frames[seed.stacks[s.stackId].frameId].name;
    if (/^[A-Za-z_$][\w$]{2,}$/.test(name)) self.set(name, (self.get(name) ?? 0) + 1);
  }
  return [...self].sort((a, b) => b[1] - a[1])[1][0];
}

module.exports = { ROOT, JSPROF, random, recordSeeds, siteResources, fieldSamples, traceOf, stackOfFunction, hotFunction };
