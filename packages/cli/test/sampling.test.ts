/**
 * `jsprof instrument <site> --out-dir <site>/jsprof --sampling <rate>`: a prebuilt site made a sampled
 * build. The site's pages get the sampling snippet before the tags of scripts that were instrumented
 * (absolute and relative URLs, module preloads; other origins' scripts stay where they were); loaded
 * in Chromium, a sampled load runs only the instrumented copies and sends a trace, an unsampled one
 * only the files as they were.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { jsprof, tempDir } from './helpers';
const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');

const BUSY = `export function busy(ms) {
  const end = performance.now() + ms;
  let total = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 1000; i++) total += Math.sqrt(i);
  }
  return total;
}
`;

const SITE: Record<string, string> = {
  'index.html': `<!doctype html><html><head><link rel="icon" href="data:,">
<link rel="modulepreload" href="/assets/busy.js">
<script src="vendor/tick.js"></script>
<script src="https://cdn.example/other.js" async></script>
</head><body><script type="module" src="/assets/main.js"></script></body></html>
`,
  'sub/page.html': '<!doctype html><script type="module" src="../assets/main.js"></script>\n',
  'about.html': '<!doctype html><p>no scripts</p>\n',
  // It loads a file beside it by relative URL, as webpack's publicPath 'auto' does its chunks and assets.
  'assets/main.js': `import { busy } from './busy.js';\nwindow.ticks = window.ticks || [];\nwindow.work = (ms) => busy(ms);\nwindow.data = fetch(new URL('./data.json', import.meta.url)).then((r) => r.json());\nwindow.ready = true;\n`,
  'assets/data.json': '{"from":"beside main.js"}',
  'assets/busy.js': BUSY,
  'vendor/tick.js': `window.ticks = [];\nfunction tick(name) {\n  let n = 0;\n  for (let i = 0; i < 10; i++) n += i;\n  window.ticks.push(name + n);\n}\ntick('vendor');\n`,
};

function site(): string {
  const dir = tempDir('jsprof-site-');
  for (const [file, text] of Object.entries(SITE)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

test('the pages of the site get the snippet in place of the tags of instrumented scripts; the files given stay as they are', () => {
  const dir = site();
  const run = jsprof(['instrument', dir, '--out-dir', path.join(dir, 'jsprof'), '--threshold', '1', '--sampling', '0.25', '--send', '/traces', '--json']);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(JSON.parse(run.stdout).pages.map((p: string) => path.relative(dir, path.resolve(p))).sort()).toEqual(['index.html', path.join('sub', 'page.html')]);
  for (const file of Object.keys(SITE).filter((f) => f.endsWith('.js'))) expect(fs.readFileSync(path.join(dir, file), 'utf8')).toBe(SITE[file]);
  expect(fs.readFileSync(path.join(dir, 'about.html'), 'utf8')).toBe(SITE['about.html']);
  const runtime = fs.readdirSync(path.join(dir, 'jsprof')).find((f) => /^jsprof\.page-load\.[0-9a-f]{8}\.js$/.test(f));
  expect(runtime).toBeDefined();
  // The site's other files beside the copies, for what they load by relative URL; its pages stay where they are.
  expect(fs.readFileSync(path.join(dir, 'jsprof/assets/data.json'), 'utf8')).toBe(SITE['assets/data.json']);
  expect((fs.readdirSync(path.join(dir, 'jsprof'), { recursive: true }) as string[]).filter((f) => f.endsWith('.html'))).toEqual([]);

  // The build's tags, gathered after the snippet and before its end comment; the other origin's where it was.
  const index = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  const block = /<\/script>\n(<link rel="modulepreload" href="\/assets\/busy.js">\n<script src="vendor\/tick.js"><\/script>\n<script type="module" src="\/assets\/main.js"><\/script>)\n<!--jsprof:end-->/.exec(index);
  expect(block).not.toBeNull();
  expect(index.indexOf('<script src="https://cdn.example/other.js" async></script>')).toBeGreaterThan(block!.index);
  const config = (html: string) => JSON.parse(/\}\)\((\{.*\})\);<\/script>/.exec(html)![1]);
  expect(config(index)).toEqual({
    rate: 0.25,
    tags: `<script src="/jsprof/${runtime}"></script>${block![1].replace(/(src|href)="(\/?)/g, '$1="$2jsprof/').replace(/\n/g, '')}`,
    profile: { send: '/traces' },
  });
  expect(config(fs.readFileSync(path.join(dir, 'sub/page.html'), 'utf8')).tags).toMatch(/<script type="module" src="\.\.\/jsprof\/assets\/main\.js"><\/script>$/);

  // Instrumented again, the same: one snippet per page, not a second one (whose `<!--` would end at the first's end).
  const pages = ['index.html', 'sub/page.html'].map((page) => fs.readFileSync(path.join(dir, page), 'utf8'));
  expect(jsprof(['instrument', dir, '--out-dir', path.join(dir, 'jsprof'), '--threshold', '1', '--sampling', '0.25', '--send', '/traces']).status).toBe(0);
  expect(['index.html', 'sub/page.html'].map((page) => fs.readFileSync(path.join(dir, page), 'utf8'))).toEqual(pages);
  // A data file the site's build changed is copied again.
  fs.writeFileSync(path.join(dir, 'assets/data.json'), '{"from":"the next build"}');
  expect(jsprof(['instrument', dir, '--out-dir', path.join(dir, 'jsprof'), '--threshold', '1', '--sampling', '0.25', '--send', '/traces']).status).toBe(0);
  expect(fs.readFileSync(path.join(dir, 'jsprof/assets/data.json'), 'utf8')).toBe('{"from":"the next build"}');
  // At another rate: the snippet says so, still one.
  expect(jsprof(['instrument', dir, '--out-dir', path.join(dir, 'jsprof'), '--threshold', '1', '--sampling', '0.5']).status).toBe(0);
  const again = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  expect(again.split('<!--jsprof:end-->').length).toBe(2);
  expect(config(again)).toEqual({ ...config(index), rate: 0.5, profile: {} });
  fs.rmSync(dir, { recursive: true, force: true });
});

test('bad usage is refused before anything is written (exit 2); a site whose pages load no instrumented script fails (exit 1)', () => {
  const dir = site();
  const cases: [string[], RegExp][] = [
    [['--in-place', '--sampling', '0.1'], /--sampling needs --out-dir/],
    [['--out-dir', path.join(path.dirname(dir), `${path.basename(dir)}-out`), '--sampling', '0.1'], /--out-dir must be inside/],
    [['--out-dir', path.join(dir, 'jsprof'), '--sampling', '1.5'], /must be a number from 0 to 1/],
    [['--out-dir', path.join(dir, 'jsprof'), '--send', '/t'], /--send and --base go with --sampling/],
  ];
  for (const [args, message] of cases) {
    const run = jsprof(['instrument', dir, ...args]);
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(2);
  }
  expect(fs.existsSync(path.join(dir, 'jsprof'))).toBe(false);
  const file = jsprof(['instrument', path.join(dir, 'assets/main.js'), '--out-dir', path.join(dir, 'jsprof'), '--sampling', '0.1']);
  expect(file.stderr).toMatch(/name a directory/);
  expect(file.status).toBe(2);

  fs.rmSync(path.join(dir, 'index.html'));
  fs.rmSync(path.join(dir, 'sub'), { recursive: true });
  const none = jsprof(['instrument', dir, '--out-dir', path.join(dir, 'jsprof'), '--sampling', '0.1']);
  expect(none.stderr).toMatch(/no page under .* loads an instrumented script/);
  expect(none.status).toBe(1);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('in Chromium', () => {
  let dir: string;
  let server: http.Server;
  let origin: string;
  let browser: Browser;
  const traces: Buffer[] = [];

  beforeAll(async () => {
    dir = site();
    // The other origin's script would fail to load here: the test is about this site's files.
    fs.writeFileSync(path.join(dir, 'index.html'), SITE['index.html'].replace('<script src="https://cdn.example/other.js" async></script>\n', ''));
    const run = jsprof(['instrument', dir, '--out-dir', path.join(dir, 'jsprof'), '--threshold', '1', '--sampling', '0', '--send', '/traces']);
    expect(run.status).toBe(0);
    server = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/traces') {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => void (traces.push(Buffer.concat(chunks)), res.writeHead(204).end()));
        return;
      }
      const file = path.join(dir, url.pathname === '/' ? 'index.html' : url.pathname);
      if (!fs.existsSync(file) || !fs.statSync(file).isFile()) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': file.endsWith('.html') ? 'text/html' : file.endsWith('.json') ? 'application/json' : 'text/javascript' }).end(fs.readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test.each([
    ['0', 'the files as they were'],
    ['1', 'the instrumented copies, and sends a trace'],
  ])('?jsprof-sample=%s runs %s', async (sample) => {
    const page = await browser.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    page.on('pageerror', (e) => problems.push(e.message));
    traces.length = 0;
    await page.goto(`${origin}/?jsprof-sample=${sample}`);
    await page.waitForFunction('window.ready === true');
    expect(await page.evaluate('window.ticks')).toEqual(['vendor45']);
    expect(await page.evaluate('window.data')).toEqual({ from: 'beside main.js' });
    await page.evaluate('work(200)');
    await page.goto('about:blank');
    await page.close();
    expect(problems).toEqual([]);
    const scripts = requested.filter((p) => p.endsWith('.js')).sort();
    if (sample === '0') {
      expect(scripts).toEqual(['/assets/busy.js', '/assets/main.js', '/vendor/tick.js']);
      expect(traces).toEqual([]);
    } else {
      // The plain files the page's tags name may be fetched by the preload scanner (never run: the trace is of the copies).
      expect(scripts.filter((s) => s.startsWith('/jsprof/'))).toEqual(['/jsprof/assets/busy.js', '/jsprof/assets/main.js', expect.stringMatching(/^\/jsprof\/jsprof\.page-load\.\w+\.js$/), '/jsprof/vendor/tick.js']);
      for (let i = 0; i < 100 && !traces.length; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(traces).toHaveLength(1);
      const { trace } = JSON.parse(traces[0].toString('utf8'));
      expect(trace.frames.map((f: { name: string }) => f.name)).toContain('busy');
      expect(trace.resources.every((r: string) => r.startsWith(`${origin}/jsprof/`))).toBe(true);
    }
  });
});
