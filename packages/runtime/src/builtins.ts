/**
 * Collections as the built-ins were when the runtime loaded. A program may replace
 * `Array.prototype.push` or `Map.prototype.get` (a test double, a polyfill gone wrong); checks run
 * inside its code, and the runtime's bookkeeping must neither call its replacements nor break with
 * them (a replaced `push` left traces empty).
 */

/** Defines on `target` the methods (and `size`) `source` has now, so that later replacements on `source` do not reach it. */
function keepOwn(target: object, source: object, names: (string | symbol)[]): void {
  for (const name of names) {
    const descriptor = Object.getOwnPropertyDescriptor(source, name);
    if (descriptor) Object.defineProperty(target, name, descriptor);
  }
}

const COLLECTION = ['has', 'delete', 'clear', 'forEach', 'keys', 'values', 'entries', 'size', Symbol.iterator];

export class OwnMap<K, V> extends Map<K, V> {}
keepOwn(OwnMap.prototype, Map.prototype, ['get', 'set', ...COLLECTION]);

export class OwnSet<T> extends Set<T> {}
keepOwn(OwnSet.prototype, Set.prototype, ['add', ...COLLECTION]);

export class OwnWeakMap<K extends object, V> extends WeakMap<K, V> {}
keepOwn(OwnWeakMap.prototype, WeakMap.prototype, ['get', 'set', 'has', 'delete']);

/** `array.push(value)` without `Array.prototype.push`. */
export function append<T>(array: T[], value: T): void {
  array[array.length] = value;
}

/**
 * Fills a typed array without its prototype's `fill`, which a program may have replaced (and
 * which, at the stack limit, is one more call that can throw).
 */
export function fillWith(array: Int32Array | Float64Array | Uint8Array, value: number, from = 0): void {
  for (let i = from; i < array.length; i++) array[i] = value;
}
