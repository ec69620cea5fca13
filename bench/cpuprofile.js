'use strict';
/**
 * Ground truth from V8's own profiler (`node --cpu-prof`): the inclusive share of each function,
 * i.e. the fraction of samples whose stack contains it.
 *
 * - V8 folds inlined functions into their caller's node; a node's `positionTicks` keep the source
 *   lines of its self time, so a line that falls inside another function of the same file is
 *   charged to that function, on top of the caller's stack ("split back out by line"). The
 *   callees of an inlined function still hang under its caller: V8 under-counts the inclusive
 *   share of functions it inlined (nothing in the profile can restore that).
 * - "(garbage collector)" samples are charged to the stack of the sample before them (the code
 *   that allocated).
 * - Frames of jsprof's own files (the require hook of `--import register.js` is under every
 *   CommonJS program) are left out, as jsprof leaves them out of its traces.
 * - Shares are taken over the samples whose stack contains `rootKey` (the program's work
 *   function), so startup, module loading and idle time do not count.
 *
 * `resolve(url)` gives the functions of the code that ran at that url (functions.js), whose `key`s
 * name functions in the compared coordinates; frames it cannot place keep V8's own position.
 */
const path = require('node:path');
const { keyOf, functionAt } = require('./functions');
const { isOwnFile } = require(path.join(__dirname, '../packages/cli/dist/filter.js'));

/** A frame of a script, and not of jsprof's own code (whose frames jsprof leaves out of traces too). */
const isProgramFrame = (cf) => !!cf.url && !(cf.url.startsWith('file:') && isOwnFile(cf.url));

/**
 * @returns {{ samples: number, shares: Map<string, {name, url, line, column, share}>, unmatched: string[] }}
 *   `unmatched`: file:// frames of V8 that start where the Babel plugin's metadata has no function
 *   (a sign that jsprof's idea of function starts differs from V8's).
 */
/**
 * A profile's nodes by id, each node's parent id, and its samples per node id, "(garbage collector)"
 * samples charged to the node of the sample before them (the code that allocated).
 */
function profileNodes(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const hits = new Map();
  let previous = null;
  for (const id of profile.samples) {
    let node = byId.get(id);
    if (node.callFrame.functionName === '(garbage collector)') {
      if (!previous) continue;
      node = previous;
    } else {
      previous = node;
    }
    hits.set(node.id, (hits.get(node.id) || 0) + 1);
  }
  return { byId, parent, hits };
}

function cpuProfileShares(profile, rootKey, resolve) {
  const { byId, parent, hits } = profileNodes(profile);

  const frames = new Map(); // key → {name, url, line, column}
  const unmatched = new Set();
  const place = (cf) => {
    const line = cf.lineNumber + 1;
    const column = cf.columnNumber + 1;
    const info = cf.url.startsWith('file:') ? resolve(cf.url) : null;
    const fn = info ? functionAt(info, line, column) : null;
    if (info && !fn && !(line === 1 && column === 1)) unmatched.add(`${cf.functionName || '(anonymous)'} ${keyOf(cf.url, line, column)}`);
    const key = fn ? fn.key : keyOf(cf.url, line, column);
    if (!frames.has(key)) frames.set(key, { name: cf.functionName, url: cf.url, ...positionOf(key) });
    return { key, info, fn };
  };
  const stackOf = new Map();
  const stackKeys = (id) => {
    if (stackOf.has(id)) return stackOf.get(id);
    const cf = byId.get(id).callFrame;
    const up = parent.has(id) ? stackKeys(parent.get(id)) : [];
    let keys = up;
    if (isProgramFrame(cf)) {
      const { key } = place(cf);
      keys = up.includes(key) ? up : [...up, key];
    }
    stackOf.set(id, keys);
    return keys;
  };

  let total = 0;
  const inclusive = new Map();
  const charge = (keys, weight) => {
    if (!keys.includes(rootKey)) return;
    total += weight;
    for (const k of keys) inclusive.set(k, (inclusive.get(k) || 0) + weight);
  };
  for (const [id, count] of hits) {
    const node = byId.get(id);
    const keys = stackKeys(id);
    const { info, fn } = isProgramFrame(node.callFrame) ? place(node.callFrame) : {};
    for (const [extra, weight] of splitInlined(node, count, info, fn)) {
      if (!extra) {
        charge(keys, weight);
        continue;
      }
      if (!frames.has(extra.key)) frames.set(extra.key, { name: extra.name, url: node.callFrame.url, ...positionOf(extra.key) });
      charge(keys.includes(extra.key) ? keys : [...keys, extra.key], weight);
    }
  }

  const shares = new Map();
  for (const [key, weight] of inclusive) shares.set(key, { ...frames.get(key), share: total ? weight / total : 0 });
  return { samples: total, shares, unmatched: [...unmatched] };
}

/** line and column back out of a key (url:line:column). */
function positionOf(key) {
  const m = /:(\d+):(\d+)$/.exec(key);
  return m ? { line: Number(m[1]), column: Number(m[2]) } : {};
}

/**
 * Splits a node's `count` samples by its positionTicks: [[inlinedFunction | null, weight]…],
 * null for the node's own function `own`.
 */
function splitInlined(node, count, info, own) {
  const ticks = node.positionTicks;
  if (!ticks || !ticks.length || !info || !own) return [[null, count]];
  const sum = ticks.reduce((s, t) => s + t.ticks, 0);
  const parts = new Map();
  for (const { line, ticks: n } of ticks) {
    const owner = line !== own.line ? info.lineOwner(line) : null;
    // The line of the function's start is its own (prologue); so is a line of an enclosing function.
    const inlined = owner && owner !== own && !(owner.start <= own.start && own.end <= owner.end) ? owner : null;
    parts.set(inlined, (parts.get(inlined) || 0) + n);
  }
  return [...parts].map(([f, n]) => [f, (count * n) / sum]);
}

module.exports = { cpuProfileShares, profileNodes, splitInlined };
