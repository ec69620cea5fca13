'use strict';
/**
 * Running one test262 test once, as test262's own INTERPRETING.md (in the checkout) says: a new
 * realm (a `vm` context) with `print` and `$262`, the harness files run in it as scripts of their
 * own, then the test as a script or (flag `module`) as a `vm.SourceTextModule` whose `./x` imports
 * load files beside it. Needs `--experimental-vm-modules` (modules, `import()`).
 *
 * `transformFixture(text, file)` gives the code of a module the test imports (instrumented as
 * the test is); `runtime` installs a stand-in for `@jsprof/runtime` whose checks always take the
 * slow path (as packages/babel-plugin/test/helpers.ts's FakeRuntime).
 */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { newCounter, slowPathTrap } = require('../../packages/policy/dist');

/**
 * How long an async test may take to print its result, or a module's evaluation to settle. Sync
 * code has no timeout here (a vm timeout starts a thread per run, which doubled the time of a
 * run): a worker that hangs is killed by the pool (conformance.js), and the run it was in fails.
 */
const ASYNC_TIMEOUT_MS = 5_000;

/** Compiled harness scripts, by file and strictness (a vm.Script runs in any context). */
const harnessScripts = new Map();

function harnessScript(root, name, strict) {
  const key = `${strict ? 's' : 'n'}:${name}`;
  let script = harnessScripts.get(key);
  if (!script) {
    const text = fs.readFileSync(path.join(root, 'harness', name), 'utf8');
    script = new vm.Script((strict ? '"use strict";\n' : '') + text, { filename: `harness/${name}` });
    harnessScripts.set(key, script);
  }
  return script;
}

/**
 * A new realm: `{ context, global, $262, prints, checks, modules }`. `env`: `{ dir, runtime,
 * transformFixture }`.
 */
function createRealm(env) {
  const context = vm.createContext({});
  const realm = { id: ++lastRealmId, context, env, global: null, $262: null, prints: [], onPrint: null, checks: 0, modules: new Map(), ready: new Map(), children: [] };
  const define = vm.runInContext(
    '(function (name, value) { Object.defineProperty(globalThis, name, { value: value, writable: true, configurable: true, enumerable: false }); })',
    context,
  );
  realm.global = vm.runInContext('globalThis', context);
  if (env.runtime) {
    const counter = newCounter();
    const slowPath = slowPathTrap(() => {
      realm.checks++;
      counter.fill(0);
    });
    define('__jsprof', { c: counter, s: slowPath });
  }
  const $262 = vm.runInContext('({})', context);
  $262.global = realm.global;
  $262.createRealm = () => {
    const child = createRealm(env);
    realm.children.push(child);
    return child.$262;
  };
  $262.evalScript = (source) => {
    let script;
    try {
      script = new vm.Script(String(source), { filename: 'evalScript.js', importModuleDynamically: dynamicImport(realm) });
    } catch (error) {
      throw inRealm(realm, error);
    }
    return script.runInContext(context);
  };
  $262.detachArrayBuffer = (buffer) => {
    structuredClone(buffer, { transfer: [buffer] });
    return null;
  };
  $262.gc = () => {
    if (typeof global.gc !== 'function') throw new realm.global.Error('no gc (run node with --expose-gc)');
    global.gc();
  };
  realm.$262 = $262;
  realms.set(realm.id, realm);
  define('$262', $262);
  define('print', (message) => {
    const text = String(message);
    realm.prints.push(text);
    realm.onPrint?.(text);
  });
  return realm;
}

/** A main-realm error (from compiling in `vm`) as the realm's own error of the same name. */
function inRealm(realm, error) {
  if (error instanceof Error && typeof realm.global[error.name] === 'function') {
    return new realm.global[error.name](error.message);
  }
  return error;
}

/** The file a test's module specifier (always `./name`) names. */
function resolveSpecifier(realm, specifier) {
  return path.resolve(realm.env.dir, specifier);
}

function loadModule(realm, file, attributes) {
  let module = realm.modules.get(file);
  if (module) return module;
  const { context } = realm;
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new realm.global.Error(`cannot load ${path.basename(file)}: ${error.code ?? error.message}`);
  }
  if (attributes?.type === 'json' || file.endsWith('.json')) {
    const value = realm.global.JSON.parse(text);
    module = new vm.SyntheticModule(['default'], function () {
      this.setExport('default', value);
    }, { context, identifier: file });
  } else {
    const code = realm.env.transformFixture ? realm.env.transformFixture(text, file) : text;
    try {
      module = new vm.SourceTextModule(code, { context, identifier: file, importModuleDynamically: dynamicImport(realm) });
    } catch (error) {
      throw inRealm(realm, error);
    }
  }
  realm.modules.set(file, module);
  return module;
}

function linker(realm) {
  return (specifier, _referrer, extra) => loadModule(realm, resolveSpecifier(realm, specifier), extra?.attributes ?? extra?.assert);
}

/**
 * Live realms by id. A callback given to vm as `importModuleDynamically` is kept alive by Node 20
 * with what it refers to (a script's context, with everything in it, was never collected: a worker
 * grew by half a megabyte a run), so the callbacks hold only an id, and a realm is let go here
 * when its run ends.
 */
const realms = new Map();
let lastRealmId = 0;

/** `import()` from the realm's scripts and modules: load, link and evaluate, once per module. */
function dynamicImport(realm) {
  const id = realm.id;
  return async (specifier, _referrer, attributes) => {
    const realm = realms.get(id);
    if (!realm) throw new Error(`import(${JSON.stringify(specifier)}) after the test ended`);
    const module = loadModule(realm, resolveSpecifier(realm, specifier), attributes);
    let ready = realm.ready.get(module);
    if (!ready) {
      ready = (async () => {
        if (module.status === 'unlinked') await module.link(linker(realm));
        if (module.status === 'linked') await module.evaluate();
      })();
      realm.ready.set(module, ready);
    }
    if (module.status !== 'evaluating') await ready;
    return module;
  };
}

function describe(error) {
  if (error === undefined) return 'undefined';
  let text;
  try {
    if (error && typeof error === 'object' && 'message' in error) text = `${errorName(error)}: ${error.message}`;
    else text = `${typeof error} ${String(error)}`;
  } catch {
    text = '(unprintable)';
  }
  text = text.split('\n')[0];
  return text.length > 240 ? `${text.slice(0, 237)}...` : text;
}

function errorName(error) {
  try {
    if (error && (typeof error === 'object' || typeof error === 'function')) return error.constructor?.name ?? typeof error;
  } catch {
    return 'unknown';
  }
  return typeof error;
}

function timeout(ms, value) {
  let timer;
  const promise = new Promise((resolve) => {
    timer = setTimeout(() => resolve(value), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

const TIMED_OUT = Symbol('timed out');

/**
 * Runs `code` (the test's text, strict prefix included where due) once.
 * `test`: `{ root, file (absolute), variant, harness, negative, async }`; `env`: `{ runtime,
 * transformFixture }`. Returns `{ pass, detail, checks }`.
 */
async function runTest(test, code, env) {
  const realm = createRealm({ ...env, dir: path.dirname(test.file) });
  const { context } = realm;
  const { variant } = test;
  let done = null;
  if (test.async) {
    done = new Promise((resolve) => {
      realm.onPrint = (text) => {
        if (text.startsWith('Test262:AsyncTestComplete') || text.startsWith('Test262:AsyncTestFailure')) resolve(text);
      };
    });
  }
  const outcome = await (async () => {
    for (const name of test.harness) {
      try {
        harnessScript(test.root, name, variant.strict && !variant.module).runInContext(context);
      } catch (error) {
        return { phase: 'harness', error };
      }
    }
    const filename = path.relative(test.root, test.file);
    if (variant.module) {
      let module;
      try {
        module = new vm.SourceTextModule(code, { context, identifier: test.file, importModuleDynamically: dynamicImport(realm) });
      } catch (error) {
        return { phase: 'parse', error };
      }
      realm.modules.set(test.file, module);
      try {
        await module.link(linker(realm));
      } catch (error) {
        return { phase: 'resolution', error };
      }
      const evaluation = module.evaluate();
      realm.ready.set(module, evaluation.catch(() => {}));
      const limit = timeout(ASYNC_TIMEOUT_MS, TIMED_OUT);
      try {
        if ((await Promise.race([evaluation, limit.promise])) === TIMED_OUT) return { phase: 'timeout', error: 'module evaluation never finished' };
      } catch (error) {
        return { phase: 'runtime', error };
      } finally {
        limit.cancel();
      }
    } else {
      let script;
      try {
        script = new vm.Script(code, { filename, importModuleDynamically: dynamicImport(realm) });
      } catch (error) {
        return { phase: 'parse', error };
      }
      try {
        script.runInContext(context);
      } catch (error) {
        return { phase: 'runtime', error };
      }
    }
    if (done) {
      const limit = timeout(ASYNC_TIMEOUT_MS, TIMED_OUT);
      const printed = await Promise.race([done, limit.promise]);
      limit.cancel();
      if (printed === TIMED_OUT) return { phase: 'timeout', error: `async test did not print Test262:AsyncTestComplete within ${ASYNC_TIMEOUT_MS} ms` };
      if (printed.startsWith('Test262:AsyncTestFailure')) return { phase: 'async', error: printed };
    }
    return { phase: null };
  })();
  release(realm);
  return { ...judge(test.negative, outcome), checks: realm.checks };
}

function release(realm) {
  realms.delete(realm.id);
  for (const child of realm.children) release(child);
}

function judge(negative, { phase, error }) {
  const what = () => (typeof error === 'string' ? error : describe(error));
  if (negative) {
    if (!phase) return { pass: false, detail: `expected ${negative.type} (${negative.phase} phase), ran to completion` };
    if (phase === negative.phase && errorName(error) === negative.type) return { pass: true };
    return { pass: false, detail: `expected ${negative.type} (${negative.phase} phase), got ${phase}: ${what()}` };
  }
  if (phase) return { pass: false, detail: `${phase}: ${what()}` };
  return { pass: true };
}

module.exports = { runTest, describe, errorName, ASYNC_TIMEOUT_MS };
