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
console.log(JSON.stringify({ frames, small: small.toString(), withLoop: withLoop.toString() }));
`;

interface Frame {
  name: string;
  line: number;
  column: number;
}

function parseFrames(output: string): { frames: Frame[][]; small: string; withLoop: string } {
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

  test('toString() is unchanged for functions without checks', () => {
    expect(profiled.small).toBe(plain.small);
    expect(profiled.withLoop).not.toBe(plain.withLoop);
    expect(profiled.withLoop).toContain('__jsprof$');
  });
});
