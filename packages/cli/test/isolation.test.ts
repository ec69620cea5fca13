/**
 * Inside a program, jsprof's hooks instrument with a private bundle (dist/instrumenter.bundle.js)
 * and never load a package from the program's node_modules: not the program's copies of tools
 * (which may be other versions), and not one the program has half loaded (the webpack + Babel crash,
 * `browserslist.loadConfig is not a function`, on a second run).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { summarize } from '@jsprof/trace-tools';
import { ROOT, jsprof, tempDir } from './helpers';

/** What jsprof used to load in the program's process, or could: each one a trap in the project below. */
const TOOLS = ['acorn', 'magic-string', '@babel/core', '@jridgewell/trace-mapping', '@jridgewell/remapping', '@jridgewell/sourcemap-codec', 'browserslist'];

/** Packages resolved from the workspace, as if installed in the program's project. */
const NODE_PATH = path.join(ROOT, 'node_modules');

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/**
 * A project with jsprof installed in its node_modules (the packages the program's process loads,
 * copied; the rest through NODE_PATH) beside a trap for each tool, which logs who loaded it and throws.
 */
function trappedProject(): { dir: string; trapLog: string } {
  const dir = tempDir('jsprof-project-');
  for (const name of ['cli', 'runtime', 'policy']) {
    fs.cpSync(path.join(ROOT, 'packages', name), path.join(dir, 'node_modules/@jsprof', name), {
      recursive: true,
      filter: (from) => !/[\\/](src|test|node_modules)$|tsconfig/.test(from),
    });
  }
  for (const tool of TOOLS) {
    const at = path.join(dir, 'node_modules', tool);
    write(path.join(at, 'package.json'), JSON.stringify({ name: tool, version: '99.0.0', main: 'index.js' }));
    write(
      path.join(at, 'index.js'),
      `require('fs').appendFileSync(process.env.TRAP_LOG, ${JSON.stringify(tool)} + ' loaded\\n' + new Error().stack + '\\n');\n` +
        `throw new Error('the project’s own ${tool} was loaded');\n`,
    );
  }
  // An ES module (the load hook) calling into CommonJS (the require hook).
  write(
    path.join(dir, 'app.mjs'),
    `import { countPrimes } from './primes.cjs';\n` +
      `function busy(ms) {\n  const end = Date.now() + ms;\n  let found = 0;\n  while (Date.now() < end) found += countPrimes(3000);\n  return found;\n}\n` +
      `console.log(JSON.stringify({ ok: busy(400) > 0 }));\n`,
  );
  write(
    path.join(dir, 'primes.cjs'),
    `exports.countPrimes = function countPrimes(limit) {\n  let count = 0;\n  for (let n = 2; n < limit; n++) {\n    let prime = true;\n` +
      `    for (let d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break; }\n    if (prime) count++;\n  }\n  return count;\n};\n`,
  );
  return { dir, trapLog: path.join(dir, 'traps.log') };
}

describe('jsprof installed in a project that has its own tools', () => {
  const { dir, trapLog } = trappedProject();
  const bin = path.join(dir, 'node_modules/@jsprof/cli/bin/jsprof.js');
  const cache = path.join(dir, 'node_modules/.cache/jsprof');

  const runOnce = (out: string) => {
    const run = jsprof(['run', '-q', '--out', out, 'app.mjs'], { cwd: dir, bin, env: { NODE_PATH, TRAP_LOG: trapLog } });
    const trace = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : null;
    return { run, trace };
  };

  test.each(['cold', 'warm'])('profiles the program with a %s cache and never loads the project’s acorn, magic-string, Babel…', (kind) => {
    const entriesBefore = fs.existsSync(cache) ? fs.readdirSync(cache).sort() : [];
    const { run, trace } = runOnce(path.join(dir, `${kind}.json`));
    expect(fs.existsSync(trapLog) ? fs.readFileSync(trapLog, 'utf8') : '').toBe('');
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain('{"ok":true}');

    const summary = summarize(trace);
    const busy = summary.functions.find((f) => f.name === 'busy' && f.resource === pathToFileURL(path.join(dir, 'app.mjs')).href);
    const countPrimes = summary.functions.find((f) => f.name === 'countPrimes' && f.resource === pathToFileURL(path.join(dir, 'primes.cjs')).href);
    expect(busy?.total).toBeGreaterThan(0.5 * summary.busy);
    expect(countPrimes?.total).toBeGreaterThan(0);

    // The cold run filled the project's cache; the warm one only read it.
    const entries = fs.readdirSync(cache).sort();
    expect(entries.filter((e) => e.endsWith('.meta.json'))).toHaveLength(2);
    if (kind === 'warm') expect(entries).toEqual(entriesBefore);
  });
});

describe('a program that uses the same tools as jsprof used to', () => {
  test('Babel: the program’s own copy is instrumented and profiled, cold and warm', () => {
    const dir = tempDir();
    // Babel resolving its `targets` loads browserslist, the module webpack found half loaded.
    write(
      path.join(dir, 'compile.js'),
      `const babel = require('@babel/core');\n` +
        `const plugin = require.resolve('@babel/plugin-transform-modules-commonjs');\n` +
        `let code = '';\n` +
        `for (let i = 0; i < 40; i++) {\n` +
        `  code = babel.transformSync('export const f' + i + ' = (a, ...b) => a ?? b.map((x) => x ** 2);', { babelrc: false, configFile: false, targets: 'chrome 60', plugins: [plugin] }).code;\n` +
        `}\n` +
        `console.log(JSON.stringify({ code }));\n`,
    );
    for (const kind of ['cold', 'warm']) {
      const out = path.join(dir, `${kind}.json`);
      const run = jsprof(['run', '-q', '--out', out, 'compile.js'], { cwd: dir, env: { NODE_PATH, JSPROF_CACHE_DIR: path.join(dir, 'cache') } });
      expect([kind, run.status, run.stderr]).toEqual([kind, 0, '']);
      const result = JSON.parse(run.stdout);
      expect(result.code).toContain('exports.f39 = f39');
      const trace = JSON.parse(fs.readFileSync(out, 'utf8'));
      expect(trace.resources.some((url: string) => url.includes('/node_modules/@babel/core/'))).toBe(true);
    }
  });

  test('webpack, which loads browserslist, builds cold and warm', () => {
    const dir = tempDir();
    write(path.join(dir, 'entry.js'), 'export const answer = () => 42;\n');
    write(
      path.join(dir, 'build.js'),
      `const webpack = require('webpack');\n` +
        `webpack({ mode: 'development', devtool: false, context: __dirname, entry: './entry.js', output: { path: __dirname + '/out', filename: 'bundle.js' } }, (error, stats) => {\n` +
        `  if (error || stats.hasErrors()) throw error || new Error(stats.toString());\n` +
        `  console.log(require('fs').readFileSync(__dirname + '/out/bundle.js', 'utf8').includes('() => 42') ? 'built' : 'wrong');\n` +
        `});\n`,
    );
    for (const kind of ['cold', 'warm']) {
      const run = jsprof(['run', '-q', '--out', path.join(dir, `${kind}.json`), 'build.js'], { cwd: dir, env: { NODE_PATH, JSPROF_CACHE_DIR: path.join(dir, 'cache') } });
      expect([kind, run.status, run.stderr, run.stdout]).toEqual([kind, 0, '', 'built\n']);
    }
  });
});
