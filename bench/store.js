'use strict';
/**
 * `jsprof ingest` and `jsprof query` on generated field traces, into DuckDB and into ClickHouse
 * in-process (chdb): ingest speed and peak memory (a fresh `jsprof ingest` process), disk used, and
 * the time of each query (in this process, through @jsprof/store, median of 3 after a warm-up).
 * The traces are the store tests' (packages/store/test/field-traces.ts): three releases served from
 * their own URLs, pages and browsers in `meta`, a third gzipped. Results go to bench/out/store.json.
 *
 *   node bench/store.js [--traces N] [--keep]
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const JSPROF = path.join(ROOT, 'packages/cli/bin/jsprof.js');
const OUT = path.join(__dirname, 'out');
const RELEASES = ['2026.11.1', '2026.11.2', '2026.11.3'];
const MB = 1024 * 1024;

const argv = process.argv.slice(2);
const TRACES = argv.includes('--traces') ? Number(argv[argv.indexOf('--traces') + 1]) : 10_000;
const KEEP = argv.includes('--keep');
const log = (msg) => process.stderr.write(`${msg}\n`);

/** The store tests' generator, a TypeScript file, compiled here. */
function loadFieldTraces() {
  const ts = require('typescript');
  const file = path.join(ROOT, 'packages/store/test/field-traces.ts');
  const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  mod._compile(outputText, file);
  return mod.exports;
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
    env: { ...process.env, JSPROF_BENCH_RSS: rssFile },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) throw new Error(`jsprof ingest failed (${run.signal ?? run.status}): ${run.stderr}`);
  return { seconds, summary: JSON.parse(run.stdout), maxRssMb: Number(fs.readFileSync(rssFile, 'utf8')) / 1024 };
}

async function timed(work) {
  await work();
  const times = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[1];
}

async function queries(target) {
  const { openStore, topFunctions, flameGraph, diffFunctions } = require(path.join(ROOT, 'packages/store'));
  const store = await openStore(target, { create: false });
  try {
    return {
      'top': await timed(() => topFunctions(store, { limit: 20 })),
      'top --group-by release': await timed(() => topFunctions(store, { groupBy: 'release', limit: 20 })),
      'top --release --group-by page': await timed(() => topFunctions(store, { filter: { release: RELEASES[1] }, groupBy: 'page', limit: 20 })),
      'flame --release': await timed(() => flameGraph(store, { release: RELEASES[1] })),
      'diff': await timed(() => diffFunctions(store, { release: RELEASES[0] }, { release: RELEASES[1] }, 20)),
    };
  } finally {
    await store.close();
  }
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-store-bench-'));
  try {
    const traces = path.join(work, 'traces');
    log(`generating ${TRACES} traces in ${traces}`);
    const files = loadFieldTraces().writeFieldTraces(traces, { releases: RELEASES, traces: TRACES, slowdown: { release: RELEASES[1], functionName: 'slowFilter', samples: 15 } });
    const bytes = files.reduce((sum, file) => sum + fs.statSync(file).size, 0);
    const engines = [
      { name: 'DuckDB', target: path.join(work, 'traces.duckdb'), disk: path.join(work, 'traces.duckdb') },
      { name: 'ClickHouse (chdb)', target: `chdb:${path.join(work, 'clickhouse')}`, disk: path.join(work, 'clickhouse') },
    ];
    const runs = [];
    for (const engine of engines) {
      log(`ingesting into ${engine.name}`);
      const { seconds, summary, maxRssMb } = ingest(traces, engine.target, path.join(work, 'rss'));
      if (summary.ingested !== TRACES) throw new Error(`${engine.name}: ${summary.ingested} of ${TRACES} traces ingested`);
      log(`querying ${engine.name}`);
      runs.push({ engine: engine.name, seconds, tracesPerSecond: TRACES / seconds, maxRssMb, diskMb: diskBytes(engine.disk) / MB, queriesMs: await queries(engine.target) });
    }
    const cpu = os.cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
    const names = Object.keys(runs[0].queriesMs);
    const rows = [['engine', 'ingest s', 'traces/s', 'peak RSS MB', 'disk MB', ...names.map((n) => `${n} ms`)]];
    for (const r of runs) rows.push([r.engine, r.seconds.toFixed(1), r.tracesPerSecond.toFixed(0), r.maxRssMb.toFixed(0), r.diskMb.toFixed(1), ...names.map((n) => r.queriesMs[n].toFixed(0))]);
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    const text = [
      `jsprof store bench — ${cpu}, ${os.cpus().length} cores, node ${process.version}`,
      `${TRACES} generated traces (${(bytes / MB).toFixed(0)} MB, a third gzipped), ${RELEASES.length} releases; ingest: one \`jsprof ingest --json\` process (start-up included); queries: median of 3 after a warm-up`,
      '',
      ...rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')),
    ].join('\n');
    process.stdout.write(`${text}\n`);
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, 'store.json'), JSON.stringify({ cpu, cores: os.cpus().length, node: process.version, traces: TRACES, bytes, runs, table: text }, null, 2));
  } finally {
    if (KEEP) log(`kept in ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error) => {
    log(error.stack);
    process.exit(1);
  });
} else if (process.env.JSPROF_BENCH_RSS) {
  // Preloaded into the child: report its peak resident set size (kB) when it exits.
  const rssFile = process.env.JSPROF_BENCH_RSS;
  process.on('exit', () => fs.writeFileSync(rssFile, String(process.resourceUsage().maxRSS)));
}
