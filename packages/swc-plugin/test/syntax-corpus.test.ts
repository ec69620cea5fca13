/**
 * The syntax corpus (syntax-corpus.ts) through each front (SWC, ESTree with acorn, Babel), at
 * thresholds 1 and 10, with loop checks and without: every program computes what it computes
 * uninstrumented, with checks that always reach the slow path and without the runtime. Scripts run
 * in a vm context, modules in one child `node` per front and setting (vm modules need a flag). Then
 * the failures of issue 23 in the SWC front: object spread, `using`, deep nesting.
 */
import { spawnSync } from 'node:child_process';
import * as vm from 'node:vm';
import * as acorn from 'acorn';
import { parseSync, transformSync } from '@swc/core';
import { TooDeeplyNestedError, instrument as instrumentEstree, parseJs } from '@jsprof/estree-instrument';
import { EXIT_SLOTS } from '@jsprof/policy';
import { instrument, toEstree } from '../src';
import { FakeRuntime, instrument as instrumentWithBabel } from '../../babel-plugin/test/helpers';
import { SYNTAX_CORPUS, SyntaxCase } from './syntax-corpus';

type Front = (c: SyntaxCase, options: object) => string;
const filenameOf = (c: SyntaxCase) => (c.sourceType === 'module' ? 'case.mjs' : 'case.js');
const FRONTS: Record<string, Front> = {
  swc: (c, options) => instrument(c.code, { ...options, filename: filenameOf(c) }).code,
  estree: (c, options) => instrumentEstree({ code: c.code, program: parseJs(c.code, filenameOf(c), c.sourceType), filename: filenameOf(c) }, options).code,
  babel: (c, options) =>
    instrumentWithBabel(c.code, options, { sourceType: c.sourceType, parserOpts: { plugins: ['explicitResourceManagement', 'decoratorAutoAccessors', ['decorators', { version: '2023-11' }]] } }).code,
};

/** Whether a front reads the case: acorn reads no `accessor` fields. */
const reads = (front: string, c: SyntaxCase) => front !== 'estree' || !/\baccessor\b/.test(c.code);

const SETTINGS = [{ threshold: 1 }, { threshold: 1, loops: true }, { threshold: 10 }, { threshold: 10, loops: true }];

/** Node 20 runs neither `using` nor `accessor`: SWC lowers both to ES2022. */
function runnable(c: SyntaxCase, code: string): string {
  if (!c.lower) return code;
  const parser = { syntax: 'ecmascript', explicitResourceManagement: true, decorators: true, autoAccessors: true } as const;
  return transformSync(code, { isModule: c.sourceType === 'module', jsc: { target: 'es2022', parser, transform: { decoratorVersion: '2022-03' } } }).code;
}

/** What a script computed (the JSON of its `result`), or what it threw. */
async function runScript(code: string, globals: object = {}): Promise<string> {
  const context = vm.createContext({ setTimeout, ...globals });
  // Node 20 gives the symbols of `using` to its main realm only.
  vm.runInContext('Symbol.dispose = Symbol("Symbol.dispose"); Symbol.asyncDispose = Symbol("Symbol.asyncDispose");', context);
  try {
    vm.runInContext(code, context, { filename: 'case.js' });
    return JSON.stringify(await context.result);
  } catch (error) {
    return `threw ${error}`;
  }
}

/**
 * Runs ES modules in one child process, in order, each from a data: URL: with `hooked`, the
 * runtime's globals are a stand-in whose counter always runs out (as FakeRuntime's), else absent.
 * Returns what each computed, and how many checks reached the slow path.
 */
function runModules(modules: { code: string; hooked: boolean }[]): { outcome: string; slowPaths: number }[] {
  const driver = `
    const modules = JSON.parse(require('fs').readFileSync(0, 'utf8'));
    (async () => {
      const results = [];
      for (const [i, { code, hooked }] of modules.entries()) {
        for (const name of ['__jsprof', '__jsprof$c', '__jsprof$s', 'result']) delete globalThis[name];
        let slowPaths = 0;
        if (hooked) {
          const c = new Int32Array(${1 + EXIT_SLOTS});
          globalThis.__jsprof = { c, s: new Proxy({}, { deleteProperty() { slowPaths++; c.fill(0); return true; } }) };
        }
        let outcome;
        try {
          // The comment makes each URL new, so that each module runs.
          await import('data:text/javascript;base64,' + Buffer.from(code + '\\n// module ' + i).toString('base64'));
          outcome = JSON.stringify(await globalThis.result);
        } catch (error) {
          outcome = 'threw ' + error;
        }
        results.push({ outcome, slowPaths });
      }
      process.stdout.write(JSON.stringify(results));
    })();`;
  const child = spawnSync(process.execPath, ['-e', driver], { input: JSON.stringify(modules), encoding: 'utf8' });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout);
}

function thrown(run: () => unknown): Error | undefined {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
}

const scripts = SYNTAX_CORPUS.filter((c) => c.sourceType === 'script');
const modules = SYNTAX_CORPUS.filter((c) => c.sourceType === 'module');

describe('the ESTree of the syntax corpus', () => {
  test.each(SYNTAX_CORPUS.filter((c) => !/\baccessor\b/.test(c.code)))('$name: as acorn reads it', (c) => {
    const estree = toEstree(parseSync(c.code, { syntax: 'ecmascript', isModule: c.sourceType === 'module', target: 'esnext', explicitResourceManagement: true } as any), c.code);
    expect(estree).toEqual(acorn.parse(c.code, { ecmaVersion: 'latest', sourceType: c.sourceType, allowHashBang: true }));
  });

  test('accessor fields (acorn reads none) as ESTree’s AccessorProperty', () => {
    const code = 'class A { static accessor #x = 1; accessor [k]; }';
    const body = toEstree(parseSync(code, { syntax: 'ecmascript', autoAccessors: true } as any), code).body[0].body.body;
    expect(body).toMatchObject([
      { type: 'AccessorProperty', start: 10, end: 33, static: true, computed: false, key: { type: 'PrivateIdentifier', name: 'x' }, value: { type: 'Literal', value: 1 } },
      { type: 'AccessorProperty', start: 34, end: 47, static: false, computed: true, key: { type: 'Identifier', name: 'k' }, value: null },
    ]);
  });
});

describe.each(Object.keys(FRONTS))('the syntax corpus through %s', (front) => {
  const through = FRONTS[front];
  describe.each(SETTINGS)('with %o', (options) => {
    test.each(scripts.filter((c) => reads(front, c)))('$name', async (c) => {
      const expected = await runScript(runnable(c, c.code));
      expect(expected).not.toMatch(/^threw/);
      const out = through(c, options);
      const runtime = new FakeRuntime();
      expect(await runScript(runnable(c, out), { __jsprof: runtime.hook })).toBe(expected);
      if (options.threshold === 1) expect(runtime.calls).toBeGreaterThan(0);
      expect(await runScript(runnable(c, out))).toBe(expected);
    });

    describe('modules', () => {
      const read = modules.filter((c) => reads(front, c));
      let results: ReturnType<typeof runModules>;
      beforeAll(() => {
        const outputs = read.map((c) => through(c, options));
        results = runModules(
          read.flatMap((c, i) => [
            { code: runnable(c, c.code), hooked: false },
            { code: runnable(c, outputs[i]), hooked: true },
            { code: runnable(c, outputs[i]), hooked: false },
          ]),
        );
      });
      test.each(read.map((c, i) => ({ ...c, i })))('$name', ({ i }) => {
        const [original, hooked, bare] = results.slice(3 * i, 3 * i + 3);
        expect(original.outcome).not.toMatch(/^threw/);
        expect(hooked.outcome).toBe(original.outcome);
        if (options.threshold === 1) expect(hooked.slowPaths).toBeGreaterThan(0);
        expect(bare.outcome).toBe(original.outcome);
      });
    });
  });
});

describe('the failures of issue 23', () => {
  test('object spread is converted (it threw reading the span of SWC’s SpreadElement)', async () => {
    const code = 'const b = { x: 1 };\nfunction f(o) { const a = { ...b, ...o }; return a; }\nglobalThis.result = f({ y: 2 });';
    const out = instrument(code, { threshold: 1 });
    const runtime = new FakeRuntime();
    expect(await runScript(out.code, { __jsprof: runtime.hook })).toBe('{"x":1,"y":2}');
    expect(runtime.calls).toBe(2);
  });

  test('`using` and `await using` declarations parse, and their functions get checks', () => {
    const code = 'function f(r) { using a = r; return a; }\nasync function g(r) { await using b = r; for (using c of [r]) ; return b; }';
    const out = instrument(code, { threshold: 1 });
    expect(out.functions.map((f) => `${f.name} ${f.instrumented}`)).toEqual(['f true', 'g true']);
    expect(out.code).toContain('using a = r;');
    expect(out.code).toContain('await using b = r;');
  });

  test.each([
    ['nested ifs', (n: number) => 'function f(a) {\n' + 'if (a) {'.repeat(n) + 'a++;' + '}'.repeat(n) + '\n}'],
    ['nested ifs without braces', (n: number) => 'function f(a) {\n' + 'if (a) '.repeat(n) + 'a++;\n}'],
    ['nested parentheses', (n: number) => 'var x = ' + '('.repeat(n) + '1' + ')'.repeat(n) + ';'],
    ['a chain of conditionals', (n: number) => 'var x = ' + 'a ? b : '.repeat(n) + 'c;'],
  ])('%s nested 30,000 deep: refused at file:line:col, no crash', (_, make) => {
    // SWC crashed the process (SIGSEGV) from 2,800 nested ifs, 5,800 without braces, 2,900 parentheses, 22,700 conditionals.
    const error = thrown(() => instrument(make(30000), { threshold: 1, filename: 'deep.js' }));
    expect(error).toBeInstanceOf(TooDeeplyNestedError);
    expect(error?.message).toMatch(/^deep\.js:\d+:\d+: code nests too deeply here for SWC's parser/);
  });

  test('`let` and a line break before `[` as a loop’s body, a syntax error SWC reads, is refused where loop checks would make it valid (test262)', () => {
    const code = 'for (const x of [1]) let\n[a] = [x];';
    expect(thrown(() => instrument(code, { filename: 'let.js', threshold: 1, loops: true }))?.message).toBe('let.js:1:22: a statement cannot start with `let [`');
    expect(() => new Function(code)).toThrow(SyntaxError);
    // `let` the name, elsewhere, and a declaration over two lines are read as before
    expect(instrument('var let_ = 1; letter[0] = 1; (let[0]) = 2; function f() { let\n[b] = [1]; return b; }', { threshold: 1, filename: 'ok.js' }).code).toContain('let\n[b] = [1]');
  });

  test('8,000 chained awaits, which SWC reads, make a tree too deep to walk: refused, no stack overflow', () => {
    const code = 'async function f(a) {\n  return ' + 'await '.repeat(8000) + 'a;\n}';
    expect(() => instrument(code, { filename: 'deep.js' })).toThrow(TooDeeplyNestedError);
  });

  test('3,000 nested ifs, one a line: refused at the line where the nesting passes the limit', () => {
    const code = 'function f(a) {\n' + 'if (a) {\n'.repeat(3000) + 'a++;' + '}'.repeat(3000) + '\n}';
    const error = thrown(() => instrument(code, { filename: 'deep.js' }));
    expect(error?.message).toMatch(/^deep\.js:\d+:\d+: code nests too deeply/);
    expect(Number(error?.message.split(':')[1])).toBeGreaterThan(500);
    expect(Number(error?.message.split(':')[1])).toBeLessThan(1000);
  });

  test('100 nested ifs are instrumented and run', async () => {
    const code = 'function f(a) {\n' + 'if (a) {'.repeat(100) + 'a++;' + '}'.repeat(100) + '\nreturn a;\n}\nglobalThis.result = f(1);';
    const runtime = new FakeRuntime();
    expect(await runScript(instrument(code, { threshold: 1 }).code, { __jsprof: runtime.hook })).toBe('2');
    expect(runtime.calls).toBe(2);
  });
});
