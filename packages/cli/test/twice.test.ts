/**
 * Code jsprof already instrumented meets jsprof again (issue 31): every ordered pair of front ends,
 * the Babel plugin, the ESTree front (`jsprof instrument`), the SWC front, the bundler plugin and
 * the `jsprof run` load hook, applied one after the other to the corpus, as a classic script, as
 * CommonJS and as an ES module. The second changes nothing (Babel, which prints every file it
 * reads, prints it as it prints it without the plugin), the program computes what it computed, and
 * under `jsprof run` the hot function of a file built by each front is in the trace. Code with
 * checks of an older protocol is left as it is by each, with a warning naming it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { transformSync } from '@babel/core';
import babelPlugin from '../../babel-plugin/src';
import { FakeRuntime } from '../../babel-plugin/test/helpers';
import { instrument as estreeInstrument, parseJs } from '../../estree-instrument/src';
import { instrument as swcInstrument } from '../../swc-plugin/src';
import { jsprofUnplugin } from '../../bundler-plugin/src/unplugin';
import { CHECK_PROTOCOL, instrumentedProtocol, isInstrumentedSource } from '@jsprof/policy';
import { CASES } from '../../../fixtures/corpus/cases';
import { ROOT, jsprof, tempDir } from './helpers';

type Kind = 'script' | 'commonjs' | 'module';
const KINDS: Kind[] = ['script', 'commonjs', 'module'];
const OPTIONS = { threshold: 1 };
const FILE: Record<Kind, string> = { script: 'case.js', commonjs: 'case.cjs', module: 'case.mjs' };

const babel = (code: string, kind: Kind, plugins: any[]) =>
  transformSync(code, { babelrc: false, configFile: false, sourceType: kind === 'module' ? 'module' : 'script', plugins })!.code!;

/** What the register hook of `jsprof run` does to a module as it loads (its bundle, as the hook loads it). */
const { instrumentSource } = require(path.join(ROOT, 'packages/cli/dist/instrumenter.bundle.js'));
/** The rollup plugin's transform hook, as rollup calls it (an object hook: it runs after other plugins' transforms). */
const bundler: any = jsprofUnplugin.rollup(OPTIONS).transform.handler;

const FRONTS: Record<string, (code: string, kind: Kind) => string> = {
  babel: (code, kind) => babel(code, kind, [[babelPlugin, OPTIONS]]),
  estree: (code, kind) => estreeInstrument({ code, program: parseJs(code, FILE[kind], kind === 'module' ? 'module' : 'script'), filename: FILE[kind] }, OPTIONS).code,
  swc: (code, kind) => swcInstrument(code, { ...OPTIONS, filename: FILE[kind] }).code,
  bundler: (code, kind) => bundler(code, `/src/${FILE[kind]}`)?.code ?? code,
  'run hook': (code, kind) => instrumentSource(code, `/src/${FILE[kind]}`, kind === 'module' ? 'module' : 'commonjs', OPTIONS)?.code ?? code,
};
const PAIRS = Object.keys(FRONTS).flatMap((first) => Object.keys(FRONTS).map((second) => [first, second] as const));

/** The corpus cases as each kind of file: a script ending in its result, CommonJS exporting it, a module exporting it. */
function asKind(c: { code: string; result: string }, kind: Kind): string {
  if (kind === 'script') return `${c.code}\n;(${c.result});`;
  if (kind === 'commonjs') return `${c.code}\nmodule.exports = (${c.result});`;
  return `${c.code}\nexport default (${c.result});`;
}

/** What a script or CommonJS file computed, with the runtime stand-in or without; modules are only compared as text. */
function compute(code: string, kind: Kind, runtime: boolean): string {
  const globals: Record<string, unknown> = runtime ? { __jsprof: new FakeRuntime().hook } : {};
  try {
    if (kind === 'script') return JSON.stringify(vm.runInNewContext(code, globals, { timeout: 5000 }));
    const module = { exports: {} as unknown };
    vm.runInNewContext(`(function (module, exports, require) {${code}\n})`, globals, { timeout: 5000 })(module, module.exports, require);
    return JSON.stringify(module.exports);
  } catch (error: any) {
    return `threw ${error?.name}: ${error?.message}`;
  }
}

const cases = CASES.filter((c) => !c.sloppy && !/\bawait\b|Promise|then\(/.test(c.result));

describe.each(KINDS)('as %s', (kind) => {
  test.each(PAIRS)('%s, then %s: the second changes nothing, and the program computes what it did', (first, second) => {
    let compared = 0;
    let twiceInstrumented = 0;
    for (const c of cases) {
      const source = asKind(c, kind);
      const once = FRONTS[first](source, kind);
      const twice = FRONTS[second](once, kind);
      // Babel prints what it reads; with the plugin it must print nothing more. (Where the first
      // left the file as it was, the second instruments it as a first would.)
      const unchanged = second === 'babel' ? babel(once, kind, []) : once;
      if (isInstrumentedSource(once)) {
        expect({ case: c.name, twice }).toEqual({ case: c.name, twice: unchanged });
        twiceInstrumented++;
      }
      if (kind === 'module') continue;
      const expected = compute(source, kind, false);
      expect({ case: c.name, result: compute(twice, kind, true) }).toEqual({ case: c.name, result: expected });
      expect({ case: c.name, result: compute(twice, kind, false) }).toEqual({ case: c.name, result: expected });
      compared++;
    }
    expect(compared).toBe(kind === 'module' ? 0 : cases.length);
    expect(twiceInstrumented).toBeGreaterThan(cases.length * 0.9);
  });
});

/** A hot function with a loop, called for 300 ms. */
const HOT = `function hotLoop(n) {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.sqrt(i) % 3;
  return sum;
}
const end = Date.now() + 300;
let total = 0;
while (Date.now() < end) total += hotLoop(20000);
`;

describe('built by each front, then run under jsprof run (its load hook the second pass): the hot function is in the trace', () => {
  const dir = tempDir();
  test.each(Object.keys(FRONTS).filter((f) => f !== 'run hook'))('%s', (front) => {
    for (const kind of ['commonjs', 'module'] as Kind[]) {
      const file = path.join(dir, `${front}-${FILE[kind]}`);
      fs.writeFileSync(file, FRONTS[front](HOT + (kind === 'module' ? 'export default total;\n' : 'module.exports = total;\n'), kind));
      const out = path.join(dir, `${front}-${kind}.json`);
      const run = jsprof(['run', '-q', '--out', out, file], { env: { JSPROF_CACHE_DIR: path.join(dir, 'cache') } });
      expect({ front, kind, status: run.status, stderr: run.stderr }).toEqual({ front, kind, status: 0, stderr: '' });
      const trace = JSON.parse(fs.readFileSync(out, 'utf8'));
      const names = trace.frames.map((f: any) => f.name);
      expect({ front, kind, hot: names.includes('hotLoop') }).toEqual({ front, kind, hot: true });
    }
  });
});

/**
 * Checks of another protocol (protocol 1 called functions of the file's own; no runtime of this
 * jsprof arms them): every front and `jsprof run` leave the file as it is and say so, naming it.
 */
describe('code instrumented by an older jsprof (check protocol 1)', () => {
  const OLD = `function __jsprof$e() {}\nfunction hot(n) { __jsprof$e(); let s = 0; for (let i = 0; i < n; i++) s += i; return s; }\nmodule.exports = hot(1000);\n`;
  const named = /old\.cjs was instrumented by an older jsprof \(check protocol 1; this one arms 2\): it is left as it is and its functions are not sampled; instrument its original source again/;

  test('the policy tells the protocols apart', () => {
    expect(instrumentedProtocol(OLD)).toBe(1);
    expect(instrumentedProtocol(FRONTS.estree('function f(n) { let s = 0; for (const x of n) s += x; return s; }', 'script'))).toBe(CHECK_PROTOCOL);
    expect(instrumentedProtocol('function f() {}')).toBeNull();
  });

  test('the Babel plugin, the ESTree and SWC fronts and the bundler plugin leave it as it is and warn', () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const result = transformSync(OLD, { babelrc: false, configFile: false, filename: '/src/old.cjs', plugins: [[babelPlugin, OPTIONS]] })!;
      expect(result.code).toBe(babel(OLD, 'commonjs', []));
      expect((result.metadata as any).jsprof.protocol).toBe(1);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(named)]);
    } finally {
      warn.mockRestore();
    }
    const estree = estreeInstrument({ code: OLD, program: parseJs(OLD, 'old.cjs', 'script'), filename: '/src/old.cjs' }, OPTIONS);
    expect([estree.code, estree.changed, estree.protocol]).toEqual([OLD, false, 1]);
    expect(swcInstrument(OLD, { ...OPTIONS, filename: '/src/old.cjs' }).protocol).toBe(1);
    const warnings: string[] = [];
    expect(bundler.call({ warn: (m: string) => warnings.push(m) }, OLD, '/src/old.cjs')).toBeNull();
    expect(warnings).toEqual([expect.stringMatching(named)]);
  });

  test('jsprof instrument and jsprof run leave it as it is, name it on stderr, and go on', () => {
    const dir = tempDir();
    const file = path.join(dir, 'old.cjs');
    fs.writeFileSync(file, OLD);
    const instrumented = jsprof(['instrument', file, '--out-dir', path.join(dir, 'out')]);
    expect(instrumented.status).toBe(0);
    expect(instrumented.stderr).toMatch(named);
    expect(fs.readFileSync(path.join(dir, 'out', 'old.cjs'), 'utf8')).toBe(OLD);
    fs.writeFileSync(path.join(dir, 'main.js'), `console.log(require('./old.cjs'));\n`);
    const run = jsprof(['run', '--out', path.join(dir, 'trace.json'), path.join(dir, 'main.js')]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('499500');
    expect(run.stderr).toMatch(named);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
