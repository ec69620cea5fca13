'use strict';
/**
 * Cold cost in the browser (issue 25, item 1's browser half): a page load is cold code. Per engine
 * (Chromium, Firefox, WebKit; fixtures/browsers.js), two tables.
 *
 * 1. Real libraries, each loaded and run once in a fresh page, load and compile included: plain;
 *    instrumented by `jsprof instrument` at the default threshold with the runtime loaded but not
 *    profiling ("checks"); the same profiled by the polyfill at 10 ms, the Profiler created before
 *    the library loads ("profiled"; its stop() is not counted). The time of a page is
 *    performance.now() at the end of the task, i.e. since navigation start: fetching, parsing and
 *    compiling the scripts, and one run. Medians of alternating runs, each way against the plain
 *    library's median in the same run, as bench/cold.js does in Node. Chromium loads each of these
 *    pages in a browser started for it, without DevTools (bench/page-loads.js).
 * 2. The example app (fixtures/apps/browser-app) built by vite and webpack without jsprof and as a
 *    sampled build at rate 0 (`--sampling 0`: every page load is unsampled and runs the plain build,
 *    picked by the inline snippet): the time until the app is ready and has run `summary(3, 20)`
 *    (which loads a chunk on demand), and the bytes the page downloaded. What a sampled build costs
 *    the page loads it does not sample; it should be only the snippet, about 1 KB of HTML.
 *
 *   node bench/cold-browser.js [--runs N] [--engines chromium,firefox,webkit] [--app-runs N]
 *
 * `--runs` (default 7) is the number of pages per library and way; `--app-runs` (default 3 × runs;
 * those pages are small and quick) the number per build. Tables go to stdout, progress to stderr,
 * the raw numbers to bench/out/cold-browser.json.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { launchBrowser } = require('../fixtures/browsers');
const { CHROMIUM } = require('../fixtures/chromium');
const { PAGE_HEAD, loadInOwnChromium, loadOnce, serve } = require('./page-loads');
const { median } = require('./overhead');
const { coldRows, columnsOf, pct, table } = require('./report');

const ROOT = path.resolve(__dirname, '..');
const JSPROF = path.join(ROOT, 'packages/cli/bin/jsprof.js');
const NODE_MODULES = path.join(ROOT, 'node_modules');
const APP_BUILD = path.join(ROOT, 'fixtures/apps/browser-app/build.mjs');
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const RUNS = Number(arg('--runs', 7));
const APP_RUNS = Number(arg('--app-runs', RUNS * 3));
const ENGINES = arg('--engines', 'chromium,firefox,webkit').split(',');

/**
 * Each library's browser build (a UMD or IIFE dist file that sets `global`) and one small task with
 * it, the same as bench/cold.js's: `lib` is the library's global, `SAMPLE` the text of acorn.js
 * (240 KB), loaded by the pages whose task uses it as a script of its own, `/sample.js`. Terser is
 * not here: its browser build wants @jridgewell/source-map's as a global `sourceMap` beside it, and
 * only libraries that load on their own are here. TypeScript (9 MB; 9.7 MB instrumented) loads and
 * runs in all three engines in under a second (0.3–0.9 s here), so it stays.
 */
const LIBRARIES = [
  { name: 'marked', file: 'marked/lib/marked.umd.js', global: 'marked', task: `lib.marked.parse('# T\\n\\n' + '* item **bold** [link](x)\\n'.repeat(200))` },
  { name: 'acorn', file: 'acorn/dist/acorn.js', global: 'acorn', task: `lib.parse(SAMPLE, { ecmaVersion: 'latest' }).body.length` },
  { name: 'esprima', file: 'esprima/dist/esprima.js', global: 'esprima', task: `lib.parseScript(SAMPLE).body.length` },
  { name: 'js-yaml', file: 'js-yaml/dist/js-yaml.js', global: 'jsyaml', task: `lib.load(lib.dump({ list: Array.from({ length: 300 }, (_, i) => ({ i, s: 'x' + i })) })).list.length` },
  { name: 'typescript', file: 'typescript/lib/typescript.js', global: 'ts', task: `lib.transpileModule('export class C<T> { constructor(private x: T) {} get y(): number { return 1; } }'.repeat(20), { compilerOptions: { target: lib.ScriptTarget.ES2015 } }).outputText.length` },
];

const WAYS = ['plain', 'checks', 'profiled'];

/** The example app's builds: `--plain` (no jsprof at all) against `--sampling 0`. */
const BUNDLERS = ['vite', 'webpack'];
const APP_WAYS = ['plain', 'sampled'];

/** How each engine runs (fixtures/browsers.js): MiniBrowser has no headless mode. */
const HOW = { chromium: 'headless', firefox: 'headless', webkit: 'under Xvfb' };

const VERSIONS = {
  chromium: () => spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).stdout.trim(),
  firefox: () => spawnSync('/usr/bin/firefox-esr', ['--version'], { encoding: 'utf8' }).stdout.trim(),
  webkit: () => `WebKitGTK ${spawnSync('dpkg-query', ['-W', '-f', '${Version}', 'libwebkit2gtk-4.1-0'], { encoding: 'utf8' }).stdout.trim()} (MiniBrowser)`,
};

const log = (msg) => process.stderr.write(`${msg}\n`);

// ---------------------------------------------------------------------------------------------
// Table 1: libraries loaded and run once in a fresh page.

/**
 * The page of one library, way and run. Every script URL carries `?r=<run>-<way>`, unique to the page
 * load: a URL a page of another way or an earlier run has loaded is never loaded again, so no engine
 * can reuse code compiled for it (V8's code cache and in-memory compilation cache, Firefox's
 * bytecode cache, are keyed by URL) more for one way than for another. The function tables
 * (`<file>.jsprof.json`) are fetched by the runtime only when a profile is resolved, by the URL
 * without its query.
 */
function libraryPage(lib, way, run) {
  const q = `?r=${run}-${way}`;
  const dir = way === 'plain' ? 'plain' : 'instrumented';
  const script = (src) => `<script src="${src}${q}" onerror="__fail('failed to load ' + this.src)"></script>`;
  return `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,">
${PAGE_HEAD}
${/\bSAMPLE\b/.test(lib.task) ? script('/sample.js') : ''}
${way === 'plain' ? '' : script('/jsprof.global.js')}
${way === 'profiled' ? '<script>self.profiler = new Profiler({ sampleInterval: 10, maxBufferSize: 100000 });</script>' : ''}
${script(`/${dir}/${path.basename(lib.file)}`)}
<script>
  if (!self.__done) {
    const lib = self[${JSON.stringify(lib.global)}];
    const value = ${lib.task};
    const ms = performance.now();
    self.__result = { ms, value, runtime: typeof jsprof === 'object', checks: typeof __jsprof$c === 'object' };
    if (self.profiler) {
      profiler.stop().then(
        (trace) => {
          __result.samples = trace.samples.filter((s) => s.stackId !== undefined).length;
          __result.sampler = jsprof.samplerStats().mode;
          self.__done = true;
        },
        (error) => __fail(error),
      );
    } else self.__done = true;
  }
</script>
</head><body></body></html>`;
}

/** The plain and instrumented copies of the libraries, their function tables, the runtime, SAMPLE: path → body. */
function libraryFiles(work) {
  fs.mkdirSync(path.join(work, 'plain'));
  for (const lib of LIBRARIES) fs.copyFileSync(path.join(NODE_MODULES, lib.file), path.join(work, 'plain', path.basename(lib.file)));
  const instrumented = spawnSync(process.execPath, [JSPROF, 'instrument', path.join(work, 'plain'), '--out-dir', path.join(work, 'instrumented')], { encoding: 'utf8' });
  if (instrumented.status !== 0) throw new Error(instrumented.stderr);
  const files = new Map();
  for (const dir of ['plain', 'instrumented']) {
    for (const name of fs.readdirSync(path.join(work, dir))) files.set(`/${dir}/${name}`, fs.readFileSync(path.join(work, dir, name)));
  }
  files.set('/jsprof.global.js', fs.readFileSync(require.resolve('@jsprof/runtime/global')));
  files.set('/sample.js', `var SAMPLE = ${JSON.stringify(fs.readFileSync(path.join(NODE_MODULES, 'acorn/dist/acorn.js'), 'utf8'))};\n`);
  return files;
}

async function coldLibraries(browser, engine, origin) {
  const times = Object.fromEntries(LIBRARIES.map((l) => [l.name, Object.fromEntries(WAYS.map((w) => [w, []]))]));
  const samples = Object.fromEntries(LIBRARIES.map((l) => [l.name, []]));
  const values = {};
  const samplers = [];
  const url = (lib, way, r) => `${origin}/?${new URLSearchParams({ lib: lib.name, way, r })}`;
  const load = (pageUrl) => (engine === 'chromium' ? loadInOwnChromium(origin, pageUrl, 120000) : loadOnce(browser, pageUrl, 120000));
  // Not counted: a page of each way, so that the first page measured does not also pay for the
  // browser's first content process, its first connection to the server, the runtime's first fetch.
  for (const way of WAYS) await load(url(LIBRARIES[0], way, 'warm-up'));
  for (let round = 0; round < RUNS; round++) {
    for (const lib of LIBRARIES) {
      // Alternating, in an order that turns each round, so that a machine slowing down slows every way.
      for (let k = 0; k < WAYS.length; k++) {
        const way = WAYS[(k + round) % WAYS.length];
        const result = await load(url(lib, way, String(round)));
        if (!result || result.error) throw new Error(`${engine}, ${lib.name}, ${way}: ${result ? result.error : 'no result'}`);
        // The page ran what it should have: the runtime and the checks, or neither.
        if (result.runtime !== (way !== 'plain') || result.checks !== (way !== 'plain')) throw new Error(`${engine}, ${lib.name}, ${way}: runtime loaded ${result.runtime}, checks ${result.checks}`);
        // Every way computes the same thing: the task's value is plain's (or the first page's).
        const value = JSON.stringify(result.value);
        values[lib.name] ??= { way, value };
        if (value !== values[lib.name].value) throw new Error(`${engine}, ${lib.name}: ${way} computed ${value}, ${values[lib.name].way} ${values[lib.name].value}`);
        times[lib.name][way].push(result.ms);
        if (way === 'profiled') {
          samples[lib.name].push(result.samples);
          samplers.push(result.sampler);
        }
      }
    }
    log(`  cold-browser: ${engine} libraries, round ${round + 1}/${RUNS}`);
  }
  // The values for the record, a long one (marked's HTML) by its length.
  const short = (json) => (json.length > 80 ? `(${JSON.parse(json).length} characters)` : JSON.parse(json));
  return { times, samples, sampler: [...new Set(samplers)].join(', '), values: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, short(v.value)])) };
}

// ---------------------------------------------------------------------------------------------
// Table 2: the example app, built plain and as a sampled build at rate 0.

/**
 * Served in place of the app's index.html, with this before `</head>`, in both builds alike: it
 * waits for `summary` (which the app sets on `window`) by a setter rather than by polling, so the
 * moment it is a function the app runs `summary(3, 20)`, then takes performance.now() and the bytes
 * downloaded. The builds' files are served as built; the bytes the harness adds to the HTML are
 * taken off the navigation entry's.
 */
const HARNESS = `<script>(function () {
  var fn;
  Object.defineProperty(window, 'summary', { configurable: true, get: function () { return fn; }, set: function (v) { fn = v; if (typeof fn === 'function') Promise.resolve().then(run); } });
  function run() {
    summary(3, 20).then(function (value) {
      var ms = performance.now();
      var entries = performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'));
      window.__result = { ms: ms, value: value, entries: entries.map(function (e) { return { name: e.name, bytes: e.transferSize || e.encodedBodySize || 0, transferSize: e.transferSize }; }) };
      window.__done = true;
    }, function (error) { window.__result = { error: String(error) }; window.__done = true; });
  }
})();</script>
`;

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.map': 'application/json' };

/** Serves a build's directory at the server's root, the harness in its index.html. */
function serveBuild(dir) {
  return serve((url) => {
    const file = path.join(dir, url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname));
    if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return undefined;
    let body = fs.readFileSync(file);
    if (file === path.join(dir, 'index.html')) body = body.toString('utf8').replace('</head>', `${HARNESS}</head>`);
    return { body, type: TYPES[path.extname(file)] ?? 'application/octet-stream' };
  });
}

function buildApp(bundler, out, mode) {
  const build = spawnSync(process.execPath, [APP_BUILD, bundler, out, ...mode], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build.mjs ${bundler} ${mode.join(' ')}: ${build.stderr}`);
}

async function sampledApp(browser, engine, servers) {
  const results = Object.fromEntries(BUNDLERS.map((b) => [b, Object.fromEntries(APP_WAYS.map((w) => [w, []]))]));
  const harnessBytes = Buffer.byteLength(HARNESS);
  // Not counted: a page of each build first, as for the libraries.
  for (const bundler of BUNDLERS) for (const way of APP_WAYS) await loadOnce(browser, `${servers[bundler][way].origin}/?r=warm-up`, 30000);
  for (let round = 0; round < APP_RUNS; round++) {
    for (const bundler of BUNDLERS) {
      for (const way of round % 2 ? [...APP_WAYS].reverse() : APP_WAYS) {
        const server = servers[bundler][way];
        server.requests.length = 0;
        const result = await loadOnce(browser, `${server.origin}/?r=${round}`, 30000);
        if (!result || result.error) throw new Error(`${engine}, ${bundler} ${way}: ${result ? result.error : 'no result'}`);
        if (result.value?.count !== 3) throw new Error(`${engine}, ${bundler} ${way}: summary(3, 20) gave ${JSON.stringify(result.value)}`);
        // An unsampled page load of the sampled build loads nothing of jsprof's.
        const ours = [...server.requests, ...result.entries.map((e) => new URL(e.name).pathname)].filter((p) => p.startsWith('/jsprof/'));
        if (ours.length) throw new Error(`${engine}, ${bundler} ${way}: an unsampled page load requested ${ours.join(', ')}`);
        const bytes = result.entries.reduce((sum, e) => sum + e.bytes, 0) - harnessBytes;
        results[bundler][way].push({ ms: result.ms, bytes, files: result.entries.length, transferSize: result.entries.every((e) => e.transferSize > 0) });
      }
    }
    if ((round + 1) % 5 === 0 || round + 1 === APP_RUNS) log(`  cold-browser: ${engine} app, round ${round + 1}/${APP_RUNS}`);
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Output.

const cpu = () => `${os.cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU'}, ${os.cpus().length} cores`;

function libraryTable(engine, version, { times, samples, sampler }) {
  const rows = coldRows(LIBRARIES.map((l) => l.name), times, ['checks', 'profiled'], (name) => [String(median(samples[name]))]);
  return [
    `jsprof cold-start browser bench (${engine}) — ${version}, ${HOW[engine]}${engine === 'chromium' ? ', a browser started for each page, no DevTools session' : ''}; ${cpu()}; median of ${RUNS} fresh pages per way, alternating`,
    '',
    table(columnsOf(['library (loaded and run once in a page)', 'plain', 'checks, runtime loaded', 'profiling at 10 ms', 'samples']), rows),
    '',
    'Each page: navigation, the (runtime,) library fetched from 127.0.0.1, compiled and run once; time is performance.now() at the task\'s end.',
    'Instrumented by `jsprof instrument` at the default threshold; the profiler starts before the library loads; its stop() is not counted.',
    `Sampler: ${sampler} (the page is not cross-origin isolated); samples: the profiled pages' median of samples with a stack.`,
  ].join('\n');
}

function appTable(engine, version, results) {
  const rows = BUNDLERS.map((bundler) => {
    const r = results[bundler];
    const ms = Object.fromEntries(APP_WAYS.map((w) => [w, median(r[w].map((x) => x.ms))]));
    const bytes = Object.fromEntries(APP_WAYS.map((w) => [w, median(r[w].map((x) => x.bytes))]));
    const diff = bytes.sampled - bytes.plain;
    return [bundler, `${ms.plain.toFixed(0)} ms`, `${ms.sampled.toFixed(0)} ms`, pct(ms.sampled / ms.plain - 1), `${bytes.plain} B`, `${bytes.sampled} B`, `${diff >= 0 ? '+' : ''}${diff} B`];
  });
  const measured = APP_WAYS.every((w) => BUNDLERS.every((b) => results[b][w].every((x) => x.transferSize))) ? 'transferSize' : 'transferSize, or encodedBodySize where it is 0';
  return [
    `jsprof sampled build, unsampled page loads (${engine}) — ${version}, ${HOW[engine]}; ${cpu()}; the example app; median of ${APP_RUNS} fresh pages per build, alternating`,
    '',
    table(columnsOf(['bundler', 'plain build', 'sampled build, rate 0', 'vs plain', 'bytes, plain', 'bytes, sampled', 'difference']), rows),
    '',
    'Time: performance.now() once the app is ready and summary(3, 20) has resolved (it loads a chunk). Rate 0: every page load runs the plain build.',
    `Bytes: the navigation (less this bench's harness in the HTML) and every resource (${measured}); the unsampled loads requested nothing under /jsprof/.`,
  ].join('\n');
}

async function main() {
  const started = Date.now();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-cold-browser-'));
  const servers = [];
  const tables = [];
  const out = { runs: RUNS, appRuns: APP_RUNS, machine: cpu(), engines: {} };
  try {
    log('  cold-browser: instrumenting the libraries');
    const files = libraryFiles(work);
    const libraries = await serve((url) => {
      if (url.pathname === '/') {
        const lib = LIBRARIES.find((l) => l.name === url.searchParams.get('lib'));
        return { body: libraryPage(lib, url.searchParams.get('way'), url.searchParams.get('r')), type: 'text/html' };
      }
      const body = files.get(url.pathname);
      return body === undefined ? undefined : { body, type: url.pathname.endsWith('.json') ? 'application/json' : 'text/javascript' };
    });
    servers.push(libraries);

    const apps = {};
    for (const bundler of BUNDLERS) {
      log(`  cold-browser: building the app with ${bundler}, plain and sampled`);
      apps[bundler] = {};
      for (const [way, mode] of [['plain', ['--plain']], ['sampled', ['--sampling', '0']]]) {
        const dir = path.join(work, `app-${bundler}-${way}`);
        buildApp(bundler, dir, mode);
        apps[bundler][way] = await serveBuild(dir);
        servers.push(apps[bundler][way]);
      }
    }

    for (const engine of ENGINES) {
      const version = VERSIONS[engine]();
      const browser = await launchBrowser(engine);
      try {
        const cold = await coldLibraries(browser, engine, libraries.origin);
        const app = await sampledApp(browser, engine, apps);
        out.engines[engine] = { version, libraries: cold, app };
        tables.push(libraryTable(engine, version, cold), appTable(engine, version, app));
      } finally {
        await browser.close();
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`${tables.join('\n\n')}\n`);
  fs.mkdirSync(path.join(__dirname, 'out'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, 'out', 'cold-browser.json'), JSON.stringify(out, null, 2));
  log(`  cold-browser: done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
