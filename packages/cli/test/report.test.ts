/**
 * `jsprof report` end to end on a real trace of a fixture program: the three text views, --json,
 * error cases, and the HTML report in headless Chromium (flame graph, zoom, both trees, no script from
 * the trace running).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import { BIN, FIXTURES, deepTrace, jsprof, tempDir } from './helpers';
const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');

const dir = tempDir('jsprof-report-');
const tracePath = path.join(dir, 'phases.json');
let trace: any;

beforeAll(() => {
  const run = jsprof(['run', '-q', '--out', tracePath, path.join(FIXTURES, 'phases.js'), '200']);
  expect(run.status).toBe(0);
  trace = JSON.parse(fs.readFileSync(tracePath, 'utf8'));
});

/** Rows of a text tree as [depth, name], read from the indentation of the function column. */
function treeRows(text: string): [number, string][] {
  const [, , header, ...lines] = text.split('\n');
  const column = header.indexOf('function');
  return lines
    .filter((line) => line && !line.includes('… '))
    .map((line) => {
      const cell = line.slice(column);
      return [(cell.length - cell.trimStart().length) / 2, cell.trim().split('  ')[0]];
    });
}

describe('text views', () => {
  test('functions (the default): the same table jsprof run prints', () => {
    const r = jsprof(['report', tracePath]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const busy = trace.samples.filter((s: any) => s.stackId !== undefined).length;
    expect(r.stdout).toMatch(new RegExp(`^${trace.samples.length} samples every [\\d.]+ ms: ${busy} while JavaScript ran, ${trace.samples.length - busy} idle\\.\n\n`));
    expect(r.stdout).toMatch(/ self\s+total\s+function\s+location\n/);
    for (const name of ['scanPrimes', 'build', 'sortNumbers']) expect(r.stdout).toMatch(new RegExp(`\\d+\\.\\d%\\s+\\d+\\.\\d%\\s+${name}\\s+fixtures/programs/phases\\.js:\\d+`));
    expect(jsprof(['report', '--top', '2', tracePath]).stdout.trim().split('\n')).toHaveLength(5);
  });

  test('top-down: the phases sit under spin, which sits under the module', () => {
    const r = jsprof(['report', '--view', 'top-down', tracePath]);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[2]).toMatch(/^ total\s+self\s+function, then its callees$/);
    const rows = treeRows(r.stdout);
    const spin = rows.find(([, name]) => name === 'spin')!;
    for (const phase of ['scanPrimes', 'build', 'sortNumbers']) {
      const row = rows.find(([, name]) => name === phase)!;
      expect(row[0]).toBe(spin[0] + 2);
    }
    expect(rows[0][0]).toBe(0);
  });

  test('bottom-up: the phases are roots, their callers below them', () => {
    const r = jsprof(['report', '--view', 'bottom-up', '--top', '3', tracePath]);
    expect(r.status).toBe(0);
    const rows = treeRows(r.stdout);
    const roots = rows.filter(([depth]) => depth === 0).map(([, name]) => name);
    expect(roots.sort()).toEqual(['build', 'scanPrimes', 'sortNumbers']);
    const scan = rows.findIndex(([, name]) => name === 'scanPrimes');
    expect(rows[scan + 1]).toEqual([1, '(anonymous)']);
    expect(rows[scan + 2]).toEqual([2, 'spin']);
  });

  test('--json: the tree as data, totals in samples', () => {
    const r = jsprof(['report', '--view', 'top-down', '--json', '--min-share', '0', '--top', '1000', tracePath]);
    expect(r.status).toBe(0);
    const json = JSON.parse(r.stdout);
    const busy = trace.samples.filter((s: any) => s.stackId !== undefined).length;
    expect(json).toMatchObject({ view: 'top-down', samples: trace.samples.length, busy, idle: trace.samples.length - busy, meta: {} });
    expect(json.intervalMs).toBeCloseTo(10, 0);
    const sum = (node: any): number => node.self + node.children.reduce((s: number, c: any) => s + sum(c), 0);
    expect(json.tree.total).toBe(busy);
    expect(sum(json.tree)).toBe(busy);
    const functions = JSON.parse(jsprof(['report', '--json', tracePath]).stdout).functions;
    expect(functions.find((f: any) => f.name === 'scanPrimes')).toMatchObject({ resource: pathToFileURL(path.join(FIXTURES, 'phases.js')).href, line: 10, column: 20, location: 'fixtures/programs/phases.js:10:20' });
  });

  test('reads gzipped traces and {meta, trace} documents', () => {
    const file = path.join(dir, 'sent.json.gz');
    fs.writeFileSync(file, zlib.gzipSync(JSON.stringify({ meta: { page: '/x' }, trace })));
    const r = jsprof(['report', '--json', file]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).meta).toEqual({ page: '/x' });
  });

  test('- reads the trace from standard input: report, and convert and symbolicate, which then write to standard output', () => {
    const piped = (args: string[], input: Buffer | string) => spawnSync(process.execPath, [BIN, ...args], { input, encoding: 'utf8' });
    const gz = zlib.gzipSync(fs.readFileSync(tracePath));
    const fromFile = jsprof(['report', '--json', tracePath]).stdout;
    for (const input of [fs.readFileSync(tracePath), gz]) expect(piped(['report', '--json', '-'], input).stdout).toBe(fromFile);
    const profile = JSON.parse(piped(['convert', '-'], gz).stdout);
    expect(profile.samples.length).toBe(trace.samples.length);
    const symbolicated = piped(['symbolicate', '-', '-s', dir], gz);
    expect(JSON.parse(symbolicated.stdout).samples.length).toBe(trace.samples.length);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('-'))).toEqual([]);
    const bad = piped(['report', '-'], 'not a trace');
    expect([bad.status, bad.stderr.trim()]).toEqual([1, expect.stringMatching(/^jsprof: standard input: is not JSON/)]);
  });
});

describe('errors: one line, exit status 1, no stack trace', () => {
  const cases: [string, string, RegExp][] = [
    ['a missing file', path.join(dir, 'nope.json'), /^jsprof: .*nope\.json: no such file\n$/],
    ['a file that is not JSON', 'not-json.json', /^jsprof: .*not-json\.json: is not JSON \(.*\)\n$/],
    ['a malformed trace', 'malformed.json', /^jsprof: .*malformed\.json: stacks\[0\]\.frameId 5 is not an index into frames \(0 of them\)\n$/],
  ];
  beforeAll(() => {
    fs.writeFileSync(path.join(dir, 'not-json.json'), '{"resources": [');
    fs.writeFileSync(path.join(dir, 'malformed.json'), JSON.stringify({ resources: [], frames: [], stacks: [{ frameId: 5 }], samples: [] }));
  });
  test.each(cases)('%s', (_, file, message) => {
    const r = jsprof(['report', path.resolve(dir, file)]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });

  test('a bad option: exit status 2, one line (and where commander found it, where help is)', () => {
    for (const args of [['--view', 'sideways'], ['--top', '0'], ['--min-share', 'lots'], ['--json', '--html', 'x.html']]) {
      const r = jsprof(['report', ...args, tracePath]);
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n').filter((line) => line !== '(add --help for usage)')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  test('a trace 200,000 frames deep (a hostile one): every view, within a 300 MB heap', () => {
    const depth = 200_000;
    const deep = path.join(dir, 'deep.json');
    fs.writeFileSync(deep, JSON.stringify(deepTrace(depth, 2)));
    // The trees print a row per level: into a file, more than a pipe's buffer holds.
    const report = (view: string) => {
      const out = path.join(dir, `deep-${view}.txt`);
      const run = spawnSync(process.execPath, [BIN, 'report', '--view', view, deep], {
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=300' },
        stdio: ['ignore', fs.openSync(out, 'w'), 'pipe'],
      });
      return { status: run.status, stderr: run.stderr, stdout: fs.readFileSync(out, 'utf8') };
    };
    const functions = report('functions');
    expect([functions.status, functions.stderr]).toEqual([0, '']);
    expect(functions.stdout).toMatch(/^ *0\.0% +100\.0% +f0 /m);
    expect(functions.stdout).toMatch(/^ *100\.0% +100\.0% +f199999 /m);
    for (const [view, innermost] of [['top-down', 'f199999'], ['bottom-up', 'f0']]) {
      const tree = report(view);
      expect([tree.status, tree.stderr]).toEqual([0, '']);
      expect(tree.stdout.trimEnd().split('\n').pop()).toMatch(new RegExp(`\\[199999\\] ${innermost} `));
    }
  });

  test('a reader that stops early (| head) ends it quietly: no EPIPE stack trace, exit status 0', () => {
    // `true` reads nothing and is gone before jsprof writes: every write meets a closed pipe.
    for (const args of [['report', '--view', 'top-down', tracePath], ['report', '--help']]) {
      const r = spawnSync('bash', ['-c', `"${process.execPath}" "${BIN}" ${args.map((a) => `"${a}"`).join(' ')} | true; echo "\${PIPESTATUS[0]}" >&2`], { encoding: 'utf8' });
      expect(r.stderr).toBe('0\n');
    }
  });

  test('standard output that cannot be written (a full disk): one line saying so, exit status 1, for every command that prints', () => {
    const full = fs.openSync('/dev/full', 'w');
    try {
      for (const args of [['report', tracePath], ['report', '--json', tracePath], ['report', '--html', '-', tracePath], ['convert', tracePath, '-o', '-'], ['aggregate', tracePath], ['aggregate', '--json', tracePath]]) {
        const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', stdio: ['ignore', full, 'pipe'] });
        expect([args, run.status, run.stderr]).toEqual([args, 1, 'jsprof: cannot write to standard output: no space left on the device\n']);
      }
    } finally {
      fs.closeSync(full);
    }
  });

  test('--help documents the views and the JSON shape', () => {
    const help = jsprof(['report', '--help']).stdout;
    for (const text of ['--view', 'top-down', 'bottom-up', '--top', '--min-share', '--json', '--html', '"tree"', 'intervalMs', 'hidden']) expect(help).toContain(text);
    // Every command that reads traces reads V8 CPU profiles too, and says so.
    for (const command of ['report', 'convert', 'symbolicate', 'aggregate']) expect([command, jsprof([command, '--help']).stdout.replace(/\s+/g, ' ')]).toEqual([command, expect.stringContaining('a V8 .cpuprofile')]);
  });
});

describe('the HTML report in Chromium', () => {
  const XSS = '</script><img src=x onerror="window.__xss=1;alert(1)">';
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const requests: string[] = [];

  /** The flame graph's boxes: name, x and width, in pixels. */
  const boxes = () =>
    page.$$eval('#flame g.box', (gs) =>
      gs.map((g) => ({ name: g.getAttribute('aria-label'), x: (g as SVGGElement).getBBox().x + (g as SVGGElement).getCTM()!.e, width: Number(g.querySelector('rect')!.getAttribute('width')) })),
    );

  beforeAll(async () => {
    // The trace's strings are untrusted: give a hot function a name that is markup, and the file and meta too.
    const evil = JSON.parse(JSON.stringify(trace));
    evil.frames.find((f: any) => f.name === 'sortNumbers').name = XSS;
    const input = path.join(dir, '<img src=x onerror=alert(2)>.json');
    fs.writeFileSync(input, JSON.stringify({ meta: { page: '<img src=x onerror=alert(3)>' }, trace: evil }));
    const out = path.join(dir, 'report.html');
    const r = jsprof(['report', input, '--html', out]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(`jsprof: wrote ${out}\n`);

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(out).href);
  });

  afterAll(async () => {
    await browser?.close();
  });

  test('draws the flame graph with a box for each phase, a third of the width each', async () => {
    const shot = path.join(tempDir('jsprof-report-shot-'), 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(fs.statSync(shot).size).toBeGreaterThan(10_000);
    const all = await boxes();
    const width = all.find((b) => b.name === 'all busy samples')!.width;
    for (const name of ['scanPrimes', 'build', XSS]) {
      const box = all.find((b) => b.name === name)!;
      expect(box.width / width).toBeGreaterThan(0.15);
      expect(box.width / width).toBeLessThan(0.5);
    }
    expect(await page.textContent('#summary')).toMatch(/^\d+ samples every [\d.]+ ms: \d+ while JavaScript ran/);
    expect(await page.textContent('#meta')).toContain('<img src=x onerror=alert(3)>');
    expect(await page.title()).toBe('jsprof report: <img src=x onerror=alert(2)>.json');
  });

  test('hovering a box shows its name, location, total and self', async () => {
    await page.hover('#flame g.box[aria-label="scanPrimes"]');
    expect(await page.isVisible('#tip')).toBe(true);
    const tip = await page.textContent('#tip');
    expect(tip).toMatch(/^scanPrimesfixtures\/programs\/phases\.js:10:20total \d+\.\d% \(\d+ ms\)self \d+\.\d% \(\d+ ms\)$/);
  });

  test('clicking a box zooms to it; Reset zoom goes back', async () => {
    const before = await boxes();
    const width = before.find((b) => b.name === 'all busy samples')!.width;
    expect(await page.isDisabled('#reset')).toBe(true);
    await page.click('#flame g.box[aria-label="build"]');
    const zoomed = await boxes();
    expect(zoomed.find((b) => b.name === 'build')).toMatchObject({ width });
    expect(zoomed.some((b) => b.name === 'scanPrimes')).toBe(false);
    expect(zoomed.find((b) => b.name === 'spin')!.width).toBe(width);
    await page.click('#reset');
    expect(await boxes()).toEqual(before);
  });

  test('shows both call trees, hot paths open, rows expanding on click', async () => {
    const topDown = await page.$$eval('#top-down .fn', (fns) => fns.map((f) => f.firstChild!.textContent));
    expect(topDown).toEqual(expect.arrayContaining(['spin', 'scanPrimes', 'build', XSS]));
    const roots = await page.$$eval('#bottom-up > .row[aria-level="1"] .fn', (fns) => fns.map((f) => f.firstChild!.textContent));
    expect(roots.slice(0, 3).sort()).toEqual(['build', 'scanPrimes', XSS].sort());
    const scanPrimes = page.locator('#bottom-up > .row[aria-level="1"]', { has: page.locator('.fn', { hasText: 'scanPrimes' }) });
    await scanPrimes.click();
    expect(await scanPrimes.getAttribute('aria-expanded')).toBe('true');
    const caller = scanPrimes.locator('xpath=following-sibling::div[1]');
    expect(await caller.getAttribute('aria-level')).toBe('2');
    expect(await caller.locator('.fn').textContent()).toMatch(/^\(anonymous\)fixtures\/programs\/phases\.js:60:19$/);
    // And from the keyboard: Enter closes it.
    await scanPrimes.focus();
    await page.keyboard.press('Enter');
    expect(await scanPrimes.getAttribute('aria-expanded')).toBe('false');
    expect(await scanPrimes.locator('xpath=following-sibling::div[1]').getAttribute('aria-level')).toBe('1');
  });

  /** Writes `trace`'s HTML report and runs `check` on it in a page of its own; the page must not fail or crash. */
  async function inReport(trace: object, check: (reportPage: Page) => Promise<void>): Promise<void> {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'trace.json'), JSON.stringify(trace));
    expect(jsprof(['report', path.join(dir, 'trace.json'), '--html', path.join(dir, 'report.html')]).status).toBe(0);
    const reportPage = await browser.newPage();
    const errors: string[] = [];
    reportPage.on('pageerror', (e) => errors.push(e.message));
    reportPage.on('crash', () => errors.push('crashed'));
    try {
      await reportPage.goto(pathToFileURL(path.join(dir, 'report.html')).href, { timeout: 30_000 });
      await check(reportPage);
    } finally {
      await reportPage.close();
    }
    expect(errors).toEqual([]);
  }

  test('a trace 3,000 frames deep (a recursive parser) loads: every level drawn, the hot path open to 64 levels, every level can be opened', async () => {
    // Before: 1,500 open levels crashed the tab; 3,000 threw "Maximum call stack size exceeded";
    // opened by hand, level after level, the nested tree crashed the tab at about 1,490.
    const depth = 3000;
    const deep: any = { resources: ['https://app.example/parser.js'], frames: [], stacks: [], samples: [] };
    for (let i = 0; i < depth; i++) {
      deep.frames.push({ name: `level${i}`, resourceId: 0, line: i + 1, column: 1 });
      deep.stacks.push(i === 0 ? { frameId: 0 } : { parentId: i - 1, frameId: i });
    }
    for (let t = 0; t < 30; t++) deep.samples.push({ timestamp: t * 10, stackId: depth - 1 - (t % 3) });
    await inReport(deep, async (reportPage) => {
      expect(await reportPage.$$eval('#flame g', (gs) => gs.length)).toBe(depth + 1);
      expect(await reportPage.$$eval('#top-down .row[aria-expanded="true"]', (rows) => rows.length)).toBe(64);
      // As a user would, one click after another on the closed row, down to the innermost frame.
      await reportPage.evaluate(() => {
        for (let closed; (closed = document.querySelector<HTMLElement>('#top-down .row[aria-expanded="false"]')); ) closed.click();
      });
      expect(await reportPage.$$eval('#top-down .row[aria-expanded="true"]', (rows) => rows.length)).toBe(depth - 1);
      expect(await reportPage.$$eval('#top-down .row[role=treeitem]', (rows) => rows.length)).toBe(depth);
      // Closing the outermost removes every row under it.
      await reportPage.click('#top-down .row[aria-level="1"]');
      expect(await reportPage.$$eval('#top-down .row[role=treeitem]', (rows) => rows.length)).toBe(1);
    });
  });

  test('a trace of 300,000 functions loads: rows are made 200 at a time, the rest behind a button', async () => {
    // Before: the page did not finish loading in 60 s (every bottom-up root made at once).
    const n = 300_000;
    const wide: any = { resources: ['https://app.example/bundle.js'], frames: [{ name: 'main', resourceId: 0, line: 1, column: 1 }], stacks: [{ frameId: 0 }], samples: [] };
    for (let i = 1; i < n; i++) {
      wide.frames.push({ name: `f${i}`, resourceId: 0, line: i + 1, column: 1 });
      wide.stacks.push({ parentId: 0, frameId: i });
      wide.samples.push({ timestamp: i * 10, stackId: i });
    }
    await inReport(wide, async (reportPage) => {
      const roots = () => reportPage.$$eval('#bottom-up > .row[aria-level="1"]', (rows) => rows.length);
      expect(await roots()).toBe(200);
      const more = reportPage.locator('#bottom-up > button.more');
      expect(await more.textContent()).toBe(`\u2026 ${n - 1 - 200} more`);
      await more.click();
      expect(await roots()).toBe(400);
    });
  }, 60_000);

  test('ran no script from the trace, logged no error, fetched nothing', async () => {
    expect(await page.evaluate(() => (window as any).__xss)).toBeUndefined();
    expect(await page.$$('img')).toHaveLength(0);
    expect(problems).toEqual([]);
    expect(requests.every((url) => url.startsWith('file:'))).toBe(true);
  });
});

test('file names and trace text in messages reach the terminal escaped', () => {
  const evil = path.join(tempDir(), 'x\u001b]0;owned\u0007\u202egnp.json');
  fs.writeFileSync(evil, '{"resources": [\u001b[2J');
  for (const command of [['report', evil], ['convert', evil, '--to', 'speedscope'], ['symbolicate', evil, '--source-maps', dir]]) {
    const run = jsprof(command);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^jsprof: /);
    expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202a-\u202e]/);
    expect(run.stderr).toContain('\\u001b]0;owned\\u0007\\u202egnp.json');
  }
  // And when all goes well: the names of what was written, and of the program that ran.
  const named = path.join(tempDir(), 'x\u001b]0;owned\u0007\u202e');
  fs.mkdirSync(named);
  fs.writeFileSync(path.join(named, 'app.js'), 'let s = 0; for (let i = 0; i < 1e6; i++) s += i;\n');
  for (const command of [['run', '-o', path.join(named, 'trace.json'), path.join(named, 'app.js')], ['convert', path.join(named, 'trace.json'), '--to', 'speedscope']]) {
    const run = jsprof(command);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('\\u001b]0;owned\\u0007\\u202e');
    expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202a-\u202e]/);
  }
});

test("a trace file's problem is one line in report, convert and symbolicate, escaped as aggregate escapes it", () => {
  const files = [path.join(dir, 'lines.json'), path.join(dir, 'meta-key.json')];
  fs.writeFileSync(files[0], 'line1\nline2\nline3');
  fs.writeFileSync(files[1], JSON.stringify({ meta: { 'a\nb': {} }, trace: { resources: [], frames: [], stacks: [], samples: [] } }));
  for (const file of files) {
    const aggregate = jsprof(['aggregate', file]);
    expect(aggregate.stderr).toMatch(/^jsprof: [^\n]*\\u000a[^\n]*\n$/);
    for (const command of [['report', file], ['convert', file], ['symbolicate', file, '--source-maps', dir]]) {
      const run = jsprof(command);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(aggregate.stderr);
    }
  }
});
