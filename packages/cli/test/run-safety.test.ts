/**
 * `jsprof run` never harms what it is given: the output path (a device, the script itself, a
 * file kept when no trace comes), and signals, which reach the program once and end it as they
 * would have, with the exit status a shell gives. No command writes over what it reads.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BIN, jsprof, tempDir } from './helpers';

const ONE_LINER = 'let x = 0; for (let i = 0; i < 1e6; i++) x += i; console.log(x > 0);\n';

describe('the output path', () => {
  test('-o /dev/null discards the trace and leaves the device a device', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'app.js'), ONE_LINER);
    const run = jsprof(['run', '-q', '-o', '/dev/null', path.join(dir, 'app.js')]);
    expect(run.status).toBe(0);
    expect(fs.statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  test('the script itself, or a directory, is refused before the program runs; the script is intact', () => {
    const dir = tempDir();
    const script = path.join(dir, 'app.js');
    fs.writeFileSync(script, ONE_LINER);
    const self = jsprof(['run', '-o', script, script]);
    expect(self.status).toBe(2);
    expect(self.stderr).toMatch(/^jsprof: will not write the trace to .*app\.js: it is the script to run\n$/);
    expect(self.stdout).toBe(''); // the program never ran
    expect(fs.readFileSync(script, 'utf8')).toBe(ONE_LINER);
    const directory = jsprof(['run', '-o', dir, script]);
    expect(directory.status).toBe(2);
    expect(directory.stderr).toMatch(/it is a directory/);
  });

  test('a run that ends without a trace leaves the old trace as it was', () => {
    const dir = tempDir();
    const out = path.join(dir, 'trace.json');
    fs.writeFileSync(out, 'the old trace');
    fs.writeFileSync(path.join(dir, 'killed.js'), 'process.kill(process.pid, "SIGKILL");\n');
    const run = jsprof(['run', '-o', out, path.join(dir, 'killed.js')]);
    expect(run.stderr).toContain('the program ended without a trace');
    expect(fs.readFileSync(out, 'utf8')).toBe('the old trace');
  });
});

describe('every command that writes a file', () => {
  test('refuses to write over what it reads (by any name, hard links too) or a directory, with exit status 2, leaving it intact', () => {
    const dir = tempDir();
    const script = path.join(dir, 'app.js');
    fs.writeFileSync(script, ONE_LINER);
    const trace = path.join(dir, 'trace.json');
    expect(jsprof(['run', '-q', '-o', trace, script]).status).toBe(0);
    const before = fs.readFileSync(trace, 'utf8');
    fs.linkSync(trace, path.join(dir, 'linked.json'));
    fs.symlinkSync(trace, path.join(dir, 'symlinked.json'));
    // An input that is another input's output: src/sub/a.js goes to out/sub/a.js, itself given.
    for (const sub of ['src/sub', 'out/sub']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src/sub/a.js'), ONE_LINER);
    fs.writeFileSync(path.join(dir, 'out/sub/a.js'), ONE_LINER);
    const store = path.join(dir, 'traces.duckdb');
    expect(jsprof(['ingest', trace, '--store', store]).status).toBe(0);
    const storeBefore = fs.readFileSync(store);
    const cases: [string[], RegExp][] = [
      [['report', trace, '--html', trace], /will not write .*trace\.json: it is the trace it reads/],
      [['report', trace, '--html', dir], /will not write .*: it is a directory/],
      [['convert', trace, '-o', path.join(dir, 'linked.json')], /will not write .*linked\.json: it is the trace it reads/],
      [['symbolicate', trace, '-s', dir, '-o', `${dir}/./trace.json`], /will not write .*trace\.json: it is the trace it reads/],
      [['convert', trace, '-o', path.join(dir, 'symlinked.json')], /will not write .*symlinked\.json: it is the trace it reads/],
      [['query', 'flame', '--store', store, '--html', store], /will not write .*traces\.duckdb: it is the store/],
      [['query', 'diff', 'a', 'b', '--store', store, '--html', store], /will not write .*traces\.duckdb: it is the store/],
      [['instrument', dir, '--out-dir', path.join(dir, '..', path.basename(dir))], /--out-dir .* would write over the files it reads .*app\.js.*--in-place/],
      [['instrument', path.join(dir, 'src'), path.join(dir, 'out/sub/a.js'), '--out-dir', path.join(dir, 'out')], /--out-dir .* would write over the files it reads .*out\/sub\/a\.js/],
    ];
    for (const [args, message] of cases) {
      const run = jsprof(args);
      expect([args, run.status]).toEqual([args, 2]);
      expect(run.stderr).toMatch(message);
    }
    expect(fs.readFileSync(trace, 'utf8')).toBe(before);
    expect(fs.readFileSync(store)).toEqual(storeBefore);
    expect(fs.readFileSync(script, 'utf8')).toBe(ONE_LINER);
  });
});

describe('signals', () => {
  /** Starts `jsprof run` on a program that prints `ready` once it listens, and resolves when it did. */
  function start(program: string, out: string) {
    const dir = path.dirname(out);
    fs.writeFileSync(path.join(dir, 'app.js'), program);
    const child = spawn(process.execPath, [BIN, 'run', '-q', '-o', out, path.join(dir, 'app.js')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const ready = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.includes('ready')) resolve();
      });
    });
    const exited = new Promise<{ status: number | null }>((resolve) => child.on('exit', (status) => resolve({ status })));
    return { child, ready, exited, stdout: () => stdout };
  }

  const BUSY = `function spin(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1); return x; }
setInterval(() => spin(20), 25);
console.log('ready');
`;

  test("SIGINT to jsprof runs the program's own handler once, and the trace covers its shutdown", async () => {
    const out = path.join(tempDir(), 'trace.json');
    // A program that ends gracefully on one Ctrl-C, and at once (exit 3) on a second.
    const run = start(`let count = 0;
process.on('SIGINT', () => { count++; console.log('handler ' + count); if (count === 2) process.exit(3); setTimeout(() => { spin(100); process.exit(0); }, 50); });
${BUSY}`, out);
    await run.ready;
    run.child.kill('SIGINT');
    const { status } = await run.exited;
    expect(run.stdout()).toContain('handler 1');
    expect(run.stdout()).not.toContain('handler 2');
    expect(status).toBe(0);
    const trace = JSON.parse(fs.readFileSync(out, 'utf8'));
    const last = trace.samples[trace.samples.length - 1].timestamp - trace.samples[0].timestamp;
    expect(last).toBeGreaterThan(100); // sampled on after the signal, through the 100 ms of shutdown work
  });

  test('a signal the program does not handle ends it as it would have, the trace written first', async () => {
    const out = path.join(tempDir(), 'trace.json');
    const run = start(BUSY, out);
    await run.ready;
    run.child.kill('SIGTERM');
    expect((await run.exited).status).toBe(128 + 15);
    expect(JSON.parse(fs.readFileSync(out, 'utf8')).samples.length).toBeGreaterThan(0);
  });

  test('a program killed with SIGKILL makes jsprof exit 137, as a shell reports it', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'killed.js'), 'process.kill(process.pid, "SIGKILL");\n');
    expect(jsprof(['run', '-o', path.join(dir, 't.json'), path.join(dir, 'killed.js')]).status).toBe(137);
  });
});
