/**
 * Properties the runtime adds to the global object. A frozen global (SES's `harden(globalThis)`)
 * takes none: the runtime then loads all the same, and says once what is lost.
 */
let warned = false;

/** Defines `globalThis[name]` (not enumerable unless a script's `var` already declared it); false if the global refused it. */
export function defineGlobal(name: string, value: unknown): boolean {
  const realm = globalThis as any;
  if (realm[name] === value) return true;
  try {
    if (Object.prototype.hasOwnProperty.call(realm, name)) realm[name] = value;
    else Object.defineProperty(realm, name, { value, configurable: true, writable: true, enumerable: false });
    if (realm[name] === value) return true;
  } catch {
    // frozen, or a read-only property
  }
  if (!warned) {
    warned = true;
    console.warn(`jsprof: the global object is frozen: load jsprof before it (no ${name}, no samples)`);
  }
  return false;
}
