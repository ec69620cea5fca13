'use strict';
/** The programs the bench runs: each prints {"work": {ms, t0, t1, check}} when its work phase ends. */
const path = require('node:path');

module.exports = [
  {
    name: 'acorn',
    file: path.join(__dirname, 'acorn-parse.js'),
    what: 'acorn parses 4 library sources ×8, own AST walker, tokenizer, identifier ranking (CJS)',
  },
  {
    name: 'markdown-it',
    file: path.join(__dirname, 'markdown-render.mjs'),
    what: 'markdown-it parses and renders a generated 1600-section document, plain and linkify+typographer (ESM)',
  },
  {
    name: 'js-yaml',
    file: path.join(__dirname, 'yaml-roundtrip.js'),
    what: 'js-yaml dumps and loads 4×6000 generated records, own deep comparison (CJS)',
  },
];
