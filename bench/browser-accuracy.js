'use strict';
/**
 * Accuracy in pages (issue 24): real pages profiled by Chromium's own Profiler (Document-Policy:
 * js-profiling) and by jsprof in Chromium, Firefox and WebKit, with the count-down (an ordinary
 * page) and the sampler thread (a cross-origin isolated page, where SharedArrayBuffer exists: not in
 * WebKit). Each jsprof profile is compared with native Chromium's: the worst gap in inclusive share
 * over the functions with checks (a function without any never shows in jsprof's stacks but as a
 * caller of one that has) and in self share over all functions of the page's scripts (in points;
 * built-ins charged to their caller, as Chromium does). Native self time is folded first as jsprof promises to charge it: a
 * function without checks (its function table says which) counts in its nearest caller with checks.
 * A second table compares every profile, native Chromium's included, with the engine's own clock:
 * the share of the work each phase of the page took, timed by the page (TIMED), against the share of
 * the samples whose stack has the phase.
 *
 *   node bench/browser-accuracy.js [--runs N] [--engines chromium,firefox,webkit] [--pages app,markdown,chart]
 *
 * Pages: the example app (fixtures/apps/browser-app) built by vite with the bundler plugin; marked
 * rendering a long document, bundled by esbuild with the plugin (node_modules instrumented, the
 * default); Chart.js's prebuilt minified bundle through `jsprof instrument`, drawing charts on a
 * canvas. Every script has its function table, so each engine's frames are placed as V8 places them.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { launchBrowser } = require('../fixtures/browsers');
const { ensureReal } = require('./real');

const ROOT = path.resolve(__dirname, '..');
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const RUNS = Number(arg('--runs', 2));
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs must be a whole number ≥ 1');
const ENGINES = arg('--engines', 'chromium,firefox,webkit').split(',');
const PAGES = arg('--pages', 'app,markdown,chart').split(',');
const JSPROF = path.join(ROOT, 'packages/cli/bin/jsprof.js');
const WORK_MS = 1500;
const MIN_SHARE = 0.01;
const GOALS = { inclusive: 0.1, self: 0.05 };

/**
 * Each page's work(ms) calls its phases (named functions of the page's inline script, one call into
 * the page's code each) in turn until ms have passed, and returns the time each took by the page's own
 * clock: each engine's truth, which native Chromium's profile is not (it gives samples in garbage
 * collection no stack, and other engines run the same code at other speeds).
 */
const TIMED = `function timed(phases, ms) {
  const spent = Object.fromEntries(phases.map((f) => [f.name, 0]));
  const end = performance.now() + ms;
  while (performance.now() < end) {
    for (const f of phases) {
      const t = performance.now();
      f();
      spent[f.name] += performance.now() - t;
    }
  }
  return spent;
}`;

const VARIANTS = [
  { id: 'native', label: 'native (run vs run)', engine: 'chromium', policy: true },
  { id: 'chromium/count-down', engine: 'chromium' },
  { id: 'chromium/thread', engine: 'chromium', isolated: true },
  { id: 'firefox/count-down', engine: 'firefox' },
  { id: 'firefox/thread', engine: 'firefox', isolated: true },
  { id: 'webkit/count-down', engine: 'webkit' },
].filter((v) => v.id === 'native' || ENGINES.includes(v.engine));

function node(args, options = {}) {
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', ...options });
  if (run.status !== 0) throw new Error(`${args.join(' ')}: ${run.stderr}`);
  return run;
}

/** Builds the three pages into `dir`: each `<page>/index.html` loads the runtime, its scripts, and defines `work(ms)`. */
async function buildPages(dir) {
  const runtime = fs.readFileSync(require.resolve('@jsprof/runtime/global'), 'utf8');
  const page = (name, scripts, work) => {
    fs.mkdirSync(path.join(dir, name), { recursive: true });
    fs.writeFileSync(path.join(dir, name, 'jsprof.global.js'), runtime);
    const tags = ['jsprof.global.js', ...scripts].map((s) => `<script src="${s}"></script>`).join('');
    fs.writeFileSync(path.join(dir, name, 'index.html'), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><canvas id="chart" width="800" height="400"></canvas>${tags}<script>${work}</script>`);
  };

  // The example app, built by vite: its own index.html, plus work().
  node([path.join(ROOT, 'fixtures/apps/browser-app/build.mjs'), 'vite', path.join(dir, 'app')]);
  const appHtml = path.join(dir, 'app', 'index.html');
  const appPage = fs.readFileSync(appHtml, 'utf8').replace(/src="\/(?!\/)/g, 'src="/app/');
  const appWork = `${TIMED}\nlet n = 0;\nfunction primesHalf() { n += parts.countPrimes(20000); }\nfunction rowsHalf() { n += parts.renderRows(200); }\nwindow.work = (ms) => timed([primesHalf, rowsHalf], ms);`;
  fs.writeFileSync(appHtml, appPage.replace('</body>', `<script type="module">${appWork}</script></body>`));

  // marked, bundled with the plugin.
  const { build } = require('esbuild');
  const { default: jsprof } = await import(require.resolve('@jsprof/bundler-plugin/esbuild'));
  const entry = path.join(dir, 'marked-entry.js');
  fs.writeFileSync(entry, `import { marked } from 'marked';\nwindow.marked = marked;\n`);
  fs.mkdirSync(path.join(dir, 'markdown'), { recursive: true });
  await build({ entryPoints: [entry], outfile: path.join(dir, 'markdown', 'marked.js'), bundle: true, minify: true, sourcemap: true, format: 'iife', nodePaths: [path.join(ROOT, 'node_modules')], logLevel: 'error', plugins: [jsprof({ threshold: 10 })] });
  const doc = ['README.md', 'packages/cli/README.md'].map((f) => (fs.existsSync(path.join(ROOT, f)) ? fs.readFileSync(path.join(ROOT, f), 'utf8') : '')).join('\n\n');
  page(
    'markdown',
    ['marked.js'],
    `${TIMED}\nconst DOC = ${JSON.stringify(doc).replace(/</g, '\\u003c')};\nlet tokens, n = 0;\nfunction lexPhase() { tokens = marked.lexer(DOC); }\nfunction parsePhase() { n += marked.parser(tokens).length; }\nwindow.work = (ms) => timed([lexPhase, parsePhase], ms);`,
  );

  // Chart.js's prebuilt bundle through jsprof instrument.
  const real = ensureReal(['chart.js@4.6.1']);
  const chart = path.join(dir, 'chart');
  fs.mkdirSync(chart, { recursive: true });
  for (const f of ['chart.umd.min.js', 'chart.umd.min.js.map']) fs.copyFileSync(path.join(real, 'node_modules/chart.js/dist', f), path.join(chart, f));
  node([JSPROF, 'instrument', path.join(chart, 'chart.umd.min.js'), '--in-place', '--threshold', '10']);
  page(
    'chart',
    ['chart.umd.min.js'],
    `${TIMED}
const points = Array.from({ length: 400 }, (_, i) => ({ x: i, y: Math.sin(i / 9) * 50 + (i % 17) }));
let chart;
function createPhase() { chart = new Chart(document.getElementById('chart'), { type: 'line', data: { datasets: [{ label: 'a', data: points }, { label: 'b', data: points.map((p) => ({ x: p.x, y: -p.y })) }] }, options: { animation: false, responsive: false, scales: { x: { type: 'linear' } } } }); }
function updatePhase() { chart.data.datasets.reverse(); chart.update(); }
function destroyPhase() { chart.destroy(); }
window.work = (ms) => timed([createPhase, updatePhase, destroyPhase], ms);`,
  );
}

function serve(dir) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const file = path.join(dir, url.pathname.endsWith('/') ? `${url.pathname}index.html` : url.pathname);
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return void res.writeHead(404).end();
    const headers = { 'content-type': file.endsWith('.html') ? 'text/html' : file.endsWith('.json') || file.endsWith('.map') ? 'application/json' : 'text/javascript' };
    if (url.searchParams.has('policy')) headers['document-policy'] = 'js-profiling';
    if (url.searchParams.has('isolated')) Object.assign(headers, { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' });
    res.writeHead(200, headers).end(fs.readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

/**
 * The functions with checks, by key, from the function tables of the scripts of `dir` (each key
 * url-path:line:column at V8's start, as frames are placed).
 */
function functionsWithChecks(dir) {
  const keys = new Set();
  for (const file of fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.js.jsprof.json'))) {
    const script = `/${file.slice(0, -'.jsprof.json'.length).split(path.sep).join('/')}`;
    for (const e of JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')).functions) if (e[9] === 1) keys.add(`${script}:${e[7]}:${e[8]}`);
  }
  return keys;
}

/**
 * Inclusive and self shares of each function of the page's own scripts (not the document's inline
 * scripts) over the busy samples of the work. With `withChecks`, self goes to the innermost function
 * that has checks, as jsprof promises to charge time (native Chromium's profile folded so).
 */
function shares(trace, t0, t1, origin, withChecks) {
  const inclusive = new Map();
  const self = new Map();
  let busy = 0;
  const keyOf = (frame) => {
    if (frame.resourceId === undefined) return null;
    const url = trace.resources[frame.resourceId];
    if (!url.startsWith(origin) || !/\.js$/.test(new URL(url).pathname) || url.endsWith('/jsprof.global.js')) return null;
    return `${url.slice(origin.length)}:${frame.line}:${frame.column}`;
  };
  const names = new Map();
  for (const sample of trace.samples) {
    if (sample.stackId === undefined || sample.timestamp < t0 || sample.timestamp > t1) continue;
    busy++;
    const keys = [];
    for (let s = sample.stackId; s !== undefined; s = trace.stacks[s].parentId) {
      const frame = trace.frames[trace.stacks[s].frameId];
      const key = keyOf(frame);
      if (key && !keys.includes(key)) keys.push(key);
      if (key && !names.has(key)) names.set(key, frame.name || '(anonymous)');
    }
    for (const key of keys) inclusive.set(key, (inclusive.get(key) || 0) + 1);
    const owner = withChecks ? keys.find((key) => withChecks.has(key)) : keys[0];
    if (owner) self.set(owner, (self.get(owner) || 0) + 1);
  }
  const asShares = (counts) => new Map([...counts].map(([k, n]) => [k, n / busy]));
  return { busy, inclusive: asShares(inclusive), self: asShares(self), names };
}

/**
 * Each phase's share of the work by the page's clock (`timers`), and by the profile (`sampled`): the
 * samples of the work, with a stack or without, whose stack has the phase's function.
 */
function phaseShares({ trace, t0, t1, spent }) {
  const counts = new Map(Object.keys(spent).map((name) => [name, 0]));
  let all = 0;
  for (const sample of trace.samples) {
    if (sample.timestamp < t0 || sample.timestamp > t1) continue;
    all++;
    const seen = new Set();
    for (let s = sample.stackId; s !== undefined; s = trace.stacks[s].parentId) {
      const name = trace.frames[trace.stacks[s].frameId].name;
      if (!counts.has(name) || seen.has(name)) continue;
      seen.add(name);
      counts.set(name, counts.get(name) + 1);
    }
  }
  return {
    timers: new Map(Object.entries(spent).map(([name, ms]) => [name, ms / (t1 - t0)])),
    sampled: new Map([...counts].map(([name, n]) => [name, all ? n / all : 0])),
  };
}

function average(list, kind) {
  const sum = new Map();
  for (const s of list) for (const [k, v] of s[kind]) sum.set(k, (sum.get(k) || 0) + v / list.length);
  return sum;
}

function worstGap(native, ours, names, only = null) {
  let worst = { gap: 0, key: '-' };
  for (const key of new Set([...native.keys(), ...ours.keys()])) {
    if (only && !only.has(key)) continue;
    const a = native.get(key) ?? 0;
    const b = ours.get(key) ?? 0;
    if (Math.max(a, b) < MIN_SHARE) continue;
    if (Math.abs(a - b) > worst.gap) worst = { gap: Math.abs(a - b), key, name: names.get(key), native: a, ours: b };
  }
  return worst;
}

async function main() {
  let withChecks = null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-browser-accuracy-'));
  await buildPages(dir);
  withChecks = functionsWithChecks(dir);
  const { server, origin } = await serve(dir);
  const pages = PAGES;
  const results = Object.fromEntries(pages.map((p) => [p, Object.fromEntries(VARIANTS.map((v) => [v.id, []]))]));
  try {
    for (const engine of new Set(VARIANTS.map((v) => v.engine))) {
      const browser = await launchBrowser(engine);
      try {
        for (let round = 0; round < RUNS; round++) {
          for (const pageName of pages) {
            for (const v of VARIANTS.filter((x) => x.engine === engine)) {
              const page = await browser.newPage();
              const query = v.policy ? '?policy' : v.isolated ? '?isolated' : '';
              await page.goto(`${origin}/${pageName}/${query}`);
              const run = await page.evaluate(`(async () => {
                for (let i = 0; typeof work !== 'function' && i < 300; i++) await new Promise((r) => setTimeout(r, 10));
                ${v.policy ? 'jsprof.install({ preferNative: true });' : ''}
                const profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 100000 });
                await new Promise((r) => setTimeout(r, 200));
                const t0 = performance.now();
                const spent = work(${WORK_MS});
                const t1 = performance.now();
                return { trace: await profiler.stop(), t0, t1, spent, mode: ${v.policy ? "'native'" : 'jsprof.samplerStats().mode'} };
              })()`);
              await page.close();
              results[pageName][v.id].push({ ...shares(run.trace, run.t0, run.t1, origin, v.policy ? withChecks : null), ...phaseShares(run), mode: run.mode });
            }
          }
          process.stderr.write(`  browser accuracy: ${engine} round ${round + 1}/${RUNS}\n`);
        }
      } finally {
        await browser.close();
      }
    }
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const lines = [
    `jsprof in pages against Chromium's own Profiler: worst inclusive share gap (functions with checks) / self share gap (all, native folded into functions with checks) in points over the page scripts (≥ ${100 * MIN_SHARE}% in either), ${RUNS} runs of ${WORK_MS} ms each at 10 ms; goals ≤ ${100 * GOALS.inclusive} / ≤ ${100 * GOALS.self}. ${os.cpus()[0]?.model.replace(/\s+/g, ' ').trim()}, ${os.cpus().length} cores.`,
    '',
    `${'page'.padEnd(10)} ${'profiler'.padEnd(20)} ${'busy samples'.padStart(12)}  ${'incl'.padStart(5)} ${'self'.padStart(5)}  worst self gap`,
  ];
  const out = {};
  for (const pageName of pages) {
    const native = results[pageName].native;
    const names = new Map(native.flatMap((r) => [...r.names]));
    const nativeInclusive = average(native, 'inclusive');
    const nativeSelf = average(native, 'self');
    out[pageName] = {};
    for (const v of VARIANTS) {
      const runs = results[pageName][v.id];
      for (const r of runs) for (const [k, n] of r.names) if (!names.has(k)) names.set(k, n);
      // Native Chromium's row: its own runs against each other, the noise every other row carries too.
      const [a, b] = v.id === 'native' ? [runs[0], runs[runs.length - 1]] : [null, null];
      const inclusive = a ? worstGap(a.inclusive, b.inclusive, names, withChecks) : worstGap(nativeInclusive, average(runs, 'inclusive'), names, withChecks);
      const self = a ? worstGap(a.self, b.self, names) : worstGap(nativeSelf, average(runs, 'self'), names);
      out[pageName][v.id] = { busy: runs.map((r) => r.busy), modes: runs.map((r) => r.mode), inclusive, self };
      const busy = runs.map((r) => r.busy).join('/');
      const selfText = self.name === undefined ? '' : `${self.name} ${(100 * self.ours).toFixed(1)}% vs ${(100 * self.native).toFixed(1)}%`;
      lines.push(`${pageName.padEnd(10)} ${(v.label ?? `jsprof ${v.id}`).padEnd(20).slice(0, 26)} ${busy.padStart(12)}  ${(100 * inclusive.gap).toFixed(1).padStart(5)} ${(100 * self.gap).toFixed(1).padStart(5)}  ${selfText}`);
    }
  }
  lines.push(
    '',
    `Against each engine's own clock: each phase's share of the work timed by the page and sampled (samples whose stack has the phase, of all samples of the work), worst gap in points; native Chromium included.`,
    '',
    `${'page'.padEnd(10)} ${'profiler'.padEnd(20)} ${'gap'.padStart(5)}  worst phase: sampled vs timed`,
  );
  for (const pageName of pages) {
    for (const v of VARIANTS) {
      const runs = results[pageName][v.id];
      const timed = average(runs, 'timers');
      const sampled = average(runs, 'sampled');
      const worst = worstGap(timed, sampled, new Map());
      out[pageName][v.id].phases = { ...worst, timed: Object.fromEntries(timed), sampled: Object.fromEntries(sampled) };
      const detail = worst.key === '-' ? '' : `${worst.key} ${(100 * worst.ours).toFixed(1)}% vs ${(100 * worst.native).toFixed(1)}%`;
      lines.push(`${pageName.padEnd(10)} ${(v.id === 'native' ? 'native' : `jsprof ${v.id}`).padEnd(20)} ${(100 * worst.gap).toFixed(1).padStart(5)}  ${detail}`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  fs.mkdirSync(path.join(__dirname, 'out'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, 'out', 'browser-accuracy.json'), JSON.stringify({ date: new Date().toISOString(), runs: RUNS, results: out }, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
