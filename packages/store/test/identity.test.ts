/** A function keeps its id across releases: other URLs, other lines, minified names. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { TraceMap, generatedPositionFor } from '@jridgewell/trace-mapping';
import type { ProfilerTrace } from '@jsprof/runtime';
import { SourceMaps } from '@jsprof/trace-tools';
import { functionId } from '../src/hash';
import { Identities } from '../src/identity';
import { ingestFiles, reingest } from '../src/ingest';
import { topFunctions } from '../src/queries';
import { documentOfRaw, rawTraceOf, traceRows } from '../src/rows';
import { DuckDBStore } from '../src/duckdb/store';
import { ClickHouseStore } from '../src/clickhouse/store';
import { chdbExecutor } from '../src/clickhouse/executor';
import { removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const SOURCE = `export function render(items) {
  let sum = 0;
  for (const item of items) sum += paint(item);
  return sum;
}

function paint(item) {
  let value = item;
  for (let i = 0; i < 10; i++) value = (value * 31) % 97;
  return value;
}

console.log(render([1, 2, 3]));
`;
// Release B adds a function above the others: every line moves.
const RELEASES = { '2026.11.1': SOURCE, '2026.11.2': `function banner() {\n  return 'new';\n}\n\nconsole.log(banner());\n\n${SOURCE}` };

const root = tempDir('identity');
const builds = path.join(root, 'builds');

/** Builds a release minified, as a site would: dist/app-<release>.js and its map, beside src/app.js. */
function build(release: string, source: string) {
  const dir = path.join(builds, release);
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src/app.js'), source);
  const outfile = path.join(dir, 'dist', `app-${release}.js`);
  buildSync({ entryPoints: [path.join(dir, 'src/app.js')], outfile, bundle: true, minify: true, sourcemap: true, format: 'iife', logLevel: 'silent' });
  const map = new TraceMap(fs.readFileSync(`${outfile}.map`, 'utf8'));
  const at = (name: string) => {
    const offset = source.indexOf(`function ${name}(`);
    const line = source.slice(0, offset).split('\n').length;
    const column = offset - source.lastIndexOf('\n', offset - 1) - 1;
    const generated = generatedPositionFor(map, { source: map.sources.find((s) => s!.endsWith('src/app.js'))!, line, column });
    return { line: generated.line!, column: generated.column! + 1 };
  };
  return { url: `https://cdn.shop.example/${release}/app-${release}.js`, render: at('render'), paint: at('paint') };
}

/** A trace of the release: render calling paint, with minified frame names. */
function traceOf(built: ReturnType<typeof build>): ProfilerTrace {
  return {
    resources: [built.url],
    frames: [
      { name: 'r', resourceId: 0, ...built.render },
      { name: 'p', resourceId: 0, ...built.paint },
    ],
    stacks: [{ frameId: 0 }, { parentId: 0, frameId: 1 }],
    samples: [0, 1, 1, 0, 1, 1, 1].map((stackId, i) => ({ timestamp: 10 * i, stackId })),
  };
}

const traces = Object.entries(RELEASES).map(([release, source]) => ({ release, built: build(release, source) }));
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
