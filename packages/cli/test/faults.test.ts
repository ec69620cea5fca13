/**
 * Faults a program brings with it, under `jsprof run` with each sampler: recursion to just under
 * the stack limit, built-ins it replaced, a frozen global object, a clock that jumps. Nothing of the runtime's may reach
 * the program, and memory stays bounded. And a disk that fills while jsprof writes: no file lost.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BIN, FIXTURES, ROOT, jsprof, tempDir } from './helpers';

const SAMPLERS = [
  ['thread', {}],
  ['count-down', { JSPROF_SAMPLER: 'count-down' }],
] as const;

describe.each(SAMPLERS)('%s', (_, env) => {
  test('near the stack limit a check never throws into the program', () => {
    // Before: RangeError out of the slow path in 1 to 6 of these 136 dives, in 3 runs of 4.
    const out = path.join(tempDir(), 'trace.json');
    const run = jsprof(['run', '-q', '--out', out, path.join(FIXTURES, 'stack-limit.js')], { env });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ tried: 136, thrown: 0, errors: [] });
  });

  test("the program's replacements of built-ins are never called from a check, and the trace is whole", () => {
    // Before: the replaced fill, push, Map, Set and WeakMap methods were all called from checks.
    const out = path.join(tempDir(), 'trace.json');
    const run = jsprof(['run', '-q', '--out', out, path.join(FIXTURES, 'patched-builtins.js'), '300'], { env });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ reached: [] });
    const trace = JSON.parse(fs.readFileSync(out, 'utf8'));
    const names = trace.samples.filter((s: any) => s.stackId !== undefined).map((s: any) => trace.frames[trace.stacks[s.stackId].frameId].name);
    expect(names.filter((n: string) => n === 'work').length).toBeGreaterThan(10);
  });

  test('a program that freezes its global object runs as before and is sampled', () => {
    const out = path.join(tempDir(), 'trace.json');
    const run = jsprof(['run', '-q', '--out', out, path.join(FIXTURES, 'frozen-global.js')], { env });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ frozen: true, result: true });
    const trace = JSON.parse(fs.readFileSync(out, 'utf8'));
    const names = trace.samples.filter((s: any) => s.stackId !== undefined).map((s: any) => trace.frames[trace.stacks[s.stackId].frameId].name);
    expect(names.filter((n: string) => n === 'work').length).toBeGreaterThan(10);
  });

  test.each(['1e12', '1e17', '1e300'])('a clock that jumps %s ms (fake timers) costs a minute of ticks at most: the program runs as before, in bounded memory', (jump) => {
    // Before: the runtime recorded every tick of the jump up to the buffer, a million samples (+140 MB,
    // +150% time); past 2^53 ticks (1e17 ms), where counting ticks by one stands still, it never returned.
    const out = path.join(tempDir(), 'trace.json');
    const run = jsprof(['run', '-q', '--out', out, path.join(FIXTURES, 'clock-jump.js'), jump], { env });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).heapMB).toBeLessThan(64);
    const trace = JSON.parse(fs.readFileSync(out, 'utf8'));
    expect(trace.samples.length).toBeLessThan(60_000 / 10 + 1000);
    expect(trace.samples.filter((s: any) => s.stackId !== undefined).length).toBeGreaterThan(5);
  });
});

describe('a disk that fills while jsprof writes (a file size limit: EFBIG, as ENOSPC would be)', () => {
  /** Runs jsprof with writes limited to `kb` KB per file, as a full disk would stop them. */
  function withFileLimit(kb: number, args: string[]) {
    return spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f ${kb}; exec "$0" "$@"`, process.execPath, BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  }

  test('instrument --in-place: the file stays as it was, no temporary file is left, the failure is named', () => {
    const dir = tempDir();
    const file = path.join(dir, 'acorn.js');
    const original = fs.readFileSync(path.join(ROOT, 'node_modules/acorn/dist/acorn.js'));
    fs.writeFileSync(file, original);
    const run = withFileLimit(100, ['instrument', '--in-place', '--source-map', file]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot write .*acorn\.js: file too large/);
    expect(fs.readFileSync(file)).toEqual(original);
    expect(fs.readdirSync(dir)).toEqual(['acorn.js']);
  });

  test('convert: no partial output and no temporary file, the failure is named', () => {
    const dir = tempDir();
    const trace = path.join(dir, 'trace.json');
    expect(jsprof(['run', '-q', '--out', trace, path.join(FIXTURES, 'phases.js')]).status).toBe(0);
    const run = withFileLimit(1, ['convert', trace, '-o', path.join(dir, 'trace.cpuprofile')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot write .*trace\.cpuprofile: file too large/);
    expect(fs.readdirSync(dir)).toEqual(['trace.json']);
  });
});
