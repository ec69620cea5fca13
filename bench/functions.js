'use strict';
/**
 * The functions of a source file as jsprof's Babel plugin sees them: offsets of each function's
 * range, its V8-style name and 1-based start (the same spot V8's cpu profiler reports), and whether
 * the plugin instruments it with given options (threshold, loopingFunctions). Used to split V8's
 * inlined functions back out and to tell which functions jsprof can see as a leaf.
 */
const fs = require('node:fs');
const path = require('node:path');
const { fileURLToPath } = require('node:url');

const ROOT = path.resolve(__dirname, '..');
const babel = require('@babel/core');
const { TraceMap, originalPositionFor } = require('@jridgewell/trace-mapping');
const plugin = require(path.join(ROOT, 'packages/babel-plugin/dist/index.js')).default;
const instrument = require(path.join(ROOT, 'packages/cli/dist/instrument.js'));
const { shouldInstrument } = require(path.join(ROOT, 'packages/cli/dist/filter.js'));
const { LIST_ONLY_OPTIONS } = require(path.join(ROOT, 'packages/policy/dist/index.js'));

const cache = new Map();

/** The key a function is compared by, in both profiles: url:line:column (1-based). */
function keyOf(url, line, column) {
  return `${url}:${line}:${column}`;
}

/**
 * { functions: [{start, end, bodyStart, name, line, column, instrumented, key}] sorted by start,
 *   lineOwner(line) → the innermost function holding the first non-blank character of that line }
 * or null when the url is not a readable file.
 */
function sourceInfo(url, policy = LIST_ONLY_OPTIONS) {
  const id = `${JSON.stringify(policy)}\0${url}`;
  if (cache.has(id)) return cache.get(id);
  let info = null;
  try {
    const code = url.startsWith('file:') ? fs.readFileSync(fileURLToPath(url), 'utf8') : null;
    if (code != null) {
      const functions = listFunctions(code, policy).map((f) => ({ ...f, key: keyOf(url, f.line, f.column) }));
      info = { url, functions, lineOwner: lineOwners(code, functions) };
    }
  } catch {
    info = null;
  }
  cache.set(id, info);
  return info;
}

function listFunctions(code, policy) {
  const result = babel.transformSync(code, {
    babelrc: false,
    configFile: false,
    code: false,
    sourceType: 'unambiguous',
    parserOpts: { allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true },
    plugins: [[plugin, policy]],
  });
  return result.metadata.jsprof.functions.sort((a, b) => a.start - b.start);
}

/**
 * The same for the code that ran when a file was instrumented with `options` (what V8 profiles
 * under `--import register.js`): functions and lines are those of the instrumented code, and each
 * function's `key` is that of the same function in the original file (found through the
 * instrumentation's source map, as jsprof names its own frames), so V8's frames of instrumented
 * code compare with the plain program's. (Pairing by source order would not do: the transform
 * moves function declarations out of the try blocks it adds.)
 */
function instrumentedSourceInfo(url, options) {
  const id = `i${JSON.stringify(options)}\0${url}`;
  if (cache.has(id)) return cache.get(id);
  let info = null;
  const original = sourceInfo(url);
  try {
    const file = original && fileURLToPath(url);
    const source = original && fs.readFileSync(file, 'utf8');
    const instrumented = original && shouldInstrument(file) ? instrument.instrumentModule(source, file, options) : null;
    const meta = instrumented && (instrumented.meta || JSON.parse(fs.readFileSync(instrumented.metaFile, 'utf8')));
    if (!original || !meta || !meta.map) {
      info = original;
    } else {
      const map = new TraceMap(meta.map);
      const lineStarts = [0, 0];
      for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) lineStarts.push(i + 1);
      const functions = [];
      for (const f of listFunctions(instrumented.code, LIST_ONLY_OPTIONS)) {
        const pos = originalPositionFor(map, { line: f.line, column: f.column - 1 });
        if (pos.line == null) continue;
        const at = lineStarts[pos.line] + pos.column;
        const match = byHead(original.functions, at);
        if (match) functions.push({ ...f, key: match.key, name: match.name });
      }
      info = { url, functions, lineOwner: lineOwners(instrumented.code, functions) };
    }
  } catch {
    info = null;
  }
  cache.set(id, info);
  return info;
}

/** The function whose head (from its start to its body) holds `offset` (functions sorted by start). */
function byHead(functions, offset) {
  let found = null;
  for (const f of functions) {
    if (f.start > offset) break;
    if (offset < f.bodyStart) found = f;
  }
  return found;
}

/** For each 1-based line, the innermost function whose range holds the line's first non-blank character. */
function lineOwners(code, functions) {
  const owners = [null];
  const open = []; // functions holding the current offset, outermost first (ranges nest)
  let next = 0;
  let offset = 0;
  for (const text of code.split('\n')) {
    const at = offset + (text.length - text.trimStart().length);
    while (next < functions.length && functions[next].start <= at) {
      const f = functions[next++];
      while (open.length && open[open.length - 1].end <= f.start) open.pop();
      open.push(f);
    }
    while (open.length && open[open.length - 1].end <= at) open.pop();
    owners.push(open.length ? open[open.length - 1] : null);
    offset += text.length + 1;
  }
  return (line) => owners[line] || null;
}

/** The function of `info` that starts at this 1-based line and column. */
function functionAt(info, line, column) {
  return info.functions.find((f) => f.line === line && f.column === column) || null;
}

module.exports = { keyOf, sourceInfo, instrumentedSourceInfo, functionAt };
