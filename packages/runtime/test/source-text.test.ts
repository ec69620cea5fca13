/**
 * With the runtime loaded, `Function.prototype.toString()` gives instrumented functions' text as it
 * was written, and cannot be told from the engine's own.
 */
import { instrument, parseJs } from '../../estree-instrument/src';
import { instrument as babelInstrument } from '../../babel-plugin/test/helpers';
import '../src';

const SOURCE = `
function shipped(n) {
  let sum = 0
  for (let i = 0; i < n; i++) sum += square(i)
  if (sum > 1e9) return -1
  return (sum)
  function square(x) { return x * x }
}
var arrow = (n) => [1, 2, 3].map((x) => x * n).reduce((a, b) => a + b, 0);
var obj = { method(a) { for (const k of a) if (k) return k; return null }, get prop() { return 1 } };
class Shape { constructor(w) { this.w = w; while (this.w > 10) this.w /= 2 } static { this.kind = 'shape' } area() { return this.w ** 2 } }
[shipped, arrow, obj.method, Object.getOwnPropertyDescriptor(obj, 'prop').get, Shape, Shape.prototype.area]`;

/** Runs a script in this realm, where the runtime patched Function.prototype. */
const evaluate = (code: string): any => (0, eval)(code);

describe('Function.prototype.toString with the runtime loaded', () => {
  const originals: Function[] = evaluate(SOURCE);
  const settings = [{ threshold: 1 }, { threshold: 1, loops: true }, { threshold: 1, exits: false }];

  test.each(settings)('gives the ESTree front’s functions their text as written (%o)', (options) => {
    const code = instrument({ code: SOURCE, program: parseJs(SOURCE, 'shipped.js', 'script'), sourceMap: false }, options).code;
    const instrumented: Function[] = evaluate(code);
    expect(code.match(/if \(--__jsprof\$c/g)!.length).toBeGreaterThan(8);
    expect(instrumented.map(String)).toEqual(originals.map(String));
    // rebuilt from its text, a function runs where no runtime is
    const rebuilt = new Function(`return (${instrumented[0]})`)();
    expect(rebuilt(10)).toBe(285);
    expect(new Function(`return (${instrumented[1]})`)()(10)).toBe(60);
  });

  test('leaves text it cannot take apart exactly as it runs: Babel’s output', () => {
    const code = babelInstrument(SOURCE, { threshold: 1 }).code;
    const instrumented: Function[] = evaluate(code);
    expect(String(instrumented[0])).toContain('__jsprof$');
  });

  test('cannot be told from the engine’s own toString', () => {
    const toString = Function.prototype.toString;
    expect(toString.toString()).toBe('function toString() { [native code] }');
    expect(toString.call(toString)).toBe('function toString() { [native code] }');
    expect(toString.name).toBe('toString');
    expect(toString.length).toBe(0);
    expect(Object.getOwnPropertyNames(toString).sort()).toEqual(['length', 'name']);
    expect(Object.getOwnPropertyDescriptor(Function.prototype, 'toString')).toMatchObject({ writable: true, enumerable: false, configurable: true });
    expect(() => new (toString as any)()).toThrow(TypeError);
    expect(() => toString.call({})).toThrow(TypeError);
    expect(toString.call(Math.max)).toBe('function max() { [native code] }');
    expect(String(evaluate('(class A {})'))).toBe('class A {}');
  });
});
