'use strict';
/**
 * Reading a test262 checkout: finding the language tests, their frontmatter, and the ways each
 * must run (test262's own INTERPRETING.md, in the checkout: strict and non-strict unless
 * `onlyStrict`, `noStrict`, `module` or `raw` say otherwise).
 */
const fs = require('node:fs');
const path = require('node:path');
const yaml = require('js-yaml');

/**
 * Features Node 20 (V8 11.3) does not have, or that need a host hook this runner does not give
 * (`IsHTMLDDA`, `$262.agent`, `$262.AbstractModuleSource`). Tests that need them cannot pass
 * untouched (or pass for the wrong reason: a negative syntax test of a proposal V8 cannot parse at
 * all), so they are skipped rather than run.
 */
const UNSUPPORTED_FEATURES = new Set([
  'Array.fromAsync',
  'Atomics.pause',
  'Error.isError',
  'Float16Array',
  'IsHTMLDDA',
  'Math.sumPrecise',
  'RegExp.escape',
  'ShadowRealm',
  'Temporal',
  'array-grouping',
  'arraybuffer-transfer',
  'decorators',
  'explicit-resource-management',
  'immutable-arraybuffer',
  'import-bytes',
  'import-defer',
  'import-text',
  'iterator-helpers',
  'iterator-sequencing',
  'joint-iteration',
  'json-parse-with-source',
  'nonextensible-applies-to-private',
  'promise-try',
  'promise-with-resolvers',
  'regexp-duplicate-named-groups',
  'regexp-modifiers',
  'set-methods',
  'source-phase-imports',
  'source-phase-imports-module-source',
  'tail-call-optimization',
  'uint8array-base64',
  'upsert',
]);

/** A checkout's problem in one line, or null when `root` looks like test262. */
function checkoutProblem(root) {
  let stat;
  try {
    stat = fs.statSync(root);
  } catch {
    return `${root}: no such directory`;
  }
  if (!stat.isDirectory()) return `${root}: not a directory`;
  for (const need of ['harness/assert.js', 'harness/sta.js', 'harness/doneprintHandle.js', 'test/language']) {
    if (!fs.existsSync(path.join(root, need))) return `${root}: not a tc39/test262 checkout (no ${need})`;
  }
  return null;
}

/** Every test file under test/language (not `_FIXTURE` files), as paths relative to `root` with `/`. */
function findTests(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.js') && !entry.name.includes('_FIXTURE')) out.push(rel);
    }
  };
  walk('test/language');
  return out.sort();
}

/** The YAML between `/*---` and `---*\/`, as an object with array fields defaulted. */
function readMetadata(source) {
  const m = /\/\*---([\s\S]*?)---\*\//.exec(source);
  const raw = m ? yaml.load(m[1]) || {} : {};
  return {
    flags: raw.flags || [],
    includes: raw.includes || [],
    features: raw.features || [],
    negative: raw.negative || null,
  };
}

/** The unsupported features a test needs (empty if it can run). */
function unsupported(meta) {
  return meta.features.filter((f) => UNSUPPORTED_FEATURES.has(f));
}

/**
 * How a test runs: `[{ name, strict, module, raw }]` — `module`, `raw` (non-strict, no harness),
 * `strict` / `non-strict` (both, unless `onlyStrict` or `noStrict`).
 */
function variants(meta) {
  const has = (f) => meta.flags.includes(f);
  if (has('module')) return [{ name: 'module', strict: true, module: true, raw: false }];
  if (has('raw')) return [{ name: 'raw', strict: false, module: false, raw: true }];
  if (has('onlyStrict')) return [{ name: 'strict', strict: true, module: false, raw: false }];
  if (has('noStrict')) return [{ name: 'non-strict', strict: false, module: false, raw: false }];
  return [
    { name: 'non-strict', strict: false, module: false, raw: false },
    { name: 'strict', strict: true, module: false, raw: false },
  ];
}

/** The harness files a test gets, in order (none for `raw`). */
function harnessFiles(meta) {
  if (meta.flags.includes('raw')) return [];
  const files = ['assert.js', 'sta.js'];
  if (meta.flags.includes('async')) files.push('doneprintHandle.js');
  for (const f of meta.includes) if (!files.includes(f)) files.push(f);
  return files;
}

module.exports = { UNSUPPORTED_FEATURES, checkoutProblem, findTests, readMetadata, unsupported, variants, harnessFiles };
