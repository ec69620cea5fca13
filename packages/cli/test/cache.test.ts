/**
 * The cache of instrumented modules: kept within its bound (least recently used entries go first),
 * `jsprof cache info` and `jsprof cache clear`, and the progress line a cold cache shows on a terminal.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, ROOT, jsprof, tempDir } from './helpers';

const SETS = 4;
const MODULES_PER_SET = 5;

/**
 * A program that loads one of SETS sets of modules (`node app.js <set>`), each module a few
 * kilobytes of functions with loops (so each gets checks and a source map).
 */
function programWithModuleSets(): string {
  const dir = tempDir();
  for (let set = 0; set < SETS; set++) {
    for (let i = 0; i < MODULES_PER_SET; i++) {
      const functions = Array.from({ length: 40 }, (_, k) => `exports.f${k} = function f${k}(n) {\n  let sum = ${set * 1000 + i * 100 + k};\n  for (let j = 0; j < n; j++) sum += j;\n  return sum;\n};\n`);
      fs.writeFileSync(path.join(dir, `m${set}-${i}.js`), functions.join(''));
    }
  }
  fs.writeFileSync(
    path.join(dir, 'app.js'),
    `let total = 0;\nfor (let i = 0; i < ${MODULES_PER_SET}; i++) total += require('./m' + process.argv[2] + '-' + i + '.js').f0(10);\nconsole.log('total ' + total);\n`,
  );
  return dir;
}

/** The cache's entries (keys of meta files) and the bytes of all its files. */
function cacheFiles(dir: string): { keys: string[]; bytes: number } {
  const names = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  return {
    keys: names.filter((n) => n.endsWith('.meta.json')).map((n) => n.slice(0, -'.meta.json'.length)).sort(),
    bytes: names.reduce((sum, n) => sum + fs.statSync(path.join(dir, n)).size, 0),
  };
}

describe('the cache’s bound', () => {
  const dir = programWithModuleSets();
  const runSet = (set: number, cache: string, env: Record<string, string> = {}) => {
    const run = jsprof(['run', '-q', '--out', path.join(dir, 'trace.json'), 'app.js', String(set)], { cwd: dir, env: { JSPROF_CACHE_DIR: cache, ...env } });
    expect([run.status, run.stderr]).toEqual([0, '']);
  };

  test('is never exceeded after a run, and the least recently used modules go first', () => {
    // Unbounded, all sets: how much they take, and which entries each set adds (the first also app.js).
    const full = path.join(dir, 'full');
    const setKeys: string[][] = [];
    for (let set = 0; set < SETS; set++) {
      const before = cacheFiles(full).keys;
      runSet(set, full);
      setKeys.push(cacheFiles(full).keys.filter((key) => !before.includes(key)));
    }
    expect(setKeys.map((keys) => keys.length)).toEqual([MODULES_PER_SET + 1, ...Array(SETS - 1).fill(MODULES_PER_SET)]);
    const appKey = setKeys[0].find((key) => fs.readFileSync(path.join(full, `${key}.js`), 'utf8').includes('process.argv'))!;

    // Bounded to what app.js and the last two sets take: never room for all. Entries are the same
    // wherever the cache is, and every run uses app.js.
    const bytesOf = (keys: string[]) => keys.reduce((sum, key) => sum + fs.statSync(path.join(full, `${key}.js`)).size + fs.statSync(path.join(full, `${key}.meta.json`)).size, 0);
    const bound = bytesOf([appKey, ...setKeys[SETS - 2], ...setKeys[SETS - 1]]);
    expect(bound).toBeLessThan(cacheFiles(full).bytes);
    const env = { JSPROF_CACHE_MAX_MB: String(bound / (1024 * 1024)) };
    const cache = path.join(dir, 'bounded');
    const expectKept = (sets: number[], gone: number[]) => {
      const { keys, bytes } = cacheFiles(cache);
      expect(bytes).toBeLessThanOrEqual(bound);
      expect(keys).toContain(appKey);
      for (const set of sets) expect(keys).toEqual(expect.arrayContaining(setKeys[set]));
      for (const set of gone) for (const key of setKeys[set]) if (key !== appKey) expect(keys).not.toContain(key);
    };
    for (let set = 0; set < SETS; set++) {
      runSet(set, cache, env);
      expectKept([set], []);
    }
    expectKept([2, 3], [0, 1]);

    // Using set 2 again makes it more recent than set 3: the next new set (0, no larger) pushes set 3 out.
    const beforeReuse = cacheFiles(cache).keys;
    runSet(2, cache, env);
    expect(cacheFiles(cache).keys).toEqual(beforeReuse);
    runSet(0, cache, env);
    expectKept([0, 2], [3]);
  });

  test('0 keeps nothing after the run', () => {
    const cache = path.join(dir, 'none');
    runSet(1, cache, { JSPROF_CACHE_MAX_MB: '0' });
    expect(cacheFiles(cache)).toEqual({ keys: [], bytes: 0 });
  });
});

describe('jsprof cache info and clear', () => {
  const dir = programWithModuleSets();
  const cache = path.join(dir, 'cache');
  const env = { JSPROF_CACHE_DIR: cache };
  const info = (extra: Record<string, string> = {}) => {
    const result = jsprof(['cache', 'info'], { cwd: dir, env: { ...env, ...extra } });
    expect([result.status, result.stderr]).toEqual([0, '']);
    return result.stdout;
  };

  test('info on a cache not made yet', () => {
    expect(info()).toBe(`location  ${cache}\nentries   0 modules\nsize      0.0 KB\nbound     200.0 MB\n`);
  });

  test('info after a run: its modules, their size, the bound from JSPROF_CACHE_MAX_MB', () => {
    const run = jsprof(['run', '-q', '--out', path.join(dir, 'trace.json'), 'app.js', '1'], { cwd: dir, env });
    expect(run.status).toBe(0);
    const { keys, bytes } = cacheFiles(cache);
    expect(keys).toHaveLength(MODULES_PER_SET + 1);
    expect(info({ JSPROF_CACHE_MAX_MB: '1.5' })).toBe(
      `location  ${cache}\nentries   ${keys.length} modules\nsize      ${(bytes / 1024).toFixed(1)} KB\nbound     1.5 MB\n`,
    );
    expect(info({ JSPROF_CACHE_MAX_MB: 'lots' })).toContain('bound     200.0 MB (JSPROF_CACHE_MAX_MB=lots is not a number ≥ 0, so the default)');
  });

  test('clear removes the cached modules and nothing else', () => {
    fs.writeFileSync(path.join(cache, 'notes.txt'), 'not jsprof’s');
    const { keys } = cacheFiles(cache);
    const cleared = jsprof(['cache', 'clear'], { cwd: dir, env });
    expect([cleared.status, cleared.stderr]).toEqual([0, '']);
    expect(cleared.stdout).toMatch(new RegExp(`^jsprof: removed ${keys.length} cached modules \\(\\d+\\.\\d KB\\) from ${cache}\\n$`));
    expect(fs.readdirSync(cache)).toEqual(['notes.txt']);
    expect(info()).toContain('entries   0 modules');

    // An emptied cache directory goes too; clearing again is harmless.
    fs.rmSync(path.join(cache, 'notes.txt'));
    jsprof(['run', '-q', '--out', path.join(dir, 'trace.json'), 'app.js', '2'], { cwd: dir, env });
    expect(jsprof(['cache', 'clear'], { cwd: dir, env }).status).toBe(0);
    expect(fs.existsSync(cache)).toBe(false);
    expect(jsprof(['cache', 'clear'], { cwd: dir, env }).stdout).toBe(`jsprof: removed 0 cached modules (0.0 KB) from ${cache}\n`);
  });

  test('a JSPROF_CACHE_DIR that is a file: info and clear both say so (exit status 1), and clear claims no removal', () => {
    const file = path.join(dir, 'not-a-cache.txt');
    fs.writeFileSync(file, 'a file');
    for (const command of ['info', 'clear']) {
      const result = jsprof(['cache', command], { cwd: dir, env: { JSPROF_CACHE_DIR: file } });
      expect([command, result.status, result.stdout, result.stderr]).toEqual([command, 1, '', `jsprof: ${file} (JSPROF_CACHE_DIR): not a directory\n`]);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('a file');
  });

  test('the default location is node_modules/.cache/jsprof where the program starts, if node_modules exists', () => {
    const project = tempDir();
    fs.mkdirSync(path.join(project, 'node_modules'));
    const result = jsprof(['cache', 'info'], { cwd: project, env: { JSPROF_CACHE_DIR: '' } });
    expect(result.stdout).toContain(`location  ${path.join(fs.realpathSync(project), 'node_modules/.cache/jsprof')}\n`);
  });

  test('--help lists the cache commands and says where the cache is', () => {
    expect(jsprof(['--help']).stdout).toMatch(/\n\s+cache \[info\|clear\]\s+Show or clear the cache/);
    const help = jsprof(['cache', '--help']).stdout;
    for (const text of ['info', 'clear', 'JSPROF_CACHE_DIR', 'JSPROF_CACHE_MAX_MB', 'node_modules/.cache/jsprof']) expect(help).toContain(text);
  });

  test('cache without info or clear, or with another word, is bad usage (2), as query is', () => {
    for (const args of [['cache'], ['cache', 'bogus']]) {
      const run = jsprof(args);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^jsprof: (which\? |no cache command "bogus"; )info or clear\nUsage: jsprof cache <info\|clear>/);
    }
  });
});

describe('progress on a terminal', () => {
  const PROGRESS = /\r\x1b\[Kjsprof: instrumenting module (\d+) \(\d+\.\d s so far; cached for the next run\)\r\x1b\[K/g;

  /** Runs a command with a pseudo-terminal for stdin, stdout and stderr (util-linux `script`); returns what it showed. */
  function onTerminal(args: string[], cwd: string, env: Record<string, string>): string {
    const command = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const result = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    expect([result.status, result.stderr]).toEqual([0, '']);
    return result.stdout;
  }

  const dir = programWithModuleSets();
  const env = { JSPROF_CACHE_DIR: path.join(dir, 'cache') };

  test('jsprof run shows each cold module in one line, erased before the program goes on; nothing when warm', () => {
    const run = ['run', '-q', '--out', path.join(dir, 'trace.json'), 'app.js', '0'];
    const cold = onTerminal([process.execPath, BIN, ...run], dir, env);
    const shown = [...cold.matchAll(PROGRESS)].map((m) => Number(m[1]));
    expect(shown).toEqual(Array.from({ length: MODULES_PER_SET + 1 }, (_, i) => i + 1));
    // Everything else on the terminal is the program's own output.
    expect(cold.replace(PROGRESS, '')).toBe('total 1225\r\n');

    const warm = onTerminal([process.execPath, BIN, ...run], dir, env);
    expect(warm).toBe('total 1225\r\n');
  });

  test('the register hook shows it too, for ES modules (the hooks thread) as for CommonJS', () => {
    fs.writeFileSync(path.join(dir, 'main.mjs'), `import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nconsole.log('f1 ' + require('./m3-0.js').f1(3));\n`);
    const register = pathToFileURL(path.join(ROOT, 'packages/cli/dist/register.js')).href;
    const shown = onTerminal([process.execPath, '--import', register, 'main.mjs'], dir, env);
    expect([...shown.matchAll(PROGRESS)].map((m) => Number(m[1]))).toEqual([1, 2]);
    expect(shown.replace(PROGRESS, '')).toBe('f1 3004\r\n');
  });

  test('nothing is shown when stderr is not a terminal', () => {
    const run = jsprof(['run', '-q', '--out', path.join(dir, 'trace.json'), 'app.js', '1'], { cwd: dir, env });
    expect([run.status, run.stderr]).toEqual([0, '']);
  });
});

test('jsprof without a command, or help for one that is not there, is bad usage (2): the help on stderr; help asked for is 0', () => {
  for (const args of [[], ['help', 'reprot']]) {
    const run = jsprof(args);
    expect([args, run.status, run.stdout]).toEqual([args, 2, '']);
    expect(run.stderr).toMatch(/^Usage: jsprof \[options\] \[command\]\n/);
  }
  for (const args of [['help'], ['--help'], ['help', 'report'], ['report', '--help']]) {
    const run = jsprof(args);
    expect([args, run.status, run.stderr]).toEqual([args, 0, '']);
    expect(run.stdout).toMatch(/^Usage: jsprof /);
  }
});
