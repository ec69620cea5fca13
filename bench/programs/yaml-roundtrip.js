'use strict';
/**
 * js-yaml: builds a deterministic data set of nested records, dumps it to YAML, loads it back and
 * checks the round trip with a deep comparison of our own.
 * Phases: build (this file), dump (js-yaml), load (js-yaml), compare (this file).
 */
const yaml = require('js-yaml');
const { random, timed, phase } = require('./_common');

const TAGS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];

/** `count` records with strings, numbers, booleans, dates-as-strings, lists and nested maps. */
function build(count, seed) {
  const next = random(seed);
  const records = [];
  for (let i = 0; i < count; i++) {
    const tags = [];
    const n = 1 + Math.floor(next() * 5);
    for (let t = 0; t < n; t++) tags.push(TAGS[Math.floor(next() * TAGS.length)]);
    const history = [];
    for (let h = 0; h < 3; h++) history.push({ at: `2024-0${1 + h}-1${h} 10:0${h}`, value: Math.round(next() * 1e6) / 100, ok: next() < 0.8 });
    records.push({
      id: `rec-${i}`,
      name: `${TAGS[i % TAGS.length]} record number ${i}: "quoted" & more`,
      count: Math.floor(next() * 100000),
      ratio: next(),
      active: next() < 0.5,
      tags,
      owner: { team: TAGS[(i * 7) % TAGS.length], contact: `user${i % 97}@example.com`, note: next() < 0.3 ? null : 'multi\nline\ntext' },
      history,
    });
  }
  return { version: 3, generated: 'bench', records };
}

/** Deep equality of plain JSON-like values. */
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!same(a[k], b[k])) return false;
  return true;
}

const ROUNDS = 4;

function buildAll() {
  const data = [];
  for (let i = 0; i < ROUNDS; i++) data.push(build(6000, 7 + i));
  return data;
}

function dumpAll(data) {
  return data.map((d) => yaml.dump(d, { lineWidth: 100 }));
}

function loadAll(texts) {
  return texts.map((t) => yaml.load(t));
}

function compareAll(data, loaded) {
  for (let i = 0; i < ROUNDS; i++) {
    for (let r = 0; r < 20; r++) if (!same(data[i], loaded[i])) throw new Error('round trip changed the data');
  }
}

function work() {
  let check = 0;
  const data = phase(buildAll);
  const texts = phase(dumpAll, data);
  for (const t of texts) check += t.length;
  const loaded = phase(loadAll, texts);
  phase(compareAll, data, loaded);
  check += loaded.length;
  return check;
}

if (!process.argv.includes('--load-only')) timed(work);
