/**
 * Every insertion the ESTree front makes can be told from the program's text and removed, giving
 * the input back exactly: what `Function.prototype.toString()` gives under the runtime
 * (@jsprof/runtime's source-text.ts). Checked on whole files (the prelude aside, which no function
 * holds) of the corpus, random programs, the syntax corpus and real libraries, through the ESTree
 * and SWC fronts; then on the functions themselves, as V8 gives their text.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { preludeSource } from '@jsprof/policy';
import { originalText } from '../../runtime/src/source-text';
import { instrument, parseJs } from '../src';
import { instrument as swcInstrument } from '../../swc-plugin/src';
import { CASES } from '../../../fixtures/corpus/cases';
import { randomProgram } from '../../../fixtures/corpus/random-programs';
import { SYNTAX_CORPUS } from '../../swc-plugin/test/syntax-corpus';

const ROOT = path.join(__dirname, '../../..');
const SETTINGS = [{ threshold: 1 }, { threshold: 1, loops: true }, { threshold: 10 }, { threshold: 1, exits: false, loops: true }];
const LIBRARIES = [
  'acorn/dist/acorn.js',
  'js-yaml/dist/js-yaml.js',
  'markdown-it/dist/markdown-it.cjs.js',
  'marked/lib/marked.esm.js',
  'uglify-js/lib/compress.js',
  'uglify-js/lib/output.js',
  'terser/dist/bundle.min.js',
];

interface Input {
  name: string;
  code: string;
  sourceType: 'script' | 'module';
}

/** `await` and `yield` in functions with loops, where their checks go in every way. */
const SUSPENSIONS = `async function f(list) {
  let s = 0
  for (const n of list) s += n
  await null
  const v = await Promise.resolve(s), w = [await 1, (await 2)]
  if (s) await 3; else s++
  x
  await 4;for(;;await s) break; for (; ; await s) break
  switch (s) { case 1: await 5 }
  return s + v + w[0]
}
function* g(n) { for (let i = 0; i < n; i++) yield i; yield* [1]; const r = yield; return r }`;

const inputs: Input[] = [
  { name: 'await and yield in functions with loops', code: SUSPENSIONS, sourceType: 'script' },
  ...CASES.map((c) => ({ name: `case: ${c.name}`, code: c.code, sourceType: 'script' as const })),
  ...Array.from({ length: 60 }, (_, seed) => ({ name: `random program ${seed}`, code: randomProgram(seed), sourceType: 'script' as const })),
  ...SYNTAX_CORPUS.map((c) => ({ name: `syntax: ${c.name}`, code: c.code, sourceType: c.sourceType })),
  ...fs.readdirSync(path.join(ROOT, 'fixtures/golden')).map((name) => ({
    name: `golden: ${name}`,
    code: fs.readFileSync(path.join(ROOT, 'fixtures/golden', name, 'input.js'), 'utf8'),
    sourceType: 'script' as const,
  })),
];

function withoutPrelude(out: string, sourceType: 'script' | 'module'): string {
  const prelude = `;${preludeSource({ runtime: 'global', importSource: '' }, sourceType === 'module')}`;
  const at = out.indexOf(prelude);
  return at < 0 ? out : out.slice(0, at) + out.slice(at + prelude.length);
}

const FRONTS = {
  estree: (input: Input, options: object) =>
    instrument({ code: input.code, program: parseJs(input.code, 'in.js', input.sourceType), filename: 'in.js', sourceMap: false }, options).code,
  swc: (input: Input, options: object) => swcInstrument(input.code, { ...options, filename: input.sourceType === 'module' ? 'in.mjs' : 'in.js', sourceMap: false }).code,
};

describe.each(Object.entries(FRONTS))('%s front: removing the insertions gives the input back', (front, transform) => {
  test.each(inputs.map((input) => [input.name, input] as const))('%s', (_name, input) => {
    if (front === 'estree' && input.name === 'syntax: accessor fields') return; // acorn reads no `accessor`
    for (const options of SETTINGS) {
      const out = transform(input, options);
      expect({ options, text: originalText(withoutPrelude(out, input.sourceType)) }).toEqual({ options, text: input.code });
    }
  });
});

test.each(LIBRARIES)('a real library, %s, at threshold 1 with loop checks, and at the defaults', (file) => {
  const code = fs.readFileSync(path.join(ROOT, 'node_modules', file), 'utf8');
  const sourceType = file.endsWith('.mjs') || file.includes('.esm.') ? 'module' : 'script';
  for (const options of [{ threshold: 1, loops: true }, {}]) {
    const out = instrument({ code, program: parseJs(code, file, sourceType), filename: file, sourceMap: false }, options).code;
    expect(out).not.toBe(code);
    const back = originalText(withoutPrelude(out, sourceType));
    expect(back === code).toBe(true); // toEqual would print megabytes
  }
});

describe('a function’s own text, as V8 gives it', () => {
  test('every function of the random programs and the corpus: toString() of the instrumented one, taken apart, is the original’s', () => {
    /** The text of every function a script defines that a walk over its values reaches, in order. */
    const functionTexts = (code: string): string[] => {
      const context = vm.createContext({});
      const collect = `
        const seen = new Set(), texts = [];
        const walk = (value, depth) => {
          if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value) || depth > 4) return;
          seen.add(value);
          if (typeof value === 'function') texts.push(Function.prototype.toString.call(value));
          for (const key of Reflect.ownKeys(value)) {
            const d = Reflect.getOwnPropertyDescriptor(value, key);
            for (const v of [d.value, d.get, d.set]) walk(v, depth + 1);
          }
          walk(Object.getPrototypeOf(value), depth + 1);
        };
        for (const key of Object.getOwnPropertyNames(globalThis)) if (!(key in builtins)) walk(globalThis[key], 0);
        texts`;
      vm.runInContext('var builtins = {}; for (const k of Object.getOwnPropertyNames(globalThis)) builtins[k] = 1;', context);
      vm.runInContext(code, context, { timeout: 5000 });
      return vm.runInContext(collect, context).filter((t: string) => !t.includes('[native code]'));
    };
    let compared = 0;
    for (const input of inputs.filter((i) => i.sourceType === 'script' && !i.name.startsWith('syntax'))) {
      let before: string[];
      try {
        before = functionTexts(input.code);
      } catch {
        continue; // a program that throws defines what it defines before the throw: compare the others
      }
      for (const options of SETTINGS) {
        const after = functionTexts(instrument({ code: input.code, program: parseJs(input.code), sourceMap: false }, options).code);
        const taken = after.map((text) => (text.includes('__jsprof$') ? originalText(text) : text));
        expect({ input: input.name, options, texts: taken }).toEqual({ input: input.name, options, texts: before });
      }
      compared += before.length;
    }
    expect(compared).toBeGreaterThan(200);
  });
});
