/**
 * vite builds with the plugin as built (`@jsprof/bundler-plugin/vite`), with vite 7 and 8: vite is
 * ESM only, so each build runs in a Node process of its own.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TABLE_REGISTRY } from '@jsprof/estree-instrument';

const CHECK = /__jsprof\$c\[/;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-vite-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * Builds `dir` with `vite` (a package name: vite or vite8) and jsprof's plugin, and in `worker.plugins`
 * too where `inWorkerPlugins`; the files it wrote, by path.
 */
function build(vite: string, inWorkerPlugins = false): Record<string, string> {
  const script = `
    const { build } = await import(${JSON.stringify(vite)});
    const { default: jsprof } = await import('@jsprof/bundler-plugin/vite');
    const worker = ${inWorkerPlugins} ? { plugins: () => [jsprof({ threshold: 1 })] } : {};
    await build({ root: process.argv[1], logLevel: 'error', build: { outDir: 'dist', sourcemap: true }, worker, plugins: [jsprof({ threshold: 1 })] });
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, dir], { cwd: __dirname, encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(run.stderr);
  const out = path.join(dir, 'dist');
  return Object.fromEntries(fs.readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) => fs.statSync(path.join(out, f)).isFile()).map((f) => [f, fs.readFileSync(path.join(out, f), 'utf8')]));
}

/** An app whose page starts a worker; the built worker's file name. */
function writeWorkerApp(): void {
  fs.writeFileSync(path.join(dir, 'index.html'), '<script type="module" src="./main.js"></script>\n');
  fs.writeFileSync(path.join(dir, 'main.js'), "new Worker(new URL('./worker.js', import.meta.url)).postMessage(10);\n");
  fs.writeFileSync(path.join(dir, 'worker.js'), 'export function sum(n) {\n  let s = 0;\n  for (let i = 0; i < n; i++) s += i;\n  return s;\n}\nself.onmessage = (e) => postMessage(sum(e.data));\n');
}
const workerOf = (files: Record<string, string>) => Object.keys(files).find((f) => /^assets\/worker-[\w-]+\.js$/.test(f));

test.each(['vite', 'vite8'])("%s: a worker's code, which vite bundles apart, gets checks and its function table", (vite) => {
  writeWorkerApp();
  const files = build(vite);
  const worker = workerOf(files);
  expect(worker).toBeDefined();
  expect(files[worker!]).toMatch(CHECK);
  const table = JSON.parse(files[`${worker}.jsprof.json`]);
  expect(table.functions.map((f: unknown[]) => f[0])).toContain('sum');
  // Without the runtime the worker computes what it did.
  const posted: unknown[] = [];
  const self: any = {};
  new Function('self', 'postMessage', 'importScripts', files[worker!])(self, (m: unknown) => posted.push(m), () => {});
  self.onmessage({ data: 10 });
  expect(posted).toEqual([45]);
});

test.each(['vite', 'vite8'])('%s: a worker whose build lists jsprof in worker.plugins already is instrumented once, its table emitted once', (vite) => {
  writeWorkerApp();
  const files = build(vite, true);
  const worker = workerOf(files)!;
  expect(files[worker]).toMatch(CHECK);
  expect(files[worker].split(TABLE_REGISTRY).length - 1).toBe(1);
  expect(JSON.parse(files[`${worker}.jsprof.json`]).functions.map((f: unknown[]) => f[0])).toContain('sum');
});
