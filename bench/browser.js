'use strict';
/**
 * Overhead in the browser, per engine (Chromium, Firefox, WebKit; fixtures/browsers.js): acorn
 * parsing real sources in a page, plain; with jsprof's checks (acorn's dist file through
 * `jsprof instrument`) and no profiler; profiled by the polyfill at 10 ms, with and without
 * cross-origin isolation (count-down, or the sampler thread where SharedArrayBuffer exists: not in
 * WebKit); and, in Chromium, the plain page profiled by its native Profiler at 10 ms
 * (Document-Policy: js-profiling). Fresh page per run, variants interleaved, medians; ratios against
 * the plain page of the same engine and run. Chromium loads each page in a browser started for it,
 * without DevTools (bench/page-loads.js): Playwright's DevTools session makes every sample cost V8 a
 * detailed stack.
 *
 *   node bench/browser.js [--runs N] [--engines chromium,firefox,webkit]
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { launchBrowser } = require('../fixtures/browsers');
const { median } = require('./overhead');
const { PAGE_HEAD, loadInOwnChromium, loadOnce, serve } = require('./page-loads');

const ROOT = path.resolve(__dirname, '..');
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const RUNS = Number(arg('--runs', 7));
const ENGINES = arg('--engines', 'chromium,firefox,webkit').split(',');
const NODE_MODULES = path.join(ROOT, 'node_modules');
const SOURCES = ['acorn/dist/acorn.js', 'js-yaml/dist/js-yaml.js', 'marked/lib/marked.umd.js'].map((f) => fs.readFileSync(path.join(NODE_MODULES, f), 'utf8'));

const VARIANTS = [
  { id: 'plain', label: 'plain page', acorn: 'plain', runtime: false, profile: null },
  { id: 'checks', label: 'checks, no profiler', acorn: 'instrumented', runtime: true, profile: null },
  { id: 'polyfill', label: 'polyfill at 10 ms (count-down)', acorn: 'instrumented', runtime: true, profile: 'polyfill' },
  { id: 'polyfill-isolated', label: 'polyfill at 10 ms, isolated (thread)', acorn: 'instrumented', runtime: true, profile: 'polyfill', isolated: true, engines: ['chromium', 'firefox'] },
  { id: 'native', label: 'native Profiler at 10 ms', acorn: 'plain', runtime: false, profile: 'native', policy: true, engines: ['chromium'] },
];

const VERSIONS = {
  chromium: () => spawnSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).stdout.trim(),
  firefox: () => spawnSync('/usr/bin/firefox-esr', ['--version'], { encoding: 'utf8' }).stdout.trim(),
  webkit: () => `WebKitGTK ${spawnSync('dpkg-query', ['-W', '-f', '${Version}', 'libwebkit2gtk-4.1-0'], { encoding: 'utf8' }).stdout.trim()} (MiniBrowser)`,
};

/**
 * Parses per page: enough that the page runs for 1–2 s. A page of 6 (0.3–0.5 s) mostly measured
 * compilation and tier-up: Firefox's cost of checks moved from −2% to +27% between runs of it.
 */
const PAGE_ROUNDS = 24;

const WORK = `
async function main(profile) {
  const profiler = profile ? new Profiler({ sampleInterval: 10, maxBufferSize: 100000 }) : null;
  // let a sampler thread start, as a page that profiles from its start would
  await new Promise((resolve) => setTimeout(resolve, 300));
  const t0 = performance.now();
  let nodes = 0;
  for (let round = 0; round < ${PAGE_ROUNDS}; round++) for (const code of SOURCES) nodes += acorn.parse(code, { ecmaVersion: 'latest' }).body.length;
  const ms = performance.now() - t0;
  const trace = profiler ? await profiler.stop() : null;
  return { ms, nodes, samples: trace ? trace.samples.filter((s) => s.stackId !== undefined).length : 0, mode: self.jsprof ? jsprof.samplerStats().mode : null };
}`;

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-bench-browser-'));
  const acornFile = path.join(NODE_MODULES, 'acorn/dist/acorn.js');
  const instrumented = spawnSync(process.execPath, [path.join(ROOT, 'packages/cli/bin/jsprof.js'), 'instrument', acornFile, '--out-dir', work], { encoding: 'utf8' });
  if (instrumented.status !== 0) throw new Error(instrumented.stderr);
  const files = {
    '/acorn-plain.js': fs.readFileSync(acornFile, 'utf8'),
    '/acorn-instrumented.js': fs.readFileSync(path.join(work, 'acorn.js'), 'utf8'),
    '/jsprof.global.js': fs.readFileSync(require.resolve('@jsprof/runtime/global'), 'utf8'),
    '/work.js': `const SOURCES = ${JSON.stringify(SOURCES)};\n${WORK}`,
  };
  const server = await serve((url) => {
    const headers = {};
    if (url.searchParams.get('isolated')) Object.assign(headers, { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' });
    if (url.searchParams.get('policy')) headers['document-policy'] = 'js-profiling';
    if (url.pathname === '/') {
      const v = VARIANTS.find((x) => x.id === url.searchParams.get('v'));
      const scripts = [...(v.runtime ? ['/jsprof.global.js'] : []), `/acorn-${v.acorn}.js`, '/work.js'];
      const run = `<script>main(${JSON.stringify(v.profile)}).then((result) => { self.__result = result; self.__done = true; }, __fail);</script>`;
      return { headers, type: 'text/html', body: `<!doctype html><head><meta charset="utf-8"><link rel="icon" href="data:,">${PAGE_HEAD}${scripts.map((src) => `<script src="${src}"></script>`).join('')}${run}</head>` };
    }
    const body = files[url.pathname];
    return body === undefined ? undefined : { headers, type: 'text/javascript', body };
  });
  const origin = server.origin;
  const tables = [];
  const out = {};
  try {
    for (const engine of ENGINES) {
      const variants = VARIANTS.filter((v) => !v.engines || v.engines.includes(engine));
      out[engine] = await measure(engine, variants, origin);
      tables.push(table(engine, variants, out[engine]));
    }
  } finally {
    await server.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`${tables.join('\n\n')}\n`);
  fs.mkdirSync(path.join(__dirname, 'out'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, 'out', 'browser.json'), JSON.stringify({ runs: RUNS, results: out }, null, 2));
}

async function measure(engine, variants, origin) {
  const browser = engine === 'chromium' ? null : await launchBrowser(engine);
  const load = (url) => (browser ? loadOnce(browser, url, 120000) : loadInOwnChromium(origin, url, 120000));
  const results = Object.fromEntries(variants.map((v) => [v.id, []]));
  try {
    for (let round = 0; round < RUNS; round++) {
      const order = round % 2 ? [...variants].reverse() : variants;
      for (const v of order) {
        const query = new URLSearchParams({ v: v.id, ...(v.isolated ? { isolated: '1' } : {}), ...(v.policy ? { policy: '1' } : {}) });
        const result = await load(`${origin}/?${query}`);
        if (result.error) throw new Error(`${engine}, ${v.label}: ${result.error}`);
        results[v.id].push(result);
      }
      process.stderr.write(`  browser: ${engine} round ${round + 1}/${RUNS}\n`);
    }
  } finally {
    await browser?.close();
  }
  return results;
}

function table(engine, variants, results) {
  const cpu = os.cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  const base = median(results.plain.map((r) => r.ms));
  const lines = [`jsprof browser bench — ${VERSIONS[engine]()}, ${engine === 'chromium' ? 'headless, no DevTools' : 'headless'}; ${cpu}, ${os.cpus().length} cores; acorn parsing 3 library sources ×${PAGE_ROUNDS} in a page; median of ${RUNS}`, ''];
  lines.push(`${'variant'.padEnd(40)} ${'work ms'.padStart(8)} ${'vs plain'.padStart(9)} ${'samples'.padStart(8)}  sampler`);
  for (const v of variants) {
    const ms = median(results[v.id].map((r) => r.ms));
    const samples = median(results[v.id].map((r) => r.samples));
    const mode = results[v.id][0].mode ?? (v.profile === 'native' ? 'native' : '');
    lines.push(`${v.label.padEnd(40)} ${ms.toFixed(0).padStart(8)} ${`${ms >= base ? '+' : ''}${((ms / base - 1) * 100).toFixed(1)}%`.padStart(9)} ${String(v.profile ? samples : '').padStart(8)}  ${v.profile ? mode : ''}`);
  }
  return lines.join('\n');
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
