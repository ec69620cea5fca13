'use strict';
/**
 * `jsprof aggregate` on a field's worth of traces: generates 10,000 traces like those sendTrace
 * collects (from real traces of the demo and fixture programs, recorded with `jsprof run`), then
 * runs `jsprof aggregate` on them as a child process and reports its speed and peak memory.
 *
 * The generated traces: 5–30 s at 10 ms, busy stretches cut from the real traces between idle
 * stretches, random start times, resources renamed as a site's URLs per release (so each release's
 * functions are distinct, as in the field), `meta` with a page and a release (some without a page,
 * some bare traces), a tenth thinned to every other sample (as sendTrace does to fit its size limit),
 * stored as traceReceiver stores them or as `{meta, trace}`, a third gzipped, in nested directories,
 * and a few truncated (they must be rejected, the rest merged). A second data set gives every trace
 * its own script URLs, to show memory bounded when the distinct-function cap is reached.
 * Results go to bench/out/aggregate.json.
 *
 *   node bench/aggregate.js [--traces N] [--keep]   (--keep: leave the last data set's traces in the temp directory)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { ROOT, fieldSamples, random, recordSeeds, siteResources, traceOf } = require('./field-traces');
const { jsprofMeasured } = require('./peak-rss');

const OUT = path.join(__dirname, 'out');
const SEED_PROGRAMS = ['fixtures/demo/index.mjs', 'fixtures/programs/caller-work.js', 'fixtures/programs/phases.js'].map((file) => path.join(ROOT, file));
const PAGES = ['/', '/search', '/product', '/cart', '/checkout', '/account'];
const RELEASES = ['2026.11.1', '2026.11.2', '2026.11.3'];
const DAYS = 7;
const BROKEN_EVERY = 1000;
const MB = 1024 * 1024;

const argv = process.argv.slice(2);
const TRACES = argv.includes('--traces') ? Number(argv[argv.indexOf('--traces') + 1]) : 10_000;
const KEEP = argv.includes('--keep');

const log = (msg) => process.stderr.write(`${msg}\n`);

function fieldTrace(seeds, n, rand, queryPerTrace) {
  const release = RELEASES[Math.floor(rand() * RELEASES.length)];
  const pageIndex = Math.floor(rand() * PAGES.length);
  // Pages run different code: most run the demo, some the fixture programs.
  const seed = seeds[Math.max(0, pageIndex - 3)];
  let samples = fieldSamples(seed, rand, { count: Math.round(500 + rand() * 2500) });
  if (rand() < 0.1) samples = samples.filter((_, i) => i % 2 === 0);
  const trace = traceOf(seed, siteResources(seed, release, queryPerTrace ? `?session=${n}` : ''), samples);
  const meta = rand() < 0.05 ? { release } : { page: PAGES[pageIndex], release };
  const form = rand();
  const received = new Date(Date.UTC(2026, 10, 14) + n * 60_000).toISOString();
  if (form < 0.1) return trace;
  if (form < 0.3) return { meta, trace };
  return { receivedAt: received, meta, trace };
}

function generate(dir, seeds, queryPerTrace) {
  const rand = random(42);
  let bytes = 0;
  let broken = 0;
  for (let n = 0; n < TRACES; n++) {
    const day = path.join(dir, `day-${(n % DAYS) + 1}`);
    if (n < DAYS) fs.mkdirSync(day, { recursive: true });
    let data = Buffer.from(JSON.stringify(fieldTrace(seeds, n, rand, queryPerTrace)));
    const gzip = rand() < 1 / 3;
    if (gzip) data = zlib.gzipSync(data);
    if (n % BROKEN_EVERY === BROKEN_EVERY - 1) {
      data = data.subarray(0, data.length >> 1);
      broken++;
    }
    fs.writeFileSync(path.join(day, `${String(n).padStart(6, '0')}.json${gzip ? '.gz' : ''}`), data);
    bytes += data.length;
    if ((n + 1) % 1000 === 0) log(`  generated ${n + 1}/${TRACES}`);
  }
  return { bytes, broken };
}

/** Runs `jsprof aggregate` in a fresh process, with its time and peak RSS. */
function aggregate(dir, args) {
  const { run, seconds, maxRssMb } = jsprofMeasured(['aggregate', dir, '--json', ...args], { maxBuffer: 512 * MB });
  if (run.status === null || !run.stdout) throw new Error(`jsprof aggregate failed (${run.signal ?? run.status}): ${run.stderr}`);
  return { seconds, status: run.status, stderr: run.stderr, result: JSON.parse(run.stdout), maxRssMb };
}

/**
 * The data sets: field traces as described above, and the same with a query string unique to each
 * trace on every script URL (a cache-buster), which makes every trace's functions distinct and
 * reaches the --max-functions cap: memory must stay bounded there too.
 */
const DATA_SETS = [
  { name: 'field traces', queryPerTrace: false, runs: [[], ['--group-by', 'page'], ['--group-by', 'release']] },
  { name: 'a query per trace', queryPerTrace: true, runs: [['--group-by', 'page']] },
];

function benchDataSet(work, seeds, set) {
  const traces = path.join(work, 'traces');
  fs.rmSync(traces, { recursive: true, force: true });
  log(`generating ${TRACES} traces (${set.name}) in ${traces}`);
  const { bytes, broken } = generate(traces, seeds, set.queryPerTrace);
  return set.runs.map((args) => {
    const label = ['jsprof aggregate', ...args].join(' ');
    log(`running ${label}`);
    const run = aggregate(traces, args);
    const { all } = run.result;
    if (run.status !== (broken ? 1 : 0) || run.result.rejected !== broken || all.traces !== TRACES - broken) {
      throw new Error(`${label}: expected ${broken} rejected and ${TRACES - broken} merged with exit status ${broken ? 1 : 0}; got ${run.result.rejected}, ${all.traces}, ${run.status}`);
    }
    return {
      set: set.name,
      label,
      bytes,
      broken,
      seconds: run.seconds,
      maxRssMb: run.maxRssMb,
      functions: all.functions.length,
      functionsCapped: run.result.functionsCapped,
      groups: run.result.groups.length,
      busyMs: all.busyMs,
      idleMs: all.idleMs,
    };
  });
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((c, i) => (i < 2 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ')).join('\n');
}

function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-aggregate-bench-'));
  try {
    log('recording seed traces with jsprof run');
    const seeds = recordSeeds(work, SEED_PROGRAMS, log);
    const runs = DATA_SETS.flatMap((set) => benchDataSet(work, seeds, set));
    const cpu = os.cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
    const rows = [['traces', 'run', 'count', 'MB', 'wall s', 'traces/s', 'MB/s', 'peak RSS MB', 'functions', 'groups']];
    for (const r of runs) {
      const mb = r.bytes / MB;
      const functions = r.functionsCapped ? `${r.functions} (capped)` : r.functions;
      rows.push([r.set, r.label, TRACES, mb.toFixed(0), r.seconds.toFixed(1), (TRACES / r.seconds).toFixed(0), (mb / r.seconds).toFixed(1), r.maxRssMb.toFixed(0), functions, r.groups || '-']);
    }
    const text = [
      `jsprof aggregate bench — ${cpu}, ${os.cpus().length} cores, node ${process.version}`,
      `${TRACES} generated traces per data set, 5–30 s at 10 ms, a third gzipped, ${runs[0].broken} truncated (rejected, as they must be); each run a fresh process, --json`,
      '',
      table(rows),
    ].join('\n');
    process.stdout.write(`${text}\n`);
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, 'aggregate.json'), JSON.stringify({ cpu, cores: os.cpus().length, node: process.version, traces: TRACES, runs, table: text }, null, 2));
  } finally {
    if (KEEP) log(`traces kept in ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
}

main();
