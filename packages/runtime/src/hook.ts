/**
 * The object inserted checks reach (`globalThis.__jsprof`): the counter `c` they count down, and
 * `s`, whose property they delete when it runs out (a Proxy: its trap is the slow path).
 * One per realm, created when the runtime first loads; a second copy of the runtime reuses it.
 */
import { Engine, Hook, Platform, REARM } from './engine';
import { RUNTIME_GLOBAL } from './names';

interface RealmHook extends Hook {
  engine?: Engine;
}

const realm = globalThis as any;

/** [count-down of entry and loop checks, count of exit checks] (see @jsprof/policy's check.ts). */
function newCounter(): Int32Array {
  const counter = typeof SharedArrayBuffer === 'function' ? new Int32Array(new SharedArrayBuffer(8)) : new Int32Array(2);
  counter.fill(REARM);
  return counter;
}

export const defaultPlatform: Platform = {
  now: () => performance.now(),
  startIdleTimer(fn, ms) {
    const timer: any = setInterval(fn, ms);
    timer?.unref?.();
    return () => clearInterval(timer);
  },
};

function createHook(): RealmHook {
  const hook = { c: newCounter() } as RealmHook;
  const engine = new Engine(hook, defaultPlatform);
  Object.defineProperty(hook, 'engine', { value: engine, enumerable: false });
  return hook;
}

function isHook(value: any): value is RealmHook {
  return !!value && typeof value === 'object' && value.c instanceof Int32Array && typeof value.s === 'object' && value.engine instanceof Object;
}

export const hook: RealmHook = isHook(realm[RUNTIME_GLOBAL]) ? realm[RUNTIME_GLOBAL] : createHook();
if (realm[RUNTIME_GLOBAL] !== hook) {
  Object.defineProperty(realm, RUNTIME_GLOBAL, { value: hook, configurable: true, writable: true, enumerable: false });
}

export function getEngine(): Engine {
  return hook.engine!;
}
