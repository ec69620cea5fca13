/**
 * A program's own stack traces under `jsprof run` against plain `node`: jsprof only inserts text
 * (no line is added or removed, nothing outside the checks is reprinted), so every frame keeps its
 * line, and its column too unless jsprof inserted text before it on that line — the prelude on
 * line 1, an entry check or labelled body before the first statement, a rewritten `return`. There
 * the column still points at the same code in the file as it ran.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { jsprof, tempDir } from './helpers';

const PROGRAM = `'use strict'; const here = () => new Error('here').stack.split('\\n').filter((l) => l.includes('program.js'));
const frames = [];

function withLoop(n) {
  let total = 0;
  for (let i = 0; i < n; i++) total += i;
  frames.push(here());
  return total;
}

function viaReturn(n) {
  let total = 0;
  for (let i = 0; i < n; i++) total += i;
  if (total > 100) return [];
  return here();
}

function oneLine(n) { let s = 0; for (let i = 0; i < n; i++) { s += i; } frames.push(here()); return s; }

function small(a, b) {
  return a + b;
}

withLoop(3);
frames.push(viaReturn(3));
oneLine(2);
try {
  null.x;
} catch (error) {
  frames.push(error.stack.split('\\n').filter((l) => l.includes('program.js')));
}

function shipped(n) {
  function square(x) { return x * x; }
  let sum = 0;
  for (let i = 0; i < n; i++) sum += square(i);
  if (sum > 1e9) return -1;
  return sum;
}
const arrowShipped = (n) => [1, 2, 3].map((x) => x * n).reduce((a, b) => a + b, 0);
const { Worker } = require('node:worker_threads');
const worker = new Worker(\`require('node:worker_threads').parentPort.postMessage((\${shipped})(10))\`, { eval: true });
worker.once('message', (inWorker) => {
  const texts = [small, withLoop, viaReturn, oneLine, shipped, arrowShipped].map(String);
  const rebuilt = [shipped, arrowShipped].map((f) => new Function('return (' + f + ')')()(10));
  console.log(JSON.stringify({ frames, texts, rebuilt, inWorker }));
});
`;

interface Frame {
  name: string;
  line: number;
  column: number;
}

function parseFrames(output: string): { frames: Frame[][]; texts: string[]; rebuilt: number[]; inWorker: number } {
  const result = JSON.parse(output);
  const frames = result.frames.map((stack: string[]) =>
    stack.map((text) => {
      const [, name = '', line, column] = /at (?:(.*) \()?.*program\.js:(\d+):(\d+)\)?$/.exec(text.trim())!;
      return { name, line: Number(line), column: Number(column) };
    }),
  );
  return { ...result, frames };
}

describe('the program’s own stack traces', () => {
  const dir = tempDir();
  const cache = path.join(dir, 'cache');
  fs.writeFileSync(path.join(dir, 'program.js'), PROGRAM);
  const plainRun = spawnSync(process.execPath, ['program.js'], { cwd: dir, encoding: 'utf8' });
  const profiledRun = jsprof(['run', '-q', '--out', path.join(dir, 'trace.json'), 'program.js'], { cwd: dir, env: { JSPROF_CACHE_DIR: cache } });
  const plain = parseFrames(plainRun.stdout);
  const profiled = parseFrames(profiledRun.stdout);
  const ran = fs.readFileSync(path.join(cache, fs.readdirSync(cache).find((f) => /^[0-9a-f]+\.js$/.test(f))!), 'utf8').split('\n');
  const source = PROGRAM.split('\n');

  test('have the same frames, with the same names and lines, as under plain node', () => {
    expect(profiledRun.status).toBe(0);
    expect(profiled.frames.flat().length).toBeGreaterThan(8);
    const withoutColumns = (stacks: Frame[][]) => stacks.map((stack) => stack.map(({ name, line }) => `${name}:${line}`));
    expect(withoutColumns(profiled.frames)).toEqual(withoutColumns(plain.frames));
  });

  test('keep their columns on lines jsprof left as they were; elsewhere the column points at the same code as it ran', () => {
    expect(ran.length).toBe(source.length);
    const plainFrames = plain.frames.flat();
    let moved = 0;
    profiled.frames.flat().forEach((frame, i) => {
      const original = plainFrames[i];
      const originalLine = source[original.line - 1];
      if (ran[frame.line - 1] === originalLine) {
        expect(frame).toEqual(original);
        return;
      }
      if (frame.column !== original.column) moved++;
      const word = (line: string, column: number) => /^[\w$.]*/.exec(line.slice(column - 1))![0];
      expect(word(ran[frame.line - 1], frame.column)).toBe(word(originalLine, original.column));
      expect(word(originalLine, original.column).length).toBeGreaterThan(0);
    });
    // here() on line 1 (after the prelude), in oneLine (after its entry check) and in viaReturn's rewritten return
    expect(moved).toBeGreaterThanOrEqual(5);
    expect(profiled.frames.flat().length - moved).toBeGreaterThanOrEqual(4);
  });

  test('toString() gives every function’s text as written, and functions rebuilt from it run (new Function, a worker)', () => {
    expect(ran.join('\n')).toContain('__jsprof$');
    expect(profiled.texts).toEqual(plain.texts);
    expect(profiled.texts.join('\n')).not.toContain('__jsprof$');
    expect(plain.rebuilt).toEqual([285, 60]);
    expect(profiled.rebuilt).toEqual(plain.rebuilt);
    expect(profiled.inWorker).toBe(285);
  });
});

describe('a program with its own source maps, run with --enable-source-maps', () => {
  test.each(['a map file', 'an inline map'])('its stack traces name the original functions, lines and columns, as under plain node (%s)', (kind) => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'src.js'),
      `function total(list) {
  let sum = 0;
  for (const x of list) sum += x;
  return sum;
}
function fail(list) {
  if (total(list) > 3) throw new Error('too much');
  return list.length;
}
try { fail([1, 2, 3]); } catch (error) { console.log(error.stack.split('\\n').slice(0, 3).join('\\n')); }
`,
    );
    // Minified onto one line, with its map: every column of the bundle moves when checks are inserted.
    require('esbuild').buildSync({ entryPoints: [path.join(dir, 'src.js')], outfile: path.join(dir, 'out.js'), minify: true, sourcemap: kind === 'a map file' ? true : 'inline', logLevel: 'error' });
    const env = { NODE_OPTIONS: '--enable-source-maps' };
    const plain = spawnSync(process.execPath, ['out.js'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });
    expect(plain.stdout).toMatch(/at fail \(.*src\.js:7:\d+\)/);
    const profiled = jsprof(['run', '-q', '--threshold', '1', '--out', path.join(dir, 'trace.json'), 'out.js'], { cwd: dir, env: { ...env, JSPROF_CACHE_DIR: path.join(dir, 'cache') } });
    expect(profiled.status).toBe(0);
    expect(profiled.stdout).toBe(plain.stdout);
  });
});

test('a file whose own source map cannot be used is instrumented all the same', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'app.js'), 'function work(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }\nconsole.log(work(1e7) > 0);\n//# sourceMappingURL=app.js.map\n');
  fs.writeFileSync(path.join(dir, 'app.js.map'), '{}');
  const run = jsprof(['run', '-q', '--out', path.join(dir, 'trace.json'), 'app.js'], { cwd: dir, env: { JSPROF_CACHE_DIR: path.join(dir, 'cache') } });
  expect([run.status, run.stdout, run.stderr]).toEqual([0, 'true\n', '']);
  const cached = fs.readdirSync(path.join(dir, 'cache')).filter((f) => /^[0-9a-f]+\.js$/.test(f));
  expect(cached.map((f) => fs.readFileSync(path.join(dir, 'cache', f), 'utf8')).join('')).toContain('__jsprof$c');
});
