'use strict';
/**
 * `jsprof ingest` and `jsprof query` at field scale: a million traces (by default) into DuckDB and
 * into ClickHouse in-process (chdb). Reports traces/s ingested and peak memory (a fresh `jsprof
 * ingest` process, start-up included), disk per million traces, and each query's time (in this
 * process through @jsprof/store, median of 3 after a warm-up), and checks the answers: every trace
 * ingested, and a slowdown planted in one release the top row of `diff`.
 *
 * The traces are made from real ones (bench/field-traces.js): seeds recorded with `jsprof run` from
 * the demo, two fixture programs and the three bench programs; a site of 40 pages, each running one
 * seed's code from its own part of the seed; 30 releases rolled out over 30 days, served from the
 * same URLs (so functions keep their ids without source maps: symbolication is not measured); four
 * browsers; page loads of 2–10 s at 10 ms with idle stretches, a tenth thinned to every other sample
 * as sendTrace does; `{receivedAt, meta, trace}` as traceReceiver stores them, gzipped (a million
 * plain files, 25 GB, do not fit this machine's page cache, and reading them from its disk, about
 * 30 MB/s of small files, would be what is measured), a directory per day. Generated once into the
 * corpus directory (by two workers) and reused while its parameters are the same.
 *
 *   node bench/store.js [--traces N] [--engines duckdb,chdb] [--corpus DIR] [--keep]
 *
 * Results go to bench/out/store.json.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { Worker, isMainThread, workerData } = require('node:worker_threads');
const { ROOT, JSPROF, fieldSamples, hotFunction, random, recordSeeds, siteResources, stackOfFunction, traceOf } = require('./field-traces');

const OUT = path.join(__dirname, 'out');
const MB = 1024 * 1024;
const SEED_PROGRAMS = ['fixtures/demo/index.mjs', 'fixtures/programs/caller-work.js', 'fixtures/programs/phases.js', 'bench/programs/acorn-parse.js', 'bench/programs/markdown-render.mjs', 'bench/programs/yaml-roundtrip.js'];
const DAYS = 30;
const RELEASES = Array.from({ length: 30 }, (_, i) => `2026.10.${i + 1}`);
const PAGES = Array.from({ length: 40 }, (_, i) => (i === 0 ? '/' : `/${['search', 'product', 'category', 'account', 'cart', 'help', 'blog', 'orders'][i % 8]}${i >= 8 ? `/${Math.floor(i / 8)}/:id` : ''}`));
const BROWSERS = [['chrome', 0.6], ['safari', 0.2], ['firefox', 0.1], ['edge', 0.1]];
/** The release that got slower, and how much more of its page loads' samples the slow function takes. */
const SLOW_RELEASE = RELEASES[20];
const SLOWDOWN = 0.05;
const GENERATOR_VERSION = 3;

const log = (msg) => process.stderr.write(`${msg}\n`);

function option(name, fallback) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : fallback;
}

function pick(rand, weighted) {
  let r = rand();
  for (const [value, weight] of weighted) if ((r -= weight) < 0) return value;
  return weighted[weighted.length - 1][0];
}

/** Trace `n` of the field: its day, page, browser and release, and its samples from its page's seed. */
function fieldDocument(seeds, slow, n) {
  const rand = random(1_000_003 * GENERATOR_VERSION + n);
  const day = Math.floor(rand() * DAYS);
  // Releases roll out a day at a time; a fifth of the page loads still run the one before.
  const release = RELEASES[Math.max(0, Math.min(RELEASES.length - 1, day - (rand() < 0.2 ? 1 : 0)))];
  const pageIndex = Math.floor(rand() * PAGES.length);
  const seedIndex = pageIndex % seeds.length;
  const seed = seeds[seedIndex];
  let samples = fieldSamples(seed, rand, { count: 200 + Math.floor(rand() * 800), start: ((pageIndex / seeds.length) % 4) / 4, spread: 0.25, busy: [10, 150], idle: 60 });
  if (release === SLOW_RELEASE && seedIndex === 0) {
    const extra = Math.round(samples.length * SLOWDOWN);
    for (let i = 0; i < extra; i++) samples.push({ timestamp: samples[samples.length - 1].timestamp + 10, stackId: slow.stackId });
  }
  if (rand() < 0.1) samples = samples.filter((_, i) => i % 2 === 0);
  const trace = traceOf(seed, siteResources(seed, null), samples);
  const meta = { release, page: PAGES[pageIndex], browser: pick(rand, BROWSERS), rate: 0.01 };
  const receivedAt = new Date(Date.UTC(2026, 9, 1) + day * 86_400_000 + Math.floor(rand() * 86_400_000)).toISOString();
  return { day, document: { receivedAt, meta, trace } };
}

/** Writes traces `from` to `to` of the corpus (in a worker). */
function writeTraces({ dir, seedFiles, from, to }) {
  const seeds = seedFiles.map((file) => JSON.parse(fs.readFileSync(file, 'utf8')));
  const slow = slowFunction(seeds[0]);
  let bytes = 0;
  for (let n = from; n < to; n++) {
    const { day, document } = fieldDocument(seeds, slow, n);
    const data = zlib.gzipSync(JSON.stringify(document));
    fs.writeFileSync(path.join(dir, `day-${String(day + 1).padStart(2, '0')}`, `${String(n).padStart(7, '0')}.json.gz`), data);
    bytes += data.length;
  }
  return bytes;
}

function slowFunction(seed) {
  const name = hotFunction(seed);
  return { name, stackId: stackOfFunction(seed, name) };
}

/** The corpus of `traces` field traces in `dir`, generated unless already there with these parameters. */
async function corpus(dir, traces) {
  const stampFile = path.join(dir, 'corpus.json');
  const stamp = { version: GENERATOR_VERSION, traces, seeds: SEED_PROGRAMS };
  const existing = fs.existsSync(stampFile) ? JSON.parse(fs.readFileSync(stampFile, 'utf8')) : null;
  if (existing && JSON.stringify(existing.stamp) === JSON.stringify(stamp)) {
    log(`reusing the ${traces} traces in ${dir}`);
    return existing;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const tracesDir = path.join(dir, 'traces');
  for (let day = 1; day <= DAYS; day++) fs.mkdirSync(path.join(tracesDir, `day-${String(day).padStart(2, '0')}`), { recursive: true });
  log('recording seed traces with jsprof run');
  const seedFiles = recordSeeds(dir, SEED_PROGRAMS.map((file) => path.join(ROOT, file)), log).map((_, i) => path.join(dir, `seed-${i}.json`));
  const slow = slowFunction(JSON.parse(fs.readFileSync(seedFiles[0], 'utf8')));
  log(`generating ${traces} traces in ${tracesDir}`);
  const started = performance.now();
  const workers = Math.max(1, Math.min(os.availableParallelism(), 4));
  const chunk = Math.ceil(traces / workers);
  const parts = await Promise.all(
    Array.from({ length: workers }, (_, i) =>
      new Promise((resolve, reject) => {
        const worker = new Worker(__filename, { workerData: { generate: true, dir: tracesDir, seedFiles, from: i * chunk, to: Math.min(traces, (i + 1) * chunk) } });
        worker.once('message', resolve);
        worker.once('error', reject);
      }),
    ),
  );
  const result = { stamp, bytes: parts.reduce((a, b) => a + b, 0), slowFunction: slow.name, generateSeconds: (performance.now() - started) / 1000 };
  fs.writeFileSync(stampFile, JSON.stringify(result));
  log(`generated in ${result.generateSeconds.toFixed(0)} s`);
  return result;
}

function diskBytes(target) {
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.size;
  return fs.readdirSync(target).reduce((sum, name) => sum + diskBytes(path.join(target, name)), 0);
}

function ingest(traces, store, rssFile) {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['--require', __filename, JSPROF, 'ingest', traces, '--store', store, '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, JSPROF_BENCH_RSS: rssFile },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) throw new Error(`jsprof ingest failed (${run.signal ?? run.status})`);
  return { seconds, summary: JSON.parse(run.stdout), maxRssMb: Number(fs.readFileSync(rssFile, 'utf8')) / 1024 };
}

async function timed(work) {
  let result = await work();
  const times = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    result = await work();
    times.push(performance.now() - started);
  }
  return { ms: times.sort((a, b) => a - b)[1], result };
}

async function queries(target, slowName) {
  const { openStore, topFunctions, flameGraph, diffFunctions } = require(path.join(ROOT, 'packages/store'));
  const store = await openStore(target, { create: false });
  const before = RELEASES[RELEASES.indexOf(SLOW_RELEASE) - 1];
  try {
    const runs = {
      'top': await timed(() => topFunctions(store, { limit: 20 })),
      'top --group-by page': await timed(() => topFunctions(store, { groupBy: 'page', limit: 20 })),
      'top --release R --group-by browser': await timed(() => topFunctions(store, { filter: { release: SLOW_RELEASE }, groupBy: 'browser', limit: 20 })),
      'top --page P --from D --to D+6': await timed(() => topFunctions(store, { filter: { page: '/', from: '2026-10-10', to: '2026-10-16' }, limit: 20 })),
      'flame --release R': await timed(() => flameGraph(store, { release: SLOW_RELEASE })),
      'diff R-1 R': await timed(() => diffFunctions(store, { release: before }, { release: SLOW_RELEASE }, 20)),
    };
    const top = runs['diff R-1 R'].result.functions[0];
    if (top?.name !== slowName) throw new Error(`diff's top row is ${top?.name}, not the slowed ${slowName}`);
    return Object.fromEntries(Object.entries(runs).map(([name, run]) => [name, run.ms]));
  } finally {
    await store.close();
  }
}

async function main() {
  const traces = Number(option('--traces', 1_000_000));
  const engines = option('--engines', 'duckdb,chdb').split(',');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-store-bench-'));
  const corpusDir = path.resolve(option('--corpus', path.join(os.tmpdir(), `jsprof-store-corpus-${traces}`)));
  try {
    const generated = await corpus(corpusDir, traces);
    const tracesDir = path.join(corpusDir, 'traces');
    const targets = {
      duckdb: { name: 'DuckDB', target: path.join(work, 'traces.duckdb'), disk: path.join(work, 'traces.duckdb') },
      chdb: { name: 'ClickHouse (chdb)', target: `chdb:${path.join(work, 'clickhouse')}`, disk: path.join(work, 'clickhouse') },
    };
    const runs = [];
    for (const key of engines) {
      const engine = targets[key];
      if (!engine) throw new Error(`unknown engine ${key} (duckdb, chdb)`);
      log(`ingesting into ${engine.name}`);
      const { seconds, summary, maxRssMb } = ingest(tracesDir, engine.target, path.join(work, 'rss'));
      if (summary.ingested !== traces) throw new Error(`${engine.name}: ${summary.ingested} of ${traces} traces ingested`);
      log(`querying ${engine.name}`);
      const queriesMs = await queries(engine.target, generated.slowFunction);
      runs.push({ engine: engine.name, seconds, tracesPerSecond: traces / seconds, maxRssMb, diskMb: diskBytes(engine.disk) / MB, queriesMs });
    }
    const cpu = os.cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
    const names = Object.keys(runs[0].queriesMs);
    const perMillion = 1e6 / traces;
    const rows = [['engine', 'ingest s', 'traces/s', 'peak RSS MB', 'disk MB / 1M traces', ...names.map((n) => `${n} ms`)]];
    for (const r of runs) rows.push([r.engine, r.seconds.toFixed(0), r.tracesPerSecond.toFixed(0), r.maxRssMb.toFixed(0), (r.diskMb * perMillion).toFixed(0), ...names.map((n) => r.queriesMs[n].toFixed(0))]);
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    const text = [
      `jsprof store bench — ${cpu}, ${os.cpus().length} cores, node ${process.version}`,
      `${traces.toLocaleString('en-US')} field traces made from real ones (${(generated.bytes / MB).toFixed(0)} MB gzipped): ${PAGES.length} pages, ${RELEASES.length} releases over ${DAYS} days, ${BROWSERS.length} browsers; ` +
        'ingest: one `jsprof ingest --json` process (start-up included); queries: median of 3 after a warm-up',
      '',
      ...rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')),
    ].join('\n');
    process.stdout.write(`${text}\n`);
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, 'store.json'), JSON.stringify({ cpu, cores: os.cpus().length, node: process.version, traces, bytes: generated.bytes, runs, table: text }, null, 2));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    if (!process.argv.includes('--keep') && !process.argv.includes('--corpus')) fs.rmSync(corpusDir, { recursive: true, force: true });
  }
}

if (!isMainThread && workerData?.generate) {
  require('node:worker_threads').parentPort.postMessage(writeTraces(workerData));
} else if (require.main === module) {
  main().catch((error) => {
    log(error.stack);
    process.exit(1);
  });
} else if (isMainThread && process.env.JSPROF_BENCH_RSS) {
  // Preloaded into the child: report its peak resident set size (kB) when it exits.
  const rssFile = process.env.JSPROF_BENCH_RSS;
  process.on('exit', () => fs.writeFileSync(rssFile, String(process.resourceUsage().maxRSS)));
}
