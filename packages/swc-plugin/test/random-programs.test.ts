/**
 * Random programs (fixtures/corpus/random-programs.ts, seeded) through the SWC front, at thresholds
 * 1 and 10, with and without loop checks: each computes what the original computes, with checks
 * that always fire and without the runtime.
 */
import * as vm from 'node:vm';
import { instrument } from '../src';
import { FakeRuntime } from '../../babel-plugin/test/helpers';
import { randomProgram } from '../../../fixtures/corpus/random-programs';

const PROGRAMS = 60;
const SETTINGS = [{ threshold: 1 }, { threshold: 1, loops: true }, { threshold: 10 }, { threshold: 10, loops: true }];

/** What a program did: its value, or the error it threw. */
function outcome(code: string, globals: object = {}): string {
  try {
    return String(vm.runInNewContext(code, { ...globals }, { timeout: 5000 }));
  } catch (error: any) {
    return `threw ${error?.name}: ${error?.message}`;
  }
}

test.each(Array.from({ length: PROGRAMS }, (_, i) => i))('program %i computes the same', (seed) => {
  const code = randomProgram(seed);
  const expected = outcome(code);
  expect(expected).not.toMatch(/^threw SyntaxError/);
  for (const options of SETTINGS) {
    const out = instrument(code, { ...options, filename: 'random.js' }).code;
    const runtime = new FakeRuntime();
    expect({ options, result: outcome(out, { __jsprof: runtime.hook }) }).toEqual({ options, result: expected });
    expect({ options, result: outcome(out) }).toEqual({ options, result: expected });
  }
});
