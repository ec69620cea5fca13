'use strict';
/**
 * `jsprof instrument` on prebuilt bundles:
 * - throughput on TypeScript's typescript.js (9 MB) with a source map, against esbuild re-printing
 *   the same file with a source map, measured in the same run (each a fresh process, as a build runs them);
 * - bundle size overhead, raw and gzip, at thresholds 1, 10 and 20 on real dist files.
 *
 *   node bench/bundles.js [--runs N]
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { median } = require('./overhead');

const ROOT = path.resolve(__dirname, '..');
const JSPROF = path.join(ROOT, 'packages/cli/bin/jsprof.js');
const OUT = path.join(__dirname, 'out');
const RUNS = process.argv.includes('--runs') ? Number(process.argv[process.argv.indexOf('--runs') + 1]) : 5;
const TYPESCRIPT = path.join(ROOT, 'node_modules/typescript/lib/typescript.js');
const BUNDLES = [
  'typescript/lib/typescript.js',
  'acorn/dist/acorn.js',
  'js-yaml/dist/js-yaml.min.js',
  'markdown-it/dist/browser/markdown-it.umd.min.js',
  'marked/lib/marked.umd.js',
  '@babel/parser/lib/index.js',
];
const THRESHOLDS = [1, 10, 20];

const log = (msg) => process.stderr.write(`${msg}\n`);

/** Wall time of a fresh node process running `args`, in ms. */
function timed(args) {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed: ${run.stderr}`);
  return { ms, stdout: run.stdout };
}

function throughput(work) {
  const esbuildScript = `
    const code = require('fs').readFileSync(${JSON.stringify(TYPESCRIPT)}, 'utf8');
    const r = require('esbuild').transformSync(code, { loader: 'js', sourcemap: 'external', sourcefile: 'typescript.js' });
    require('fs').writeFileSync(${JSON.stringify(path.join(work, 'esbuild.js'))}, r.code);
    require('fs').writeFileSync(${JSON.stringify(path.join(work, 'esbuild.js.map'))}, r.map);`;
  const times = { esbuild: [], jsprof: [], jsprofNoMap: [], jsprofInFile: [] };
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so a machine that slows down slows both.
    times.esbuild.push(timed(['-e', esbuildScript]).ms);
    const withMap = timed([JSPROF, 'instrument', TYPESCRIPT, '--out-dir', path.join(work, 'jsprof'), '--source-map', '--json']);
    times.jsprof.push(withMap.ms);
    times.jsprofInFile.push(JSON.parse(withMap.stdout).files[0].ms);
    times.jsprofNoMap.push(timed([JSPROF, 'instrument', TYPESCRIPT, '--out-dir', path.join(work, 'nomap'), '--json']).ms);
    log(`  throughput: run ${i + 1}/${RUNS}`);
  }
  const esbuild = median(times.esbuild);
  return {
    bytes: fs.statSync(TYPESCRIPT).size,
    esbuildMs: esbuild,
    jsprofMs: median(times.jsprof),
    jsprofNoMapMs: median(times.jsprofNoMap),
    jsprofInFileMs: median(times.jsprofInFile),
    ratio: median(times.jsprof) / esbuild,
    ratioNoMap: median(times.jsprofNoMap) / esbuild,
    times,
  };
}

function sizes(work) {
  const rows = [];
  for (const bundle of BUNDLES) {
    const file = path.join(ROOT, 'node_modules', bundle);
    const original = fs.readFileSync(file);
    const gzip = (b) => zlib.gzipSync(b, { level: 9 }).length;
    const row = { bundle, bytes: original.length, gzip: gzip(original), at: {} };
    for (const threshold of THRESHOLDS) {
      const dir = path.join(work, `size-${threshold}`);
      const run = timed([JSPROF, 'instrument', file, '--out-dir', dir, '--threshold', String(threshold), '--json']);
      const report = JSON.parse(run.stdout).files[0];
      const out = fs.readFileSync(path.join(dir, path.basename(file)));
      row.at[threshold] = { instrumented: report.instrumented, functions: report.functions, raw: out.length / original.length - 1, gzip: gzip(out) / row.gzip - 1 };
    }
    rows.push(row);
    log(`  sizes: ${bundle}`);
  }
  return rows;
}

const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-bench-bundles-'));
  const started = Date.now();
  try {
    const t = throughput(work);
    const s = sizes(work);
    const cpu = os.cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
    const lines = [];
    lines.push(`jsprof instrument bench — ${cpu}, ${os.cpus().length} cores, node ${process.version}, median of ${RUNS} runs`);
    lines.push('');
    lines.push(`typescript.js (${(t.bytes / 1e6).toFixed(1)} MB), each a fresh process, wall time:`);
    lines.push(`  esbuild re-print with a source map   ${t.esbuildMs.toFixed(0).padStart(6)} ms   1.00×`);
    lines.push(`  jsprof instrument --source-map       ${t.jsprofMs.toFixed(0).padStart(6)} ms   ${t.ratio.toFixed(2)}×   (in-process ${t.jsprofInFileMs.toFixed(0)} ms)`);
    lines.push(`  jsprof instrument, no map            ${t.jsprofNoMapMs.toFixed(0).padStart(6)} ms   ${t.ratioNoMap.toFixed(2)}×`);
    lines.push('');
    lines.push('size overhead (instrumented / functions; raw; gzip -9):');
    const head = ['bundle'.padEnd(48), 'bytes'.padStart(9), ...THRESHOLDS.map((th) => `threshold ${th}`.padEnd(30))];
    lines.push(head.join('  '));
    for (const r of s) {
      lines.push(
        [
          r.bundle.padEnd(48),
          String(r.bytes).padStart(9),
          ...THRESHOLDS.map((th) => {
            const a = r.at[th];
            return `${a.instrumented}/${a.functions} ${pct(a.raw)} ${pct(a.gzip)}`.padEnd(30);
          }),
        ].join('  '),
      );
    }
    const worst = Math.max(...s.map((r) => r.at[10].gzip));
    lines.push('');
    lines.push(`worst gzip overhead at the default threshold (10): ${pct(worst)}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, 'bundles.json'), JSON.stringify({ seconds: (Date.now() - started) / 1000, throughput: t, sizes: s }, null, 2));
    log(`results written to bench/out/bundles.json`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main();
