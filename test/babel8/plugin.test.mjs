// Smoke test of @jsprof/babel-plugin (the built dist) under Babel 8, which is ESM-only:
// instrumented code runs, its checks fire, results match, and Babel 8 sees the same functions as Babel 7.
// Run with `npm run test:babel8` (node --test test/babel8/) after `npm run build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as babel8 from '@babel/core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const requireFromRoot = createRequire(path.join(root, 'package.json'));
const plugin = requireFromRoot('./packages/babel-plugin/dist/index.js').default;
const { newCounter, slowPathTrap, IMPORTED_COUNTER, IMPORTED_SLOW_PATH } = requireFromRoot('./packages/policy/dist/index.js');
const babel7 = requireFromRoot('@babel/core');

assert.match(babel8.version, /^8\./);
assert.match(babel7.version, /^7\./);

function transform(babel, code, options = {}, extra = {}) {
  const result = babel.transformSync(code, {
    babelrc: false,
    configFile: false,
    sourceType: 'script',
    ...extra,
    plugins: [[plugin, options]],
  });
  return { code: result.code, map: result.map, jsprof: result.metadata.jsprof };
}

/** A fake runtime hook that counts the checks that ran: its counter runs out at every check, and the slow path zeroes it. */
function fakeHook() {
  const hook = {
    calls: 0,
    c: newCounter(),
    s: slowPathTrap(() => {
      hook.calls++;
      hook.c.fill(0);
    }),
  };
  return hook;
}

const DECLARATIONS = `
function outer(n) {
  const base = 10;
  let total = 0;
  for (let i = 0; i < n; i++) total += helper(i);
  return total;
  function helper(i) { return base + i; }
}
const arrow = (a) => a * 2;
const bare = a => a + 1;
class Base { constructor(v) { this.v = v; } }
class Derived extends Base {
  constructor(v) { super(v + 1); this.w = new.target.name; }
  get both() { return this.v + ':' + this.w; }
  static make() { return new Derived(1); }
  field = () => this.v;
}
function* gen() { yield 1; yield 2; }
async function later(x) { return (await x) * 3; }
var log = [];
class WithStatic { static { log.push('static'); } }
`;
const RESULT = 'JSON.stringify([outer(3), arrow(2), bare(2), Derived.make().both, Derived.make().field(), [...gen()], log])';
const PROGRAM = `${DECLARATIONS}${RESULT};\n`;

// outer 2, helper 3 x 2, arrow 2, bare 2, make 2 x 2, Derived 2 x 2, Base 2 x 2, both 2, field 2, gen 2, static block 2
const EXPECTED_CHECKS = 2 + 6 + 2 + 2 + 4 + 4 + 4 + 2 + 2 + 2 + 2;

test('instrumented code gives the same result and its checks run', () => {
  const expected = vm.runInNewContext(PROGRAM);
  const out = transform(babel8, PROGRAM, { threshold: 1 });
  const hook = fakeHook();
  assert.equal(vm.runInNewContext(out.code, { __jsprof: hook }), expected);
  assert.equal(hook.calls, EXPECTED_CHECKS);
  assert.equal(vm.runInNewContext(out.code), expected, 'runs unchanged without the runtime');
});

test('async functions: checks at entry and exit', async () => {
  const hook = fakeHook();
  const out = transform(babel8, `${PROGRAM}\nlater(Promise.resolve(2));`, { threshold: 1 });
  assert.equal(await vm.runInNewContext(out.code, { __jsprof: hook }), 6);
  assert.equal(hook.calls, EXPECTED_CHECKS + 2);
});

test("runtime: 'import' in a script requires the runtime", () => {
  const hook = fakeHook();
  const out = transform(babel8, PROGRAM, { threshold: 1, runtime: 'import' });
  const require = (id) => {
    assert.equal(id, '@jsprof/runtime');
    return { [IMPORTED_COUNTER]: hook.c, [IMPORTED_SLOW_PATH]: hook.s };
  };
  assert.equal(vm.runInNewContext(out.code, { require }), vm.runInNewContext(PROGRAM));
  assert.equal(hook.calls, EXPECTED_CHECKS);
});

test('an ES module runs in Node, with and without the runtime imported', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-babel8-'));
  try {
    const source = `${DECLARATIONS}console.log(${RESULT});\n`;
    const expected = vm.runInNewContext(PROGRAM);
    const runtimeUrl = pathToFileURL(requireFromRoot.resolve('@jsprof/runtime')).href;
    for (const options of [{ threshold: 1 }, { threshold: 1, runtime: 'import', importSource: runtimeUrl }]) {
      const file = path.join(dir, 'main.mjs');
      fs.writeFileSync(file, transform(babel8, source, options, { sourceType: 'module' }).code);
      const child = spawnSync(process.execPath, [file], { encoding: 'utf8' });
      assert.equal(child.stderr, '');
      assert.equal(child.stdout.trim(), expected);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('Babel 8 and Babel 7 list the same functions, names and starts, and insert the same code', () => {
  const forms = fs.readFileSync(path.join(root, 'fixtures/corpus/forms.js'), 'utf8');
  for (const options of [{ threshold: 1 }, { threshold: 1, loops: true }, { threshold: 1, runtime: 'import' }]) {
    const with8 = transform(babel8, forms, options);
    const with7 = transform(babel7, forms, options);
    assert.deepEqual(with8.jsprof, with7.jsprof);
    assert.equal(with8.code, with7.code);
  }
});

test('a second pass under Babel 8 changes nothing', () => {
  const once = transform(babel8, PROGRAM, { threshold: 1 });
  const twice = transform(babel8, once.code, { threshold: 1 });
  assert.equal(twice.jsprof.changed, false);
  assert.equal(twice.code, once.code);
});

test('bad options fail with the policy message', () => {
  assert.throws(() => transform(babel8, PROGRAM, { threshold: -1 }), /@jsprof: option "threshold" must be a whole number of statements ≥ 0; got -1/);
});
