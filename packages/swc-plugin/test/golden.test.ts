/**
 * What each front end writes, where a reader can see it: fixtures/golden/<case>/ holds `input.js`,
 * `options.json`, and the output of each front, `output.babel.js`, `output.estree.js` and
 * `output.swc.js`. Each output is compared with what the front writes now, executed (the same
 * result as the input, with checks that always fire and without the runtime), and compared with
 * the other fronts' once reprinted: they write the same program.
 *
 * After a deliberate change of what is inserted: JSPROF_UPDATE_GOLDEN=1 npx jest golden, then read the diff.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { transformSync } from '@babel/core';
import { instrument as instrumentEstree, parseJs } from '@jsprof/estree-instrument';
import { instrument as instrumentSwc } from '../src';
import { FakeRuntime, instrument as instrumentBabel } from '../../babel-plugin/test/helpers';

const GOLDEN = path.resolve(__dirname, '../../../fixtures/golden');
const UPDATE = process.env.JSPROF_UPDATE_GOLDEN === '1';

const FRONTS: Record<string, (code: string, options: object) => string> = {
  babel: (code, options) => instrumentBabel(code, options).code,
  estree: (code, options) => instrumentEstree({ code, program: parseJs(code, 'input.js', 'script'), filename: 'input.js' }, options).code,
  swc: (code, options) => instrumentSwc(code, { ...options, filename: 'input.js' }).code,
};

const cases = fs.readdirSync(GOLDEN).sort();

function evaluate(code: string, globals: object = {}): string {
  try {
    return JSON.stringify(vm.runInNewContext(code, { ...globals }, { filename: 'input.js', timeout: 5000 }));
  } catch (error: any) {
    return `threw ${error?.name}: ${error?.message}`;
  }
}

/** The program without formatting, comments and empty statements: what the fronts must agree on. */
function reprinted(code: string): string {
  const dropEmpty = { visitor: { EmptyStatement: (p: any) => p.remove() } };
  return transformSync(code, { babelrc: false, configFile: false, sourceType: 'script', comments: false, plugins: [dropEmpty] })!.code!;
}

test('there are golden cases', () => {
  expect(cases.length).toBeGreaterThanOrEqual(15);
});

describe.each(cases)('%s', (name) => {
  const dir = path.join(GOLDEN, name);
  const input = fs.readFileSync(path.join(dir, 'input.js'), 'utf8');
  const options = JSON.parse(fs.readFileSync(path.join(dir, 'options.json'), 'utf8'));
  const outputs = Object.fromEntries(Object.entries(FRONTS).map(([front, transform]) => [front, transform(input, options)]));

  test.each(Object.keys(FRONTS))('%s writes output.%s.js', (front) => {
    const file = path.join(dir, `output.${front}.js`);
    if (UPDATE) fs.writeFileSync(file, outputs[front]);
    expect(fs.existsSync(file) ? outputs[front] : `missing ${file}: run JSPROF_UPDATE_GOLDEN=1 npx jest golden`).toBe(fs.readFileSync(file, 'utf8'));
  });

  test.each(Object.keys(FRONTS))('%s output computes what the input does', (front) => {
    const expected = evaluate(input);
    expect(expected).not.toMatch(/^threw/);
    const runtime = new FakeRuntime();
    expect(evaluate(outputs[front], { __jsprof: runtime.hook })).toBe(expected);
    expect(evaluate(outputs[front])).toBe(expected);
  });

  test('every front writes the same program', () => {
    expect(reprinted(outputs.estree)).toBe(reprinted(outputs.babel));
    expect(reprinted(outputs.swc)).toBe(reprinted(outputs.estree));
  });
});
