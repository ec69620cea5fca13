/**
 * Faults a program brings with it, under `jsprof run` with each sampler: recursion to just under
 * the stack limit, and built-ins it replaced. Nothing of the runtime's may reach the program.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, jsprof, tempDir } from './helpers';

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
});
