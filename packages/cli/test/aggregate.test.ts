import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { BIN, jsprof, tempDir } from './helpers';

const dirs: string[] = [];
function traceDir(): string {
  const dir = tempDir('jsprof-aggregate-');
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** A trace every 10 ms: `render` (self) under `main`, then idle; `name` lets traces differ. */
function trace(busy: number, idle: number, name = 'render') {
  return {
    resources: ['https://shop.example/app.js'],
    frames: [
      { name: 'main', resourceId: 0, line: 1, column: 1 },
      { name, resourceId: 0, line: 20, column: 5 },
    ],
    stacks: [{ frameId: 0 }, { frameId: 1, parentId: 0 }],
    samples: Array.from({ length: busy + idle }, (_, i) => (i < busy ? { timestamp: i * 10, stackId: 1 } : { timestamp: i * 10 })),
  };
}

function fieldDir(): string {
  const dir = traceDir();
  fs.mkdirSync(path.join(dir, 'nov-20'));
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(trace(3, 1)));
  fs.writeFileSync(path.join(dir, 'nov-20/1.json'), JSON.stringify({ receivedAt: '2026-11-20T10:00:00Z', meta: { page: '/cart' }, trace: trace(1, 0, 'checkout') }));
  fs.writeFileSync(path.join(dir, 'nov-20/2.json.gz'), zlib.gzipSync(JSON.stringify({ meta: { page: '/cart', release: '2' }, trace: trace(4, 0) })));
  fs.writeFileSync(path.join(dir, 'nov-20/3.json'), '{"meta": {}, "trace": {"resources": [');
  return dir;
}

describe('jsprof aggregate', () => {
  test('merges a directory of traces, plain, gzip and receiver files; a malformed one is named and skipped, exit 1', () => {
    const dir = fieldDir();
    const run = jsprof(['aggregate', dir, '--group-by', 'page']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^jsprof: ${path.join(dir, 'nov-20/3.json')}: is not JSON \\([^\n]*\\)\n$`));
    expect(run.stdout).toContain('3 traces (1 rejected), 9 samples: 8 busy (80 ms), 1 idle (10 ms).');
    expect(run.stdout).toContain('Shares of busy time');
    const table = run.stdout.split('\n');
    const all = table.indexOf('All traces: 3 traces, 80 ms busy, 10 ms idle');
    expect(table.slice(all + 1, all + 5)).toEqual([
      ' self   total  traces  function  location',
      '87.5%   87.5%   66.7%  render    https://shop.example/app.js:20:5',
      '12.5%   12.5%   33.3%  checkout  https://shop.example/app.js:20:5',
      ' 0.0%  100.0%  100.0%  main      https://shop.example/app.js:1:1',
    ]);
    expect(run.stdout).toContain('page = /cart: 2 traces, 50 ms busy, 0 ms idle');
    expect(run.stdout).toContain('page = (none): 1 trace, 30 ms busy, 10 ms idle');
  });

  test('a reader that stops early (| true) does not change the exit status: 1 when a trace was rejected, text or --json', () => {
    const dir = fieldDir();
    for (const json of [[], ['--json']]) {
      const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} aggregate ${json.join(' ')} ${JSON.stringify(dir)} 2>/dev/null | true; echo "\${PIPESTATUS[0]}"`;
      expect([json, spawnSync('bash', ['-c', command], { encoding: 'utf8' }).stdout]).toEqual([json, '1\n']);
    }
  });

  test('a directory walk skips what symbolicate and convert wrote beside a trace; a file named is still read', () => {
    const dir = traceDir();
    const file = path.join(dir, 'load.json');
    fs.writeFileSync(file, JSON.stringify({ meta: { page: '/cart' }, trace: trace(3, 1) }));
    expect(jsprof(['symbolicate', file, '-s', dir]).status).toBe(0);
    expect(jsprof(['convert', file, '--to', 'speedscope']).status).toBe(0);
    expect(jsprof(['convert', file]).status).toBe(0);
    expect(fs.readdirSync(dir).sort()).toEqual(['load.cpuprofile', 'load.json', 'load.speedscope.json', 'load.symbolicated.json']);

    const run = jsprof(['aggregate', dir, '--json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ rejected: 0, all: { traces: 1 } });
    const ingest = jsprof(['ingest', dir, '--store', path.join(traceDir(), 'traces.duckdb'), '--json']);
    expect(ingest.status).toBe(0);
    expect(JSON.parse(ingest.stdout)).toMatchObject({ files: 1, ingested: 1, rejected: 0 });

    const named = jsprof(['aggregate', path.join(dir, 'load.symbolicated.json'), path.join(dir, 'load.speedscope.json'), '--json']);
    expect(named.status).toBe(1);
    expect(named.stderr).toMatch(/load\.speedscope\.json: /);
    expect(JSON.parse(named.stdout)).toMatchObject({ rejected: 1, all: { traces: 1 } });
  });

  test('--json gives the whole result', () => {
    const run = jsprof(['aggregate', fieldDir(), '--group-by', 'release', '--json', '--top', '1']);
    expect(run.status).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ groupBy: 'release', rejected: 1, functionsCapped: false, groupsCapped: false });
    expect(result.all).toMatchObject({ traces: 3, samples: 9, busySamples: 8, busyMs: 80, idleSamples: 1, idleMs: 10 });
    expect(result.all.functions).toHaveLength(3);
    expect(result.all.functions[0]).toEqual({
      name: 'render',
      resource: 'https://shop.example/app.js',
      line: 20,
      column: 5,
      selfMs: 70,
      totalMs: 70,
      self: 0.875,
      total: 0.875,
      traces: 2,
    });
    expect(result.groups.map((g: any) => [g.name, g.traces])).toEqual([
      ['(none)', 2],
      ['2', 1],
    ]);
  });

  test('after 20 named rejections the rest are counted; progress on a terminal; the cap is said', () => {
    const dir = traceDir();
    for (let i = 0; i < 25; i++) fs.writeFileSync(path.join(dir, `bad-${String(i).padStart(2, '0')}.json`), '[]');
    fs.writeFileSync(path.join(dir, 'good-1.json'), JSON.stringify(trace(2, 0, 'a')));
    fs.writeFileSync(path.join(dir, 'good-2.json'), JSON.stringify(trace(2, 0, 'b')));
    const run = jsprof(['aggregate', dir, '--max-functions', '2']);
    expect(run.status).toBe(1);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe(`jsprof: ${path.join(dir, 'bad-00.json')}: the trace is an array, not an object`);
    expect(lines[20]).toBe('jsprof: 5 more traces rejected');
    expect(run.stdout).toContain('2 traces (25 rejected)');
    expect(run.stdout).toContain('More than 2 distinct functions (--max-functions): the rest are counted as "(other functions)".');
    expect(run.stdout).toMatch(/50\.0% +50\.0% +50\.0% +\(other functions\)\n/);

    // `script` gives the command a terminal
    const tty = spawnSync('script', ['-qec', `${process.execPath} ${BIN} aggregate ${dir}`, '/dev/null'], { encoding: 'utf8' });
    expect(tty.stdout).toContain('jsprof: 1/27 traces');
    expect(tty.stdout).toContain('jsprof: 27/27 traces');
  });

  test('--max-file-size rejects larger traces, gzipped or not', () => {
    const dir = traceDir();
    const large = JSON.stringify(trace(40_000, 0));
    expect(large.length).toBeGreaterThan(1024 * 1024);
    fs.writeFileSync(path.join(dir, 'large.json'), large);
    fs.writeFileSync(path.join(dir, 'large.json.gz'), zlib.gzipSync(large));
    fs.writeFileSync(path.join(dir, 'small.json'), JSON.stringify(trace(2, 0)));
    const run = jsprof(['aggregate', dir, '--max-file-size', '1']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/large\.json: is 1\.\d MB, more than the limit of 1\.0 MB\n/);
    expect(run.stderr).toMatch(/large\.json\.gz: gunzips to more than 1\.0 MB \(the limit\); refused\n/);
    expect(run.stdout).toContain('1 trace (2 rejected)');
    expect(jsprof(['aggregate', dir]).status).toBe(0);
  });

  test('control characters from a trace never reach the terminal', () => {
    const dir = traceDir();
    fs.writeFileSync(path.join(dir, 'evil.json'), JSON.stringify({ meta: { page: '/\x1b]0;owned\x07' }, trace: trace(1, 0, 'x\x1b[2Jy\u009b') }));
    const run = jsprof(['aggregate', dir, '--group-by', 'page']);
    expect(run.status).toBe(0);
    expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(run.stdout).toContain('x\\u001b[2Jy\\u009b');
    expect(run.stdout).toContain('page = /\\u001b]0;owned\\u0007:');
  });

  test.each(['constructor', 'toString', '__proto__'])('--group-by %s groups by the traces\' own key only', (key) => {
    const dir = traceDir();
    fs.writeFileSync(path.join(dir, 'plain.json'), JSON.stringify({ meta: { page: '/a' }, trace: trace(1, 0) }));
    fs.writeFileSync(path.join(dir, 'own.json'), `{"meta": {"${key}": "mine"}, "trace": ${JSON.stringify(trace(2, 0))}}`);
    const run = jsprof(['aggregate', dir, '--group-by', key, '--json']);
    expect(run.status).toBe(0);
    const groups = JSON.parse(run.stdout).groups.map((g: any) => g.name).sort();
    expect(groups).toEqual(['(none)', 'mine']);
  });

  test('a directory that cannot be read is named and skipped; the others are aggregated', () => {
    const dir = traceDir();
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, 'a.json'), JSON.stringify(trace(2, 0)));
    fs.mkdirSync(path.join(dir, 'locked'));
    fs.writeFileSync(path.join(dir, 'locked/b.json'), JSON.stringify(trace(1, 0)));
    fs.chmodSync(path.join(dir, 'locked'), 0);
    // Root reads any directory: run as nobody there.
    const asRoot = process.getuid?.() === 0;
    const run = asRoot
      ? spawnSync('su', ['nobody', '-s', '/bin/sh', '-c', `"${process.execPath}" "${BIN}" aggregate "${dir}"`], { encoding: 'utf8' })
      : jsprof(['aggregate', dir]);
    fs.chmodSync(path.join(dir, 'locked'), 0o755);
    expect(run.stderr).toBe(`jsprof: skipped ${path.join(dir, 'locked')}: permission denied\n`);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('1 trace, 2 samples');
  });

  test('no trace files, or a path that does not exist, is an error', () => {
    const empty = jsprof(['aggregate', traceDir()]);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toBe('jsprof: no .json, .json.gz or .gz files in the given paths\n');
    const missing = jsprof(['aggregate', '/nonexistent/traces']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('jsprof: no such file or directory: /nonexistent/traces\n');
  });

  test('--help says what a share is a share of', () => {
    const help = jsprof(['aggregate', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Each sample counts as its trace's sampling interval");
    expect(help.stdout).toContain('Shares are shares of the busy time');
  });
});
