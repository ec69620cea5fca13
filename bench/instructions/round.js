'use strict';
/**
 * One process of bench/instructions.js: loads a library file (plain, or as instrumented) as a
 * CommonJS module with the real runtime's checks in place (no profiler), and runs its workload
 * `rounds` times.
 *
 *   node round.js <program> <library file> <code file> <rounds>
 */
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
require('../../packages/runtime/dist/node.js');

const [program, libraryFile, codeFile, rounds] = process.argv.slice(2);
const library = new Module(libraryFile, module);
library.filename = libraryFile;
library.paths = Module._nodeModulePaths(path.dirname(libraryFile));
library._compile(fs.readFileSync(codeFile, 'utf8'), libraryFile);
const { work } = require('./workloads')[program];
let check = 0;
for (let i = 0; i < Number(rounds); i++) check += work(library.exports);
process.stdout.write(`${check}\n`);
