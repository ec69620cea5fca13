/**
 * fixtures/apps/webpack-app built by webpack (production, minified, source maps) with
 * JsprofWebpackPlugin, loaded in headless Chromium after the runtime and profiled: the trace's frames
 * lead back through the bundle's source map to the app's own sources and functions.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import type { Browser } from 'playwright-core';
import { JsprofWebpackPlugin } from '../src';
const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');


const APP = path.resolve(__dirname, '../../../fixtures/apps/webpack-app');

function build(): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-webpack-'));
  const script = `require('webpack')(require(${JSON.stringify(path.join(APP, 'webpack.config.js'))})(${JSON.stringify(out)}), (err, stats) => {
    if (err || stats.hasErrors()) { console.error(err || stats.toString('errors-only')); process.exit(1); }
  });`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(run.stderr);
  return out;
}

test('bad options fail when the config loads', () => {
  expect(() => new JsprofWebpackPlugin({ threshold: -1 })).toThrow(/threshold/);
});

test('a webpack build of the example app, profiled in Chromium, leads back to the app\'s sources', async () => {
  const out = build();
  const bundle = fs.readFileSync(path.join(out, 'main.js'), 'utf8');
  expect(bundle).toMatch(/--[\w$]+\[0\]<0&&[\w$]+\(1\)/); // entry checks, renamed by the minifier
  const files: Record<string, string> = {
    '/jsprof.global.js': fs.readFileSync(require.resolve('@jsprof/runtime/global'), 'utf8'),
    '/main.js': bundle,
    '/': '<!doctype html><script src="/jsprof.global.js"></script><script src="/main.js"></script>',
  };
  const server = http.createServer((req, res) => {
    const body = files[req.url!];
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': req.url === '/' ? 'text/html' : 'text/javascript' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    const trace: any = await page.evaluate(`(async () => {
      const p = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
      run(400);
      return p.stop();
    })()`);
    const map = new TraceMap(JSON.parse(fs.readFileSync(path.join(out, 'main.js.map'), 'utf8')));
    const original = new Set<string>();
    for (const frame of trace.frames) {
      if (frame.resourceId === undefined || trace.resources[frame.resourceId] !== `${origin}/main.js`) continue;
      const pos = originalPositionFor(map, { line: frame.line, column: frame.column - 1 });
      if (pos.source) original.add(`${path.basename(pos.source)}:${pos.line}`);
    }
    // V8's enclosing position of each sampled function: the line of its definition in the app's own files
    expect([...original]).toEqual(expect.arrayContaining(['primes.js:2', 'render.js:2', 'index.js:5']));
    expect(trace.samples.filter((s: any) => s.stackId !== undefined).length).toBeGreaterThan(20);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(out, { recursive: true, force: true });
  }
}, 120_000);
