/**
 * What a page that loads the runtime and instrumented code shows besides its profile, in headless
 * Chromium without the document policy (the common page): no console message, no failed request.
 * The example app built by vite and webpack with the bundler plugin (the runtime fetches the tables
 * of their scripts), and by webpack + babel-loader with the Babel plugin (no tables, none asked for),
 * each profiled. `jsprof report` names the app's functions as the sources do where the build has
 * tables (they carry the names from the build's maps), and with `--source-maps` at their places in
 * the sources.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { buildApp, serve } from './app';
const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');

const BUILDS = ['vite', 'webpack', 'webpack-babel'] as const;
const JSPROF = path.resolve(__dirname, '../../cli/bin/jsprof.js');

let root: string;
let browser: Browser;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  root = buildApp(BUILDS);
  ({ server, origin } = await serve(root));
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  fs.rmSync(root, { recursive: true, force: true });
});

describe.each(BUILDS)('the app built by %s', (build) => {
  const seen = { problems: [] as string[], tables: [] as string[] };
  let traceFile: string;

  beforeAll(async () => {
    const page = await browser.newPage();
    page.on('console', (message) => seen.problems.push(`console ${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => seen.problems.push(`uncaught: ${error.message}`));
    page.on('requestfailed', (request) => seen.problems.push(`failed: ${request.url()}`));
    page.on('response', (response) => {
      if (response.status() >= 400) seen.problems.push(`${response.status()}: ${response.url()}`);
      if (response.url().endsWith('.jsprof.json')) seen.tables.push(response.url().slice(origin.length));
    });
    try {
      await page.goto(`${origin}/${build}/`);
      const trace = await page.evaluate(`(async () => {
        for (let i = 0; typeof run !== 'function' && i < 200; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 10000 });
        run(600);
        return profiler.stop();
      })()`);
      traceFile = path.join(root, `${build}.json`);
      fs.writeFileSync(traceFile, JSON.stringify(trace));
    } finally {
      await page.close();
    }
  }, 60_000);

  test('profiled without a console message or a failed request', () => {
    expect(seen.problems).toEqual([]);
  });

  test(build === 'webpack-babel' ? 'no function table is asked for' : 'the function table of its script is fetched', () => {
    if (build === 'webpack-babel') expect(seen.tables).toEqual([]);
    else expect(seen.tables).toEqual([expect.stringMatching(new RegExp(`^/${build}/.*\\.js\\.jsprof\\.json$`))]);
  });

  test(build === 'webpack-babel' ? 'jsprof report alone gives the minified names' : 'jsprof report alone names its functions as the sources do, at line and column in the bundle', () => {
    const report = spawnSync(process.execPath, [JSPROF, 'report', traceFile], { encoding: 'utf8', cwd: root });
    expect(report.status).toBe(0);
    if (build === 'webpack-babel') expect(report.stdout).not.toMatch(/\bcountPrimes\b/);
    else expect(report.stdout).toMatch(/\bcountPrimes +http:\/\/127\.0\.0\.1:\d+\/\S+\.js:1:\d+\n/);
  });

  test('jsprof report --source-maps names its functions at their places in the sources', () => {
    const report = spawnSync(process.execPath, [JSPROF, 'report', traceFile, '--source-maps', path.join(root, build)], { encoding: 'utf8', cwd: root });
    expect(report.stderr).toMatch(/^jsprof: (\d+) of \1 frames mapped to original sources\.\n$/);
    expect(report.status).toBe(0);
    expect(report.stdout).toMatch(/\bcountPrimes\b.*\bsrc\/primes\.js:\d+:\d+/);
    expect(report.stdout).toMatch(/\brun\b.*\bsrc\/index\.js:\d+:\d+/);
  });
});
