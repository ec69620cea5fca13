/**
 * The object inserted checks reach (`globalThis.__jsprof`): the counter `c` they count down, and
 * `s`, whose property they delete when it runs out (a Proxy: its trap is the slow path).
 * One per realm, created when the runtime first loads; a second copy of the runtime reuses it.
 * `c` and `s` are also globals of their own, which the checks of ES modules read (see
 * `@jsprof/policy`'s check.ts): modules that ran before the runtime loaded reach it from then on.
 */
import { EXIT_SLOTS, Engine, Hook, Platform, REARM } from './engine';
import { cancelInterval, fillWith, performanceNow, startInterval } from './builtins';
import { defineGlobal } from './globals';
import { COUNTER_GLOBAL, RUNTIME_GLOBAL, SLOW_PATH_GLOBAL } from './names';
import { keepSourceText } from './source-text';

interface RealmHook extends Hook {
  engine?: Engine;
}

const realm = globalThis as any;

/** [count-down of entry and loop checks, then the exit slots' counts of exit checks] (see @jsprof/policy's check.ts). */
function newCounter(): Int32Array {
  const length = 1 + EXIT_SLOTS;
  const counter = typeof SharedArrayBuffer === 'function' ? new Int32Array(new SharedArrayBuffer(4 * length)) : new Int32Array(length);
  fillWith(counter, REARM);
  return counter;
}

export const defaultPlatform: Platform = {
  now: performanceNow,
  startIdleTimer(fn, ms) {
    const timer: any = startInterval(fn, ms);
    timer?.unref?.();
    return () => cancelInterval(timer);
  },
};

function createHook(): RealmHook {
  const hook = { c: newCounter() } as RealmHook;
  const engine = new Engine(hook, defaultPlatform);
  Object.defineProperty(hook, 'engine', { value: engine, enumerable: false });
  keepSourceText();
  return hook;
}

function isHook(value: any): value is RealmHook {
  return !!value && typeof value === 'object' && value.c instanceof Int32Array && typeof value.s === 'object' && value.engine instanceof Object;
}

export const hook: RealmHook = isHook(realm[RUNTIME_GLOBAL]) ? realm[RUNTIME_GLOBAL] : createHook();
defineGlobal(RUNTIME_GLOBAL, hook);
defineGlobal(COUNTER_GLOBAL, hook.c);
defineGlobal(SLOW_PATH_GLOBAL, hook.s);

export function getEngine(): Engine {
  return hook.engine!;
}
