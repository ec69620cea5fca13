/**
 * Random programs (fixtures/corpus/random-programs.ts, seeded) through the ESTree front and the
 * Babel plugin, at thresholds 1 and 10, with and without loop checks: each computes what the
 * original computes, with checks that always fire and without the runtime.
 */
import * as vm from 'node:vm';
import { instrument, parseJs } from '../src';
import { FakeRuntime, instrument as babelInstrument } from '../../babel-plugin/test/helpers';
import { randomProgram } from '../../../fixtures/corpus/random-programs';

const PROGRAMS = 120;
const SETTINGS = [{ threshold: 1 }, { threshold: 1, loops: true }, { threshold: 10 }, { threshold: 10, loops: true }];
const FRONTS = {
  estree: (code: string, options: object) => instrument({ code, program: parseJs(code, 'random.js'), filename: 'random.js' }, options).code,
  babel: (code: string, options: object) => babelInstrument(code, options).code,
};

/** What a program did: its value, or the error it threw. */
function outcome(code: string, globals: object = {}): string {
  try {
    return String(vm.runInNewContext(code, { ...globals }, { timeout: 5000 }));
  } catch (error: any) {
    return `threw ${error?.name}: ${error?.message}`;
  }
}

const seeds = Array.from({ length: PROGRAMS }, (_, i) => i);

describe.each(Object.entries(FRONTS))('%s front', (_front, transform) => {
  test.each(seeds)('program %i computes the same', (seed) => {
    const code = randomProgram(seed);
    const expected = outcome(code);
    expect(expected).not.toMatch(/^threw SyntaxError/);
    for (const options of SETTINGS) {
      const out = transform(code, options);
      const runtime = new FakeRuntime();
      expect({ options, result: outcome(out, { __jsprof: runtime.hook }) }).toEqual({ options, result: expected });
      expect({ options, result: outcome(out) }).toEqual({ options, result: expected });
    }
  });
});
