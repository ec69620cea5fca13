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

/** Math's and Number's functions as they were when the runtime loaded: checks run inside a program that may replace them. */
export const { floor, min, max, round } = Math;
export const { isFinite: isFiniteNumber, isSafeInteger } = Number;

/**
 * The clock and timers as they were when the runtime loaded. A page's fake timers (a stubbed
 * `performance.now` left traces empty) and wrapped timers (zone.js runs Angular's change detection
 * after each callback of its `setInterval`) must neither steer sampling nor see the runtime's timers.
 */
export const performanceNow: () => number = performance.now.bind(performance);
export const { setTimeout: startTimeout, clearTimeout: cancelTimeout, setInterval: startInterval, clearInterval: cancelInterval } = globalThis;

/** Settled promises of the realm's own Promise, as native `stop()` gives: a page may replace the global `Promise` (zone.js does). */
export const resolvedPromise: <T>(value: T) => Promise<T> = Promise.resolve.bind(Promise);
export const rejectedPromise: <T = never>(reason: unknown) => Promise<T> = Promise.reject.bind(Promise);

/** `array.push(value)` without `Array.prototype.push`. */
export function append<T>(array: T[], value: T): void {
  array[array.length] = value;
}

/**
 * String and RegExp methods as they were when the runtime loaded, called with the string (or
 * RegExp) first: a program may replace `String.prototype.split` or `RegExp.prototype.exec` (core-js
 * does where it finds an engine's own wanting), and the stack parsers run inside its code. A RegExp
 * used only through `regexpExec` never looks up the program's `exec`.
 */
const uncurry = <A extends unknown[], R>(method: (...args: A) => R): ((self: unknown, ...args: A) => R) => Function.prototype.call.bind(method as any) as any;
export const regexpExec = uncurry(RegExp.prototype.exec);
export const stringSlice = uncurry(String.prototype.slice);
export const stringSplit = uncurry(String.prototype.split as (separator: string) => string[]);
export const stringStartsWith = uncurry(String.prototype.startsWith);
export const stringEndsWith = uncurry(String.prototype.endsWith);
export const stringLastIndexOf = uncurry(String.prototype.lastIndexOf);
export const stringTrim = uncurry(String.prototype.trim);

/** Sorts `array` in place by `before` (an insertion sort, for a few hundred items at most), without `Array.prototype.sort`. */
export function sortBy<T>(array: T[], before: (a: T, b: T) => boolean): T[] {
  for (let i = 1; i < array.length; i++) {
    const item = array[i];
    let j = i - 1;
    for (; j >= 0 && before(item, array[j]); j--) array[j + 1] = array[j];
    array[j + 1] = item;
  }
  return array;
}

/** The items of `array` from `start` on, without `Array.prototype.slice`. */
export function from<T>(array: T[], start: number): T[] {
  const out: T[] = [];
  for (let i = start; i < array.length; i++) out[out.length] = array[i];
  return out;
}

/**
 * Whether `url` locates a file (`/…`, or a scheme such as `file:`, `https:`; not V8's
 * `evalmachine.<anonymous>`), read character by character: a RegExp's `test` would call the
 * program's `RegExp.prototype.exec` if it replaced it.
 */
export function locatesFile(url: string): boolean {
  if (url[0] === '/') return true;
  for (let i = 0; i < url.length; i++) if (url[i] === ':') return true;
  return false;
}

/**
 * Fills a typed array without its prototype's `fill`, which a program may have replaced (and
 * which, at the stack limit, is one more call that can throw).
 */
export function fillWith(array: Int32Array | Float64Array | Uint8Array, value: number, from = 0): void {
  for (let i = from; i < array.length; i++) array[i] = value;
}
