/** Transforming with the plugin under Babel 7, and running the result in a fresh realm. */
import { transformSync, TransformOptions } from '@babel/core';
import * as vm from 'node:vm';
import plugin, { JsprofMetadata } from '../src/index';
import { IMPORTED_COUNTER, IMPORTED_SLOW_PATH, newCounter, slowPathTrap } from '@jsprof/policy';

export interface Instrumented {
  code: string;
  map: any;
  jsprof: JsprofMetadata;
}

export function instrument(code: string, options: object = {}, babel: TransformOptions = {}): Instrumented {
  const result = transformSync(code, {
    babelrc: false,
    configFile: false,
    sourceType: 'script',
    ...babel,
    plugins: [[plugin, options], ...(babel.plugins ?? [])],
  });
  if (!result || result.code == null) throw new Error('no output');
  return { code: result.code, map: result.map, jsprof: (result.metadata as any).jsprof };
}

/** The same Babel run without jsprof, so original and instrumented code differ only by the plugin. */
export function plain(code: string, babel: TransformOptions = {}): string {
  const result = transformSync(code, { babelrc: false, configFile: false, sourceType: 'script', ...babel });
  return result!.code!;
}

/**
 * A stand-in for `@jsprof/runtime`'s hook that counts the checks that run: its counter runs out at
 * every check, so each calls the slow path, which records the check's kind and zeroes the counter.
 */
export class FakeRuntime {
  /** The kinds of the checks that ran, in order (see @jsprof/policy's check.ts). */
  readonly kinds: number[] = [];
  private readonly counter = newCounter();
  private readonly slowPath = slowPathTrap((kind) => {
    this.kinds.push(kind);
    this.counter.fill(0);
  });
  get calls(): number {
    return this.kinds.length;
  }
  /** The global `__jsprof` object. */
  get hook() {
    return { c: this.counter, s: this.slowPath };
  }
  /** What `@jsprof/runtime` exports to modules that import it. */
  get module() {
    return { [IMPORTED_COUNTER]: this.counter, [IMPORTED_SLOW_PATH]: this.slowPath };
  }
}

/** Runs a classic script in a new realm; returns its completion value. */
export function runScript(code: string, globals: Record<string, unknown> = {}): unknown {
  return vm.runInContext(code, vm.createContext({ ...globals }), { filename: 'case.js' });
}

/** Runs CommonJS code (e.g. a module after @babel/plugin-transform-modules-commonjs) in a new realm. */
export function runCommonJs(code: string, globals: Record<string, unknown> = {}, modules: Record<string, unknown> = {}): any {
  const context = vm.createContext({ ...globals });
  const wrapper = vm.runInContext(`(function (exports, require, module) {${code}\n})`, context, { filename: 'case.js' });
  const module = { exports: {} as any };
  const require = (id: string) => {
    if (id in modules) return modules[id];
    throw new Error(`unexpected require(${JSON.stringify(id)})`);
  };
  wrapper(module.exports, require, module);
  return module.exports;
}
