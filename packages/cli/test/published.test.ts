/**
 * The packages as a registry user gets them (issue 26): every workspace package packed by `npm pack`,
 * served by a registry of the test's own (every other package redirected to the public registry,
 * which npm's cache mostly answers), installed by name into two fresh projects with the files
 * README's "Use it in your project" gives (read from the README itself), built with vite and with
 * webpack + babel-loader, profiled in Chromium and read with the project's own `jsprof report`; and
 * `jsprof run` from the project. (Verdaccio, the usual local registry, does not install here: it
 * asks for a dist-tag, `node-fetch@cjs`, that this machine's registry lacks.)
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import type { Browser } from 'playwright-core';
import { ROOT, tempDir } from './helpers';
const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');

const APP = path.join(ROOT, 'fixtures/apps/browser-app');
const version = (name: string) => require(path.join(ROOT, 'node_modules', name, 'package.json')).version;

function exec(command: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The files of a packed package (a .tgz: gzip, then tar), by path. */
function filesOf(tgz: Buffer): Map<string, Buffer> {
  const tar = zlib.gunzipSync(tgz);
  const files = new Map<string, Buffer>();
  const field = (at: number, length: number) => tar.subarray(at, at + length).toString('utf8').replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const size = parseInt(field(at + 124, 12).trim() || '0', 8);
    files.set(field(at, 100), tar.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

const manifestOf = (tgz: Buffer) => JSON.parse(filesOf(tgz).get('package/package.json')!.toString('utf8'));

/** A registry serving the packed packages; everything else redirected to the public registry. */
async function registry(packs: string): Promise<{ url: string; server: http.Server }> {
  const packages = new Map<string, { manifest: any; tgz: Buffer; file: string }>();
  for (const file of fs.readdirSync(packs)) {
    const tgz = fs.readFileSync(path.join(packs, file));
    const manifest = manifestOf(tgz);
    packages.set(manifest.name, { manifest, tgz, file });
  }
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url!.split('?')[0]);
    const tarball = [...packages.values()].find((p) => url === `/-/${p.file}`);
    if (tarball) return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball.tgz);
    const found = packages.get(url.slice(1));
    if (!found) return void res.writeHead(302, { location: `https://registry.npmjs.org${req.url}` }).end();
    const { port } = server.address() as AddressInfo;
    const dist = {
      tarball: `http://127.0.0.1:${port}/-/${found.file}`,
      shasum: createHash('sha1').update(found.tgz).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(found.tgz).digest('base64')}`,
    };
    const { version: v } = found.manifest;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: found.manifest.name, 'dist-tags': { latest: v }, versions: { [v]: { ...found.manifest, dist } } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** The README's ```js blocks in "Use it in your project" that start with `// <file name>`: file → text. */
function readmeFiles(): Map<string, string> {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Use it in your project'), readme.indexOf('\n## ', readme.indexOf('## Use it in your project') + 3));
  const files = new Map<string, string>();
  for (const block of section.matchAll(/```js\n\/\/ (\S+)\n([\s\S]*?)```/g)) files.set(block[1], block[2]);
  return files;
}

/** Serves `dir`; the built page profiled in Chromium: the trace of run(400). */
async function profilePage(browser: Browser, dir: string): Promise<unknown> {
  const server = http.createServer((req, res) => {
    const file = path.join(dir, req.url === '/' ? 'index.html' : decodeURIComponent(req.url!.split('?')[0]));
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.endsWith('.html') ? 'text/html' : file.endsWith('.json') ? 'application/json' : 'text/javascript' }).end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const page = await browser.newPage();
  try {
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return await page.evaluate(`(async () => {
      for (let i = 0; typeof run !== 'function' && i < 300; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
      run(400);
      return profiler.stop();
    })()`);
  } finally {
    await page.close();
    server.close();
  }
}

let work: string;
let reg: { url: string; server: http.Server };
let browser: Browser;
const README = readmeFiles();

/** A fresh project with the app's sources, these packages installed by name from the registry. */
async function project(name: string, packages: string[]): Promise<string> {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name, private: true }, null, 2)}\n`);
  fs.cpSync(path.join(APP, 'src'), path.join(dir, 'src'), { recursive: true });
  const install = await exec('npm', ['install', '--save-dev', ...packages, '--registry', reg.url, '--prefer-offline', '--no-audit', '--no-fund'], dir);
  expect(install.stderr).not.toMatch(/ERR!|EBADENGINE/);
  expect(install.code).toBe(0);
  return dir;
}

const RUNTIME = 'node_modules/@jsprof/runtime/dist/browser/jsprof.global.js';

beforeAll(async () => {
  work = tempDir('jsprof-published-');
  fs.mkdirSync(path.join(work, 'packs'));
  const packed = await exec('npm', ['pack', '--workspaces', '--pack-destination', path.join(work, 'packs')], ROOT);
  expect(packed.code).toBe(0);
  reg = await registry(path.join(work, 'packs'));
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  reg?.server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

test('every package is packed with its dist, types and maps that carry their sources, nothing else', () => {
  const names = fs.readdirSync(path.join(work, 'packs')).sort();
  expect(names).toEqual(['babel-plugin', 'bundler-plugin', 'cli', 'estree-instrument', 'policy', 'runtime', 'store', 'swc-plugin', 'trace-tools'].map((n) => `jsprof-${n}-0.1.0.tgz`));
  for (const name of names) {
    const files = filesOf(fs.readFileSync(path.join(work, 'packs', name)));
    const manifest = JSON.parse(files.get('package/package.json')!.toString('utf8'));
    expect(manifest).toMatchObject({ license: 'MIT', engines: { node: '>=20.6' }, files: expect.arrayContaining(['dist']) });
    expect(manifest.exports['.']).toMatchObject({ types: expect.stringMatching(/\.d\.ts$/) });
    expect([...files.keys()].filter((f) => !/^package\/(dist\/|bin\/|package\.json$|README\.md$|LICENSE$)/.test(f))).toEqual([]);
    // The maps point at ../src, which is not shipped: each carries the text of its sources.
    for (const [file, text] of files) {
      if (!file.endsWith('.js.map')) continue;
      const map = JSON.parse(text.toString('utf8'));
      expect({ file, carried: map.sourcesContent?.length }).toEqual({ file, carried: map.sources.length });
    }
  }
});

test('a vite app: installed by name, built with the README\'s vite.config.mjs, profiled in Chromium, read with its own jsprof report', async () => {
  const dir = await project('vite-app', ['@jsprof/bundler-plugin', '@jsprof/cli', '@jsprof/runtime', `vite@${version('vite')}`]);
  fs.writeFileSync(path.join(dir, 'vite.config.mjs'), README.get('vite.config.mjs')!);
  fs.copyFileSync(path.join(APP, 'index.html'), path.join(dir, 'index.html'));
  fs.mkdirSync(path.join(dir, 'public'));
  fs.copyFileSync(path.join(dir, RUNTIME), path.join(dir, 'public/jsprof.global.js'));
  const build = await exec('npx', ['vite', 'build', '--logLevel', 'error'], dir);
  expect(build.code).toBe(0);
  fs.writeFileSync(path.join(dir, 'trace.json'), JSON.stringify(await profilePage(browser, path.join(dir, 'dist'))));
  const report = await exec('npx', ['jsprof', 'report', 'trace.json', '--source-maps', 'dist'], dir);
  expect(report.code).toBe(0);
  expect(report.stdout).toMatch(/\bcountPrimes\b.*\bsrc\/primes\.js:\d+:\d+/);
}, 180_000);

test('a webpack app: installed by name, built with the README\'s babel.config.js and webpack.config.js, profiled in Chromium, read with its own jsprof report', async () => {
  const dir = await project('webpack-app', [
    '@jsprof/babel-plugin',
    '@jsprof/cli',
    '@jsprof/runtime',
    `@babel/core@${version('@babel/core')}`,
    `babel-loader@${version('babel-loader')}`,
    `webpack@${version('webpack')}`,
    'webpack-cli@6.0.1',
  ]);
  for (const file of ['babel.config.js', 'webpack.config.js']) fs.writeFileSync(path.join(dir, file), README.get(file)!);
  const build = await exec('npx', ['webpack'], dir);
  expect(build.code).toBe(0);
  const dist = path.join(dir, 'dist');
  expect(fs.readFileSync(path.join(dist, 'main.js'), 'utf8')).toContain('__jsprof');
  fs.copyFileSync(path.join(dir, RUNTIME), path.join(dist, 'jsprof.global.js'));
  fs.writeFileSync(path.join(dist, 'index.html'), fs.readFileSync(path.join(APP, 'index.html'), 'utf8').replace('<script type="module" src="/src/index.js"></script>', '<script src="/main.js"></script>'));
  fs.writeFileSync(path.join(dir, 'trace.json'), JSON.stringify(await profilePage(browser, dist)));
  const report = await exec('npx', ['jsprof', 'report', 'trace.json', '--source-maps', 'dist'], dir);
  expect(report.code).toBe(0);
  expect(report.stdout).toMatch(/\bcountPrimes\b.*\bsrc\/primes\.js:\d+:\d+/);

  // And the project's jsprof runs a Node program.
  fs.writeFileSync(path.join(dir, 'busy.js'), `function spin(ms) {\n  const end = Date.now() + ms;\n  let n = 0;\n  while (Date.now() < end) n++;\n  return n;\n}\nconsole.log(spin(300) > 0);\n`);
  const run = await exec('npx', ['jsprof', 'run', '--out', 'node-trace.json', 'busy.js'], dir);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('true');
  expect(JSON.parse(fs.readFileSync(path.join(dir, 'node-trace.json'), 'utf8')).frames.map((f: { name: string }) => f.name)).toContain('spin');
}, 180_000);
