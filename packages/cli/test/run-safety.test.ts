/**
 * `jsprof run` never harms what it is given: the output path (a device, the script itself, a
 * file kept when no trace comes), and signals, which reach the program once and end it as they
 * would have, with the exit status a shell gives. No command writes over what it reads.
 */
import { spawn, spawnSync } from 'node:child_process';
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
    // A module the program loads, or any other file that is not a trace.
    fs.writeFileSync(path.join(dir, 'lib.js'), 'module.exports = 42;\n');
    fs.writeFileSync(path.join(dir, 'main.js'), 'console.log(require("./lib.js"));\n');
    const module = jsprof(['run', '-o', path.join(dir, 'lib.js'), path.join(dir, 'main.js')]);
    expect(module.status).toBe(2);
    expect(module.stderr).toMatch(/^jsprof: will not write the trace to .*lib\.js: it is not a trace/);
    expect(module.stdout).toBe('');
    expect(fs.readFileSync(path.join(dir, 'lib.js'), 'utf8')).toBe('module.exports = 42;\n');
    // An old trace, or an empty file, is replaced.
    for (const old of ['{"resources":[],"frames":[],"stacks":[],"samples":[]}', '']) {
      fs.writeFileSync(path.join(dir, 'old.json'), old);
      expect(jsprof(['run', '-q', '-o', path.join(dir, 'old.json'), path.join(dir, 'main.js')]).status).toBe(0);
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'old.json'), 'utf8')).samples).toEqual(expect.any(Array));
    }
  });

  test('a run that ends without a trace leaves the old trace as it was', () => {
    const dir = tempDir();
    const out = path.join(dir, 'trace.json');
    const oldTrace = '{"resources":[],"frames":[],"stacks":[],"samples":[],"note":"the old trace"}';
    fs.writeFileSync(out, oldTrace);
    fs.writeFileSync(path.join(dir, 'killed.js'), 'process.kill(process.pid, "SIGKILL");\n');
    const run = jsprof(['run', '-o', out, path.join(dir, 'killed.js')]);
    expect(run.stderr).toContain('the program ended without a trace');
    expect(fs.readFileSync(out, 'utf8')).toBe(oldTrace);
  });
});

describe('every command that writes a file', () => {
  test('writes to a character device (/dev/null) but refuses a block device, naming it', () => {
    const dir = tempDir();
    const trace = path.join(dir, 'trace.json');
    fs.writeFileSync(path.join(dir, 'app.js'), ONE_LINER);
    expect(jsprof(['run', '-q', '-o', trace, path.join(dir, 'app.js')]).status).toBe(0);
    expect(jsprof(['convert', trace, '-o', '/dev/null']).status).toBe(0);
    const disk = path.join(dir, 'disk');
    // A block device node of a loop device that is not there: what a write to it reaches is not the point.
    if (spawnSync('mknod', [disk, 'b', '7', '250']).status !== 0) return; // not root: nothing to try
    const run = jsprof(['convert', trace, '-o', disk]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/disk: it is a block device, not a file/);
  });

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
  function start(program: string, out: string, env: Record<string, string> = {}) {
    const dir = path.dirname(out);
    fs.writeFileSync(path.join(dir, 'app.js'), program);
    const child = spawn(process.execPath, [BIN, 'run', '-q', '-o', out, path.join(dir, 'app.js')], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
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

  test('a signal ends a program busy in its own code, whose event loop never turns to run a listener', async () => {
    const out = path.join(tempDir(), 'trace.json');
    const run = start(`function spin() { let x = 0; for (let i = 0; i < 1e6; i++) x += i % 3; return x; }
console.log('ready');
for (const end = Date.now() + 30000; Date.now() < end; ) spin();
console.log('done');
`, out);
    await run.ready;
    run.child.kill('SIGINT');
    expect((await run.exited).status).toBe(128 + 2);
    expect(run.stdout()).not.toContain('done'); // it would print it after 30 s
    expect(JSON.parse(fs.readFileSync(out, 'utf8')).samples.length).toBeGreaterThan(0);
  });

  test('at a terminal, a hangup sent to the whole process group runs the program\'s handler once', async () => {
    // `script` gives jsprof a terminal; the program prints its process group, which jsprof's shares there.
    const dir = tempDir();
    const out = path.join(dir, 'trace.json');
    fs.writeFileSync(
      path.join(dir, 'app.js'),
      `let count = 0;
process.on('SIGHUP', () => { count++; console.log('hup ' + count); setTimeout(() => process.exit(0), 300); });
const stat = require('fs').readFileSync('/proc/self/stat', 'utf8');
console.log('group ' + stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[2] + ' tty ' + process.stdin.isTTY);
${BUSY}`,
    );
    const command = [process.execPath, BIN, 'run', '-q', '-o', out, path.join(dir, 'app.js')].map((word) => `'${word}'`).join(' ');
    const child = spawn('script', ['-qfec', `exec ${command}`, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    for (const end = Date.now() + 20_000; !/ready/.test(output) && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(output).toMatch(/group \d+ tty true/);
    process.kill(-Number(/group (\d+)/.exec(output)![1]), 'SIGHUP');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    for (const end = Date.now() + 2000; !fs.existsSync(out) && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(output).toContain('hup 1');
    expect(output).not.toContain('hup 2');
    expect(JSON.parse(fs.readFileSync(out, 'utf8')).samples.length).toBeGreaterThan(0);
  });

  test('jsprof killed with SIGKILL: the program is asked to end (SIGTERM) and jsprof leaves no scratch files', async () => {
    const out = path.join(tempDir(), 'trace.json');
    const scratch = tempDir(); // jsprof's TMPDIR
    const run = start(`process.on('SIGTERM', () => { console.log('asked to end'); process.exit(0); });
console.log('pid ' + process.pid);
${BUSY}`, out, { TMPDIR: scratch });
    await run.ready;
    expect(fs.readdirSync(scratch)).toEqual([expect.stringMatching(/^jsprof-run-/)]);
    const pid = Number(/pid (\d+)/.exec(run.stdout())![1]);
    run.child.kill('SIGKILL');
    await run.exited;
    const alive = () => {
      try {
        return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); // a zombie has ended
      } catch {
        return false;
      }
    };
    for (const end = Date.now() + 5000; (alive() || !run.stdout().includes('asked to end')) && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 50));
    const orphaned = alive();
    if (orphaned) process.kill(pid, 'SIGKILL'); // not left running when this fails
    expect(orphaned).toBe(false);
    expect(run.stdout()).toContain('asked to end');
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(scratch)).toEqual([]);
  });

  test('SIGTERM sent to the program itself, not to jsprof: it ends as it would have, the trace written, jsprof exits 143', async () => {
    const out = path.join(tempDir(), 'trace.json');
    const run = start(`console.log('pid ' + process.pid);\n${BUSY}`, out);
    await run.ready;
    process.kill(Number(/pid (\d+)/.exec(run.stdout())![1]), 'SIGTERM');
    expect((await run.exited).status).toBe(128 + 15);
    expect(JSON.parse(fs.readFileSync(out, 'utf8')).samples.length).toBeGreaterThan(0);
  });

  test('a program killed with SIGKILL makes jsprof exit 137, as a shell reports it', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'killed.js'), 'process.kill(process.pid, "SIGKILL");\n');
    expect(jsprof(['run', '-o', path.join(dir, 't.json'), path.join(dir, 'killed.js')]).status).toBe(137);
  });
});
