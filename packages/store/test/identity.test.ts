/** A function keeps its id across releases: other URLs, other lines, minified names. */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { SourceMaps } from '@jsprof/trace-tools';
import { functionId } from '../src/hash';
import { Identities, stableScriptUrl } from '../src/identity';
import { ingestFiles, reingest } from '../src/ingest';
import { checkMapsUrl } from '../src/fetched-maps';
import { topFunctions } from '../src/queries';
import { documentOfRaw, rawTraceOf, traceRows } from '../src/rows';
import { DuckDBStore } from '../src/duckdb/store';
import { ClickHouseStore } from '../src/clickhouse/store';
import { chdbExecutor } from '../src/clickhouse/executor';
import { removeTempDirs, tempDir } from './helpers';
import { RELEASES, build, traceOf } from './releases';

afterAll(removeTempDirs);

const root = tempDir('identity');
const builds = path.join(root, 'builds');

const traces = Object.entries(RELEASES).map(([release, source]) => ({ release, built: build(builds, release, source) }));
const files = traces.map(({ release, built }) => {
  const file = path.join(root, `${release}.json`);
  fs.writeFileSync(file, JSON.stringify({ meta: { release, page: '/' }, trace: traceOf(built) }));
  return file;
});

test('the releases really differ: other URLs, other lines', () => {
  const [a, b] = traces.map((t) => t.built);
  expect(a.url).not.toBe(b.url);
  expect(a.render).not.toEqual(b.render);
});

test("code no map covers, in a script whose name has the build's content hash, is one function in every release", () => {
  const traceIn = (url: string) => ({ resources: [url], frames: [{ name: '', resourceId: 0, line: 1, column: 1 }], stacks: [{ frameId: 0 }], samples: [{ timestamp: 0, stackId: 0 }] });
  const identities = new Identities();
  const [a, b] = ['http://site/assets/index-DouNa2mD.js', 'http://site/assets/index-Bx7kaqPZ.js?v=2'].map((url) => identities.identify(traceIn(url), null).frameFunctions[0]);
  expect(a).toEqual(b);
  expect(a.file).toBe('http://site/assets/index-[hash].js');
  expect(stableScriptUrl('http://site/main.3b2f9c1d8e4f.js')).toBe('http://site/main.[hash].js');
  // not hashes: a release in the name, words
  for (const url of ['http://site/app-2026.11.1.js', 'http://site/vendor-charts.js', 'http://site/page-Settings.js', 'http://site/lib.min.js']) expect(stableScriptUrl(url)).toBe(url);
});

test('the same function from two releases is one row after ingest', async () => {
  const store = await DuckDBStore.open(':memory:');
  const summary = await ingestFiles(store, files, { releaseMaps: builds });
  expect(summary).toMatchObject({ ingested: 2, frames: 4, mapped: 4, releasesWithoutMaps: [] });
  const top = await topFunctions(store, { groupBy: 'release' });
  expect(top.all.functions).toEqual([
    { functionId: functionId('src/app.js', 'paint'), name: 'paint', file: 'src/app.js', selfMs: 100, totalMs: 100, self: 100 / 140, total: 100 / 140, traces: 2 },
    { functionId: functionId('src/app.js', 'render'), name: 'render', file: 'src/app.js', selfMs: 40, totalMs: 140, self: 40 / 140, total: 1, traces: 2 },
  ]);
  for (const group of top.groups) expect(group.functions.map((f) => f.functionId)).toEqual(top.all.functions.map((f) => f.functionId));
  await store.close();
});

test('without source maps the releases stay apart (their URLs differ)', async () => {
  const store = await DuckDBStore.open(':memory:');
  await ingestFiles(store, files);
  expect((await topFunctions(store)).all.functions.length).toBe(4);
  await store.close();
});

test('a trace ingested again with source maps is skipped, and a new trace of its release is still named', async () => {
  const store = await DuckDBStore.open(':memory:');
  await ingestFiles(store, [files[0]]);
  const { built } = traces[0];
  const later = path.join(root, 'later.json');
  fs.writeFileSync(later, JSON.stringify({ meta: { release: traces[0].release, page: '/' }, trace: { ...traceOf(built), samples: [{ timestamp: 0, stackId: 1 }] } }));
  // One trace a batch: the stored trace's batch is written (as nothing) before the new one's.
  const summary = await ingestFiles(store, [files[0], later], { releaseMaps: builds, batchSize: 1 });
  expect(summary).toMatchObject({ ingested: 1, duplicates: 1 });
  const top = await topFunctions(store, { filter: { release: traces[0].release } });
  expect(top.all.functions.filter((f) => f.file === 'src/app.js').map((f) => [f.name, f.selfMs, f.traces])).toEqual([['paint', 10, 1], ['render', 0, 1]]);
  await store.close();
});

test('the raw rows kept give the same rows when a trace is ingested again', () => {
  const trace = traceOf(traces[1].built);
  const dir = path.join(builds, '2026.11.2');
  const maps = { maps: new SourceMaps(dir), dir };
  const document = { meta: { release: '2026.11.2' }, receivedAt: '2026-11-20T10:00:00Z', trace };
  const first = traceRows(document, new Identities().identify(trace, maps));
  const again = documentOfRaw(JSON.parse(first.raw.raw));
  expect(rawTraceOf(again)).toEqual(JSON.parse(first.raw.raw));
  const second = traceRows(again, new Identities().identify(again.trace, maps));
  expect(second).toEqual(first);
});

test('traces ingested before their source maps are mapped when ingested again from the raw rows (DuckDB to ClickHouse)', async () => {
  const before = await DuckDBStore.open(':memory:');
  await ingestFiles(before, files);
  const after = await ClickHouseStore.open(chdbExecutor(path.join(root, 'clickhouse')));
  const summary = await reingest(before, after, { releaseMaps: builds }, 1);
  expect(summary).toMatchObject({ ingested: 2, mapped: 4 });
  const top = await topFunctions(after);
  expect(top.all.functions.map((f) => [f.name, f.file, f.selfMs, f.totalMs, f.traces])).toEqual([
    ['paint', 'src/app.js', 100, 100, 2],
    ['render', 'src/app.js', 40, 140, 2],
  ]);
  expect(top.all.busyMs).toBe((await topFunctions(before)).all.busyMs);
  await before.close();
  await after.close();
});

describe('source maps fetched from a configured place (mapsUrl)', () => {
  // An artifact server: each release's built files and maps under /maps/<release>/, by the script URL's path.
  const requests: string[] = [];
  let server: http.Server;
  let origin = '';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push(req.url!);
      const found = /^\/maps\/([^/]+)\/\1\/(app-\1\.js\.map)$/.exec(decodeURIComponent(req.url!));
      if (req.url === '/maps/broken/x') return void res.writeHead(500).end();
      if (!found || !fs.existsSync(path.join(builds, found[1], 'dist', found[2]))) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(fs.readFileSync(path.join(builds, found[1], 'dist', found[2])));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('gives the same functions as the maps uploaded per release, fetching each map once', async () => {
    const [uploaded, fetched] = [await DuckDBStore.open(':memory:'), await DuckDBStore.open(':memory:')];
    await ingestFiles(uploaded, files, { releaseMaps: builds });
    requests.length = 0;
    const summary = await ingestFiles(fetched, [...files, ...files], { mapsUrl: `${origin}/maps/{release}/{path}.map` });
    expect(summary).toMatchObject({ ingested: 2, duplicates: 2, frames: 8, mapped: 8, mapsFetched: 2, mapFetchFailures: 0, releasesWithoutMaps: [] });
    expect(requests.sort()).toEqual(traces.map(({ release }) => `/maps/${release}/${release}/app-${release}.js.map`).sort());
    expect(await topFunctions(fetched, { groupBy: 'release' })).toEqual(await topFunctions(uploaded, { groupBy: 'release' }));
    await Promise.all([uploaded.close(), fetched.close()]);
  });

  test('a release with no maps there keeps its URLs and is named; a failing server is counted, not fatal', async () => {
    const store = await DuckDBStore.open(':memory:');
    const summary = await ingestFiles(store, files, { mapsUrl: `${origin}/nothing/{release}/{path}.map` });
    expect(summary).toMatchObject({ ingested: 2, mapped: 0, mapsFetched: 0, mapFetchFailures: 0, releasesWithoutMaps: Object.keys(RELEASES) });
    const unreachable = await ingestFiles(await DuckDBStore.open(':memory:'), files, { mapsUrl: 'http://127.0.0.1:1/{release}/{path}.map' });
    expect(unreachable).toMatchObject({ ingested: 2, mapped: 0, mapFetchFailures: 2 });
    expect(unreachable.mapFetchErrors[0]).toMatch(/^http:\/\/127\.0\.0\.1:1\/2026\.11\.\d\/2026\.11\.\d\/app-2026\.11\.\d\.js\.map: /);
    await store.close();
  });

  test("a trace's release and script path cannot reach outside the template's place", async () => {
    const file = path.join(root, 'escape.json');
    const trace = traceOf(traces[0].built);
    fs.writeFileSync(file, JSON.stringify({ meta: { release: '../../etc' }, trace: { ...trace, resources: ['https://cdn.shop.example/app.js'] } }));
    // A URL parser resolves '..' in a script's URL itself ('/a/%2e%2e/secret.js' is '/secret.js'); an encoded slash stays in its segment.
    const other = path.join(root, 'escape-path.json');
    fs.writeFileSync(other, JSON.stringify({ meta: { release: '2026.11.1' }, trace: { ...trace, resources: ['https://cdn.shop.example/a/%2e%2e/%2e%2e/secret.js?x=/../..', 'https://cdn.shop.example/b/..%2F..%2Fkey.js'] } }));
    // A release that is a dot segment would be resolved by the URL itself; a malformed escape cannot be decoded.
    const dots = path.join(root, 'escape-dots.json');
    fs.writeFileSync(dots, JSON.stringify({ meta: { release: '..' }, trace: { ...trace, resources: ['https://cdn.shop.example/static/app.js'] } }));
    const malformed = path.join(root, 'escape-malformed.json');
    fs.writeFileSync(malformed, JSON.stringify({ meta: { release: '2026.11.1' }, trace: { ...trace, resources: ['https://cdn.shop.example/%zz/app.js'] } }));
    requests.length = 0;
    const summary = await ingestFiles(await DuckDBStore.open(':memory:'), [file, other, dots, malformed], { mapsUrl: `${origin}/maps/{release}/{path}.map` });
    expect(summary).toMatchObject({ ingested: 4, rejected: 0 });
    // The release is one encoded segment; a path segment that decodes to one with a slash is not looked up.
    expect(requests).toEqual(['/maps/..%2F..%2Fetc/app.js.map', '/maps/2026.11.1/secret.js.map']);
  });

  test('a template without {release} or {path}, or not http(s), is refused', () => {
    for (const template of ['https://maps.internal/{path}.map', 'https://maps.internal/{release}/app.map', 'file:///maps/{release}/{path}.map', 'maps/{release}/{path}']) {
      expect(() => checkMapsUrl(template)).toThrow(template);
    }
  });
});
