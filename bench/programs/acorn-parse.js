'use strict';
/**
 * acorn: parses real library sources (Babel's parser, acorn itself, js-yaml, markdown-it) over and
 * over, walks the trees with a walker of our own, and tokenizes the sources.
 * Phases: parse (acorn), walk (this file), tokenize (acorn), identifiers (this file, string work).
 */
const fs = require('node:fs');
const path = require('node:path');
const acorn = require('acorn');
const { timed, phase } = require('./_common');

const SOURCES = [
  ['@babel/parser/lib/index.js', 'script'],
  ['acorn/dist/acorn.js', 'script'],
  ['js-yaml/dist/js-yaml.js', 'script'],
  ['markdown-it/dist/markdown-it.mjs', 'module'],
].map(([name, sourceType]) => ({ name, sourceType, code: fs.readFileSync(path.resolve(__dirname, '../../node_modules', name), 'utf8') }));

const ROUNDS = 8;

function parseAll() {
  const trees = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const source of SOURCES) {
      const tree = acorn.parse(source.code, { ecmaVersion: 'latest', sourceType: source.sourceType, locations: true });
      if (round === 0) trees.push(tree);
    }
  }
  return trees;
}

/** Counts nodes by type and the deepest function nesting, visiting every child generically. */
function walk(node, stats, depth) {
  stats.nodes++;
  stats.types[node.type] = (stats.types[node.type] || 0) + 1;
  const isFunction = node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression';
  const inner = isFunction ? depth + 1 : depth;
  if (inner > stats.maxDepth) stats.maxDepth = inner;
  for (const key in node) {
    if (key === 'loc' || key === 'start' || key === 'end') continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === 'string') walk(child, stats, inner);
    } else if (value && typeof value.type === 'string') {
      walk(value, stats, inner);
    }
  }
}

function walkAll(trees) {
  const stats = { nodes: 0, maxDepth: 0, types: {} };
  for (let round = 0; round < ROUNDS * 2; round++) {
    for (const tree of trees) walk(tree, stats, 0);
  }
  return stats.nodes + stats.maxDepth;
}

function tokenizeAll() {
  const counts = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    for (const source of SOURCES) {
      for (const token of acorn.tokenizer(source.code, { ecmaVersion: 'latest', sourceType: source.sourceType })) {
        const label = token.type.label;
        counts.set(label, (counts.get(label) || 0) + 1);
      }
    }
  }
  return counts.size;
}

/** Splits every source into words and ranks the most frequent identifiers (plain string work). */
function rankIdentifiers() {
  const freq = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    for (const source of SOURCES) {
      const words = source.code.split(/[^A-Za-z0-9_$]+/);
      for (let i = 0; i < words.length; i++) {
        const w = words[i];
        if (w.length < 3 || /^[0-9]/.test(w)) continue;
        freq.set(w, (freq.get(w) || 0) + 1);
      }
    }
  }
  const top = [...freq].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 20);
  return top.map(([w]) => w).join(',').length;
}

function work() {
  let check = 0;
  const trees = phase(parseAll);
  check += trees.length;
  check += phase(walkAll, trees);
  check += phase(tokenizeAll);
  check += phase(rankIdentifiers);
  check += trees[0].body.length;
  const sanity = trees.every((t) => t.type === 'Program');
  if (!sanity) throw new Error('not a program');
  check += SOURCES.length;
  return check;
}

if (!process.argv.includes("--load-only")) timed(work);
