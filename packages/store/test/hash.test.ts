import { fnv1a64, functionId, hashToString, stackId, stringToHash } from '../src/hash';

/** FNV-1a 64 with BigInt, as the definition states it. */
function reference(bytes: Uint8Array): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of bytes) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return hash.toString();
}

describe('64-bit FNV-1a ids', () => {
  test('match the published FNV-1a 64 test vectors', () => {
    expect(hashToString(fnv1a64(new Uint8Array()))).toBe(BigInt('0xcbf29ce484222325').toString());
    expect(hashToString(fnv1a64(new TextEncoder().encode('a')))).toBe(BigInt('0xaf63dc4c8601ec8c').toString());
    expect(hashToString(fnv1a64(new TextEncoder().encode('foobar')))).toBe(BigInt('0x85944171f73967e8').toString());
  });

  test('match a BigInt implementation on random bytes', () => {
    let seed = 7;
    for (let n = 0; n < 200; n++) {
      const bytes = new Uint8Array(n % 40).map(() => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff);
      expect(hashToString(fnv1a64(bytes))).toBe(reference(bytes));
    }
  });

  test('a function is its file and name; a stack its chain of functions', () => {
    expect(functionId('src/app.js', 'render')).toBe(functionId('src/app.js', 'render'));
    expect(functionId('src/app.js', 'render')).not.toBe(functionId('src/app.js', 'paint'));
    const a = stringToHash(functionId('src/app.js', 'a'));
    const b = stringToHash(functionId('src/app.js', 'b'));
    expect(hashToString(stackId(stackId(null, a), b))).not.toBe(hashToString(stackId(stackId(null, b), a)));
    expect(stringToHash(hashToString(a))).toEqual(a);
  });
});
