/** `jsprof ingest` and `jsprof query top|flame|diff`, run as a user runs them, on DuckDB and on ClickHouse in-process (chdb). */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { writeFieldTraces } from '../../store/test/field-traces';
import { RELEASES, build, traceOf } from '../../store/test/releases';
import { chdbExecutor } from '../../store/src/clickhouse/executor';
import { BIN, jsprof, tempDir } from './helpers';

const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');

const dir = tempDir('jsprof-store-commands-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const [A, B] = ['2026.11.1', '2026.11.2'];
const traces = path.join(dir, 'traces');
writeFieldTraces(traces, { releases: [A, B], traces: 400, stableUrls: true, seed: 7, slowdown: { release: B, functionName: 'slowFilter', samples: 15 } });
fs.writeFileSync(path.join(traces, 'broken.json'), '{"meta": {}, "trace": {"resources": [');

const json = (args: string[]) => {
  const run = jsprof(args);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout);
};

describe.each([
  ['DuckDB', path.join(dir, 'traces.duckdb')],
  ['ClickHouse (chdb)', `chdb:${path.join(dir, 'clickhouse')}`],
])('%s', (_name, store) => {
  test('ingest loads every valid trace, names the broken one, exits 1; a second run skips them all', () => {
    const run = jsprof(['ingest', traces, '--store', store]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/broken\.json: is not JSON/);
    expect(run.stdout).toMatch(/^Ingested 400 traces into .* traces\/s\.\n1 file was rejected\.\n$/);
    const again = JSON.parse(jsprof(['ingest', traces, '--store', store, '--json']).stdout);
    expect(again).toMatchObject({ files: 401, ingested: 0, duplicates: 400, rejected: 1 });
    const one = jsprof(['ingest', path.join(traces, fs.readdirSync(traces)[0]), '--store', store]);
    expect(one.stdout).toMatch(/\n1 was already stored and was skipped\.\n$/);
  });

  test("query top gives jsprof aggregate's numbers", () => {
    const top = json(['query', 'top', '--store', store, '--group-by', 'release', '--top', '1000', '--json']);
    const aggregate = JSON.parse(jsprof(['aggregate', traces, '--group-by', 'release', '--json']).stdout);
    expect(top.all.busyMs).toBe(aggregate.all.busyMs);
    // aggregate tells functions apart by line, the store does not: where releases mix (all traces, bare
    // traces in "(none)") the store has one row where aggregate has one per release. Within a release they agree.
    for (const group of aggregate.groups.filter((g: any) => g.name !== '(none)')) {
      const stored = top.groups.find((g: any) => g.name === group.name);
      expect(stored.traces).toBe(group.traces);
      // Ties (functions with no self time) may come in another order.
      const rows = (functions: any[]) => functions.map((f) => [f.name, f.selfMs, f.totalMs, f.traces]).sort();
      expect(rows(stored.functions)).toEqual(rows(group.functions));
    }
  });

  test('query diff puts the planted slowdown first, changed beyond the noise', () => {
    const diff = json(['query', 'diff', A, B, '--store', store, '--json']);
    expect(diff.functions[0]).toMatchObject({ name: 'slowFilter', selfChanged: true });
    expect(diff.functions[0].selfMsDelta).toBeGreaterThan(120);
    const text = jsprof(['query', 'diff', A, B, '--store', store, '--top', '3']).stdout;
    expect(text.split('\n')[4]).toMatch(/^\s*\d+\s+\d+\s+\+\d+\s+±\d+ .* changed\s+slowFilter\s+https:\/\/shop\.example\/static\/app\.js$/);
  });

  test('query diff with a release the store has no traces of says so, exit 1, rather than showing every function gone', () => {
    const run = jsprof(['query', 'diff', A, '2026.11.9', '--store', store]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('jsprof: no traces of release 2026.11.9 in the store\n');
  });

  test('query flame prints folded stacks, and writes an HTML flame graph', () => {
    const folded = jsprof(['query', 'flame', '--store', store, '--release', B]).stdout;
    expect(folded).toMatch(/^main;route;render;slowFilter \d+$/m);
    const html = path.join(dir, `${path.basename(store)}.html`);
    const run = jsprof(['query', 'flame', '--store', store, '--html', html]);
    expect(run.status).toBe(0);
    expect(fs.readFileSync(html, 'utf8')).toContain('slowFilter');
  });
});

test('query diff --html: the function table, and the flame graph red where B got slower (Chromium)', async () => {
  const store = path.join(dir, 'traces.duckdb');
  const html = path.join(dir, 'diff.html');
  const run = jsprof(['query', 'diff', A, B, '--store', store, '--html', html]);
  expect(run.status).toBe(0);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(pathToFileURL(html).href);
    expect(await page.textContent('#summary')).toMatch(new RegExp(`^Busy time per trace: A \\(${A.replace(/\./g, '\\.')}\\) \\d+ ms, B \\(${B.replace(/\./g, '\\.')}\\) \\d+ ms \\(\\+\\d+ ms\\)\\.`));
    const rows = await page.$$eval('#compare tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td, th')].map((c) => c.textContent)));
    expect(rows[0]).toEqual([`A (${A}) ms`, `B (${B}) ms`, 'change', 'noise', '', 'function', 'file']);
    expect(rows[1]).toEqual([expect.any(String), expect.any(String), expect.stringMatching(/^\+\d+ ms$/), expect.stringMatching(/^±/), 'changed', 'slowFilter', 'https://shop.example/static/app.js']);
    const fill = (name: string) => page.$eval(`#flame g.box[aria-label="${name}"] rect`, (r) => r.getAttribute('fill'));
    // slowFilter's self time changed most: the deepest red; a caller with no self time is white, others pale.
    expect(await fill('slowFilter')).toBe('hsl(0, 85%, 50%)');
    expect(await fill('route')).toBe('hsl(0, 85%, 96%)');
    expect(await fill('tokenize')).toMatch(/^hsl\((0|215), 85%, (9\d|8\d)%\)$/);
    await page.hover('#flame g.box[aria-label="slowFilter"]');
    expect(await page.textContent('#tip')).toMatch(new RegExp(`total per trace: A \\(${A.replace(/\./g, '\\.')}\\) [\\d.]+ ms, B \\(${B.replace(/\./g, '\\.')}\\) [\\d.]+ msself per trace \\+\\d+ ms$`));
    expect(problems).toEqual([]);
  } finally {
    await browser.close();
  }
}, 60_000);

test('ingest writes the same store with worker threads as without, and names the broken file either way', () => {
  const stores = [0, 3].map((workers) => {
    const store = path.join(dir, `workers-${workers}.duckdb`);
    const run = jsprof(['ingest', traces, '--store', store, '--workers', String(workers), '--json']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/broken\.json: is not JSON/);
    expect(JSON.parse(run.stdout)).toMatchObject({ files: 401, ingested: 400, rejected: 1 });
    return store;
  });
  const [top0, top3] = stores.map((store) => json(['query', 'top', '--store', store, '--group-by', 'page', '--top', '1000', '--json']));
  expect(top3).toEqual(top0);
  const [flame0, flame3] = stores.map((store) => jsprof(['query', 'flame', '--store', store]).stdout);
  expect(flame3).toBe(flame0);
});

test('ingest -s over several builds whose maps fit a script equally says so, with worker threads or not', () => {
  const root = tempDir();
  const maps = path.join(root, 'maps');
  for (const [build, source] of [['r1', 'src/v1.js'], ['r2', 'src/v2.js']]) {
    fs.mkdirSync(path.join(maps, build, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(maps, build, 'assets/main.js.map'), JSON.stringify({ version: 3, sources: [source], sourcesContent: ['function start() {}\n'], names: [], mappings: 'AAAA' }));
  }
  const input = path.join(root, 'traces');
  fs.mkdirSync(input);
  const trace = { resources: ['https://shop.example/assets/main.js'], frames: [{ name: 'a', resourceId: 0, line: 1, column: 1 }], stacks: [{ frameId: 0 }], samples: [{ timestamp: 0, stackId: 0 }] };
  fs.writeFileSync(path.join(input, 't.json'), JSON.stringify({ meta: { release: '1' }, trace }));
  const [r1, r2] = ['r1', 'r2'].map((build) => path.join(maps, build, 'assets/main.js.map'));
  for (const workers of ['0', '2']) {
    const run = jsprof(['ingest', input, '--store', path.join(root, `w${workers}.duckdb`), '-s', maps, '--workers', workers]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Several different source maps fit https://shop.example/assets/main.js: ${r1}, ${r2}; the first was used`);
  }
});

test('ingest --maps-url fetches each release\'s source maps from an artifact server once, in worker threads or not', async () => {
  const builds = path.join(dir, 'builds');
  // 40 traces of each release: with 32 files to a worker's request, both workers meet both releases.
  const PER_RELEASE = 40;
  const mapped = path.join(dir, 'mapped');
  fs.mkdirSync(mapped);
  for (const [release, source] of Object.entries(RELEASES)) {
    const trace = traceOf(build(builds, release, source));
    for (let i = 0; i < PER_RELEASE; i++) fs.writeFileSync(path.join(mapped, `${release}-${i}.json`), JSON.stringify({ meta: { release, page: `/p${i}` }, trace }));
  }
  // The artifact server: /maps/<release>/<script path>.map
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req.url!);
    const found = /^\/maps\/([^/]+)\/\1\/(app-\1\.js\.map)$/.exec(req.url!);
    if (!found) return void res.writeHead(404).end();
    res.writeHead(200).end(fs.readFileSync(path.join(builds, found[1], 'dist', found[2])));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const template = `http://127.0.0.1:${(server.address() as AddressInfo).port}/maps/{release}/{path}.map`;
    const traces = 2 * PER_RELEASE;
    for (const workers of ['0', '2']) {
      asked.length = 0;
      const store = path.join(dir, `mapped-${workers}.duckdb`);
      // Not spawnSync: this process serves the maps meanwhile.
      const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'ingest', mapped, '--store', store, '--maps-url', template, '--workers', workers, '--json']);
      expect(JSON.parse(stdout)).toMatchObject({ ingested: traces, frames: 2 * traces, mapped: 2 * traces, mapsFetched: 2, mapFetchFailures: 0 });
      // Each map asked for once, whichever thread needed it first.
      expect(asked.sort()).toEqual(Object.keys(RELEASES).map((release) => `/maps/${release}/${release}/app-${release}.js.map`).sort());
      const top = json(['query', 'top', '--store', store, '--json']);
      expect(top.all.functions.map((f: any) => [f.name, f.file, f.traces])).toEqual([['paint', 'src/app.js', traces], ['render', 'src/app.js', traces]]);
    }
  } finally {
    server.close();
  }
});

test('ingest --maps-url without {release} or {path}: bad usage', () => {
  const run = jsprof(['ingest', traces, '--store', path.join(dir, 'x.duckdb'), '--maps-url', 'https://maps.internal/{path}.map']);
  expect(run.status).toBe(2);
  expect(run.stderr).toMatch(/names no \{release\}/);
});

test('schema prints the statements a store is made with; run first, they set how long rows are kept (chdb)', async () => {
  const run = jsprof(['schema', '--raw-days', '90', '--rollup-days', '800']);
  expect(run.status).toBe(0);
  const statements = run.stdout.split(/;\n(?:\n|$)/).filter((s) => s.trim() !== '');
  expect(statements.length).toBeGreaterThan(10);
  const storeDir = path.join(dir, 'kept');
  const made = chdbExecutor(storeDir);
  for (const statement of statements) await made.command(statement);
  await made.close();
  const ingest = jsprof(['ingest', traces, '--store', `chdb:${storeDir}`, '--json']);
  expect(JSON.parse(ingest.stdout)).toMatchObject({ ingested: 400 });
  const opened = chdbExecutor(storeDir);
  const created = async (table: string) => String((await opened.query(`SHOW CREATE TABLE jsprof.${table}`))[0].statement);
  expect(await created('trace_functions')).toMatch(/TTL day \+ toIntervalDay\(90\)/);
  expect(await created('functions_daily')).toMatch(/TTL day \+ toIntervalDay\(800\)/);
  await opened.close();
  const top = json(['query', 'top', '--store', `chdb:${storeDir}`, '--json']);
  expect(top.all.traces).toBe(400);

  const cluster = jsprof(['schema', '--cluster', '{cluster}']);
  expect(cluster.stdout).toMatch(/CREATE TABLE IF NOT EXISTS jsprof\.traces ON CLUSTER '\{cluster\}' AS jsprof\.traces_local\n\s+ENGINE = Distributed\('\{cluster\}', jsprof, traces_local, trace_id\);/);
  expect(jsprof(['schema', '--no-on-cluster']).status).toBe(2);
  expect(jsprof(['schema', '--database', 'a;b']).status).toBe(2);
});

describe('bad usage exits 2, a store that is not there 1', () => {
  test.each([
    [['ingest', traces]],
    [['ingest', traces, '--store', path.join(dir, 'x.duckdb'), '-s', dir, '--release-maps', dir]],
    [['query', 'top', '--store', path.join(dir, 'x.duckdb'), '--group-by', 'os']],
    [['query', 'top', '--store', path.join(dir, 'x.duckdb'), '--from', 'yesterday']],
    [['query', 'diff', A, '--store', path.join(dir, 'x.duckdb')]],
    [['query']],
    [['query', 'tpo', '--store', path.join(dir, 'x.duckdb')]],
    [['schema', '--cluster', "x'y"]],
    [['schema', '--cluster', '']],
  ])('%j', (args) => {
    expect(jsprof(args).status).toBe(2);
  });

  test('a ClickHouse URL answering an HTTP error with no text: the status, on one line', async () => {
    const server = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(404).end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const args of [['query', 'top', '--store', url], ['ingest', traces, '--store', url]]) {
        const run = await promisify(execFile)(process.execPath, [BIN, ...args]).catch((error) => error);
        expect(run.code).toBe(1);
        expect(run.stderr).toBe(`jsprof: ClickHouse ${url}: 404 Not Found (is this a ClickHouse server?)\n`);
      }
    } finally {
      server.close();
    }
  });

  test('ingest and serve check their map directories before they make the store', () => {
    const store = path.join(dir, 'not-made.duckdb');
    const notDir = path.join(traces, 'broken.json');
    for (const [args, message] of [
      [['ingest', traces, '-s', path.join(dir, 'nope')], 'nope: no such directory'],
      [['ingest', traces, '--release-maps', path.join(dir, 'nope')], 'nope: no such directory'],
      [['ingest', traces, '-s', notDir], 'broken.json: not a directory'],
      [['serve', '--port', '0', '-s', path.join(dir, 'nope')], 'nope: no such directory'],
      [['serve', '--port', '0', '--dir', notDir], 'broken.json: not a directory'],
    ] as const) {
      const run = jsprof([...args, '--store', store]);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`^jsprof: [^\n]*${message.replace('.', '\\.')}\n$`));
      expect(fs.existsSync(store)).toBe(false);
    }
  });

  test('a misspelt query name with options says which queries there are, as without options', () => {
    for (const args of [['query', 'tops', '--store', path.join(dir, 'x.duckdb')], ['query', 'tops']]) {
      const run = jsprof(args);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^jsprof: no query "tops"; top, flame or diff\nUsage: jsprof query <top\|flame\|diff> \[options\]\n/);
    }
    expect(fs.existsSync(path.join(dir, 'x.duckdb'))).toBe(false);
    expect(jsprof(['query', 'top', '--store', path.join(dir, 'x.duckdb'), 'extra']).stderr).toMatch(/too many arguments/);
  });

  test('chdb not installed: one line saying what to install', () => {
    // Node resolving chdb as it does where chdb is not installed.
    const hook = path.join(dir, 'without-chdb.js');
    fs.writeFileSync(hook, `const Module = require('node:module'); const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) { return resolve.call(this, request === 'chdb' ? 'chdb-not-installed' : request, ...rest); };`);
    const run = jsprof(['query', 'top', '--store', `chdb:${path.join(dir, 'nowhere')}`], { env: { NODE_OPTIONS: `--require ${hook}` } });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('jsprof: an in-process ClickHouse store needs the package chdb, which is not installed: npm i chdb\n');
  });

  test('a query on a missing DuckDB file', () => {
    const run = jsprof(['query', 'top', '--store', path.join(dir, 'missing.duckdb')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/missing\.duckdb: no such store \(jsprof ingest creates it\)/);
  });
});
