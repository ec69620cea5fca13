/**
 * Real ES modules in a real Node process: the prelude binds the counter before any check can run,
 * even when a module's function is called through an import cycle before the module's own body ran;
 * and `runtime: 'import'` works with the real `@jsprof/runtime`.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { instrument } from './helpers';

const BODY = 'let s = 0; s += x; s += 1; s += 2; return s;';

// a.mjs imports b.mjs, which calls a's function while a.mjs has not run yet.
const FILES: Record<string, string> = {
  'a.mjs': `import { fromB } from './b.mjs';\nexport function fromA(x) { ${BODY} }\nconsole.log(JSON.stringify([fromA(1), fromB]));\n`,
  'b.mjs': `import { fromA } from './a.mjs';\nexport const fromB = fromA(10);\n`,
};

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-esm-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function runInstrumented(options: object, nodeArgs: string[] = []) {
  for (const [name, code] of Object.entries(FILES)) {
    fs.writeFileSync(path.join(dir, name), instrument(code, { threshold: 1, ...options }, { sourceType: 'module' }).code);
  }
  const child = spawnSync(process.execPath, [...nodeArgs, path.join(dir, 'a.mjs')], { encoding: 'utf8' });
  return { stdout: child.stdout.trim(), stderr: child.stderr, status: child.status };
}

function runOriginal() {
  for (const [name, code] of Object.entries(FILES)) fs.writeFileSync(path.join(dir, name), code);
  return spawnSync(process.execPath, [path.join(dir, 'a.mjs')], { encoding: 'utf8' }).stdout.trim();
}

const runtimeUrl = pathToFileURL(require.resolve('@jsprof/runtime')).href;

test('the original program prints [4,13]', () => {
  expect(runOriginal()).toBe('[4,13]');
});

test('an import cycle calling into a module before its prelude ran, without the runtime', () => {
  expect(runInstrumented({})).toEqual({ stdout: '[4,13]', stderr: '', status: 0 });
});

test('the same with the runtime loaded first (node --import)', () => {
  expect(runInstrumented({}, ['--import', runtimeUrl])).toEqual({ stdout: '[4,13]', stderr: '', status: 0 });
});

test("runtime: 'import' with the real @jsprof/runtime", () => {
  expect(runInstrumented({ runtime: 'import', importSource: runtimeUrl })).toEqual({ stdout: '[4,13]', stderr: '', status: 0 });
});
