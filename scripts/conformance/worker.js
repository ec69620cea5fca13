'use strict';
/**
 * A conformance worker (a child process of scripts/conformance.js, run with
 * --experimental-vm-modules). For each job `{ id, root, rel, fronts, skip }` it runs the test
 * untouched in each of its variants, then, if all of them pass, instrumented by each front at each
 * setting, without a runtime and with the always-firing stand-in. It reports each run as it
 * starts (`start`, so a hang can be pinned on it) and ends (`run`), then `done`.
 */
const fs = require('node:fs');
const path = require('node:path');
const { readMetadata, variants, harnessFiles } = require('./test262');
const { FRONTS, SETTINGS, transforms } = require('./fronts');
const { runTest, describe } = require('./execute');

// Babel's note on files over 500 KB ("deoptimised the styling") is not a result.
const consoleError = console.error;
console.error = (...args) => {
  if (typeof args[0] === 'string' && args[0].startsWith('[BABEL] Note')) return;
  consoleError(...args);
};
process.on('unhandledRejection', () => {}); // a test's own rejected promises are no failure

const STRICT_PREFIX = '"use strict";\n';

/** Instrumented fixtures, by transform, setting and file (they do not change during a run). */
const fixtureCache = new Map();

function fixtureTransform(transformName, setting) {
  return (text, file) => {
    const key = `${transformName}|${setting?.name}|${file}`;
    let code = fixtureCache.get(key);
    if (code === undefined) {
      try {
        code = transforms[transformName](text, 'module', file, setting?.options);
      } catch {
        code = text; // a fixture the front refuses (some are syntax errors on purpose) stays as it is
      }
      fixtureCache.set(key, code);
    }
    return code;
  };
}

function isSyntaxError(error) {
  return error instanceof SyntaxError || error?.name === 'SyntaxError' || /SyntaxError/.test(String(error?.constructor?.name));
}

async function runJob(job) {
  const file = path.join(job.root, job.rel);
  const source = fs.readFileSync(file, 'utf8');
  const meta = readMetadata(source);
  const test = {
    root: job.root,
    file,
    harness: harnessFiles(meta),
    negative: meta.negative,
    async: meta.flags.includes('async'),
  };
  const skip = new Set(job.skip);
  const send = (message) => process.send({ id: job.id, ...message });
  const codeOf = (variant) => (variant.strict && !variant.module ? STRICT_PREFIX : '') + source;
  const list = variants(meta);

  // Runs of a script whose code is byte for byte one already run the same way (a front that left
  // it as it was, ESTree and SWC, which insert the same text, both settings without loops) have
  // that run's result: a script's run depends on nothing else. Modules import fixtures, which
  // each front instruments its own way.
  const seen = new Map();
  const key = (variant, runtime, code) => (variant.module ? null : `${variant.name}|${runtime}|${code}`);

  for (const variant of list) {
    const label = `untouched|${variant.name}`;
    if (skip.has(label)) continue;
    send({ type: 'start', label });
    const result = await runTest({ ...test, variant }, codeOf(variant), { runtime: false, transformFixture: null });
    if (key(variant, false, codeOf(variant))) seen.set(key(variant, false, codeOf(variant)), result);
    send({ type: 'run', label, run: { kind: 'untouched', variant: variant.name, pass: result.pass, detail: result.detail } });
    if (!result.pass) return;
  }

  const controls = new Map();
  const control = async (variant) => {
    if (!controls.has(variant.name)) {
      let pass;
      let detail;
      try {
        const code = transforms['babel-plain'](codeOf(variant), variant.module ? 'module' : 'script');
        ({ pass, detail } = await runTest({ ...test, variant }, code, { runtime: false, transformFixture: fixtureTransform('babel-plain', null) }));
      } catch (error) {
        pass = false;
        detail = `Babel threw: ${describe(error)}`;
      }
      controls.set(variant.name, { pass, detail });
    }
    return controls.get(variant.name);
  };

  for (const front of job.fronts) {
    for (const setting of SETTINGS) {
      for (const variant of list) {
        const sourceType = variant.module ? 'module' : 'script';
        let code = null;
        let frontError = null;
        for (const runtime of [false, true]) {
          const label = `${front}|${setting.name}|${variant.name}|${runtime ? 'runtime' : 'no runtime'}`;
          if (skip.has(label)) continue;
          send({ type: 'start', label });
          const run = { kind: 'instrumented', front, setting: setting.name, variant: variant.name, runtime };
          if (code === null && frontError === null) {
            try {
              code = transforms[front](codeOf(variant), sourceType, job.rel, setting.options);
            } catch (error) {
              frontError = error;
            }
          }
          if (frontError) {
            // Refusing a test that must not parse is the right answer; refusing one that must is a failure.
            const expected = meta.negative?.phase === 'parse' && isSyntaxError(frontError);
            Object.assign(run, { pass: expected, frontRefused: true, detail: `${front} threw: ${describe(frontError)}` });
          } else {
            const k = key(variant, runtime, code);
            let result = k && seen.get(k);
            if (!result) {
              result = await runTest({ ...test, variant }, code, { runtime, transformFixture: fixtureTransform(front, setting) });
              if (k) seen.set(k, result);
            }
            Object.assign(run, { pass: result.pass, detail: result.detail, checks: result.checks });
          }
          if (!run.pass && front === 'babel') run.control = await control(variant);
          send({ type: 'run', label, run });
          if (frontError) break; // the same refusal with the runtime
        }
      }
    }
  }
}

process.on('message', async (job) => {
  let error;
  try {
    await runJob(job);
  } catch (e) {
    error = String(e?.stack ?? e);
  }
  // vm modules are never collected in Node 20: the pool replaces a worker that has grown.
  process.send({ id: job.id, type: 'done', error, rss: process.memoryUsage.rss() });
});
process.on('disconnect', () => process.exit(0));
