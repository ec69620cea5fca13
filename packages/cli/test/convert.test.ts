/**
 * `jsprof convert`: a trace from `jsprof run` converted, then loaded by the tools' own import code —
 * Chrome DevTools' front end as Chromium bundles it (the JavaScript Profiler's CPUProfileDataModel,
 * and the Performance panel's trace engine) and the speedscope app from its npm package, both in
 * headless Chromium — with the self and total shares `summarize` gives the trace.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { sampleInterval, summarize } from '@jsprof/trace-tools';
import type { ProfilerTrace } from '@jsprof/runtime';
import { Shares, cpuProfileShares, expectCpuProfileInvariants, functionKey, schemaProblems, treeShares } from '../../trace-tools/test/profile-checks';
import { BIN, deepTrace, jsprof, tempDir } from './helpers';
const { launchChromium }: { launchChromium: () => Promise<Browser> } = require('../../../fixtures/chromium');

const SPEEDSCOPE_DIR = path.join(path.dirname(require.resolve('speedscope/package.json')), 'dist/release');

/** Recursion, a built-in calling back (map), anonymous functions, and idle time between two bursts. */
const PROGRAM = `'use strict';
function fib(n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}
function spin(ms) {
  const end = Date.now() + ms;
  let count = 0;
  while (Date.now() < end) count += [18, 19].map((n) => fib(n) + n).length;
  return count;
}
spin(150);
setTimeout(() => spin(100), 100);
`;

const dir = tempDir('jsprof-convert-');
const traceFile = path.join(dir, 'trace.json');
let trace: ProfilerTrace;
let expected: Shares;
let browser: Browser;

/** Self and total shares of the non-idle samples, by function, as `jsprof run`'s report computes them. */
function summaryShares(): Shares {
  const summary = summarize(trace);
  const shares: Shares = { self: new Map(), total: new Map() };
  for (const f of summary.functions.filter((f) => f.total > 0)) {
    const key = functionKey(f.name, f.resource ?? '', f.line ?? 0, f.column ?? 0);
    shares.self.set(key, f.self / summary.busy);
    shares.total.set(key, f.total / summary.busy);
  }
  return shares;
}

function expectSameShares(actual: Shares) {
  for (const kind of ['self', 'total'] as const) {
    expect([...actual[kind].keys()].sort()).toEqual([...expected[kind].keys()].sort());
    for (const [key, share] of expected[kind]) expect([kind, key, actual[kind].get(key)]).toEqual([kind, key, expect.closeTo(share, 9)]);
  }
}

beforeAll(async () => {
  fs.writeFileSync(path.join(dir, 'program.js'), PROGRAM);
  const run = jsprof(['run', '-q', '--threshold', '0', '--out', traceFile, 'program.js'], { cwd: dir, env: { JSPROF_CACHE_DIR: path.join(dir, 'cache') } });
  expect(run.stderr).toBe('');
  trace = JSON.parse(fs.readFileSync(traceFile, 'utf8'));
  expected = summaryShares();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the trace has what the conversions must carry: recursion, a built-in, anonymous functions, idle samples', () => {
  const names = trace.frames.map((f) => f.name);
  expect(names).toEqual(expect.arrayContaining(['fib', 'spin', 'map', '']));
  expect(trace.frames.find((f) => f.name === 'map')).toEqual({ name: 'map' });
  expect(trace.stacks.some((s) => s.parentId !== undefined && trace.frames[trace.stacks[s.parentId].frameId].name === 'fib' && trace.frames[s.frameId].name === 'fib')).toBe(true);
  expect(trace.samples.some((s) => s.stackId === undefined)).toBe(true);
});

describe('--to cpuprofile', () => {
  const out = path.join(dir, 'trace.cpuprofile');
  let profile: any;

  beforeAll(() => {
    const result = jsprof(['convert', traceFile, '--to', 'cpuprofile']);
    expect([result.status, result.stdout, result.stderr]).toEqual([0, '', `jsprof: wrote ${out}\n`]);
    profile = JSON.parse(fs.readFileSync(out, 'utf8'));
  });

  test('writes <trace>.cpuprofile next to the trace, keeping what DevTools relies on, with the shares of summarize', () => {
    expectCpuProfileInvariants(profile);
    expect(profile.samples).toHaveLength(trace.samples.length);
    expectSameShares(cpuProfileShares(profile));
  });

  test("loads in DevTools' own import code, with the shares of summarize", async () => {
    const page = await browser.newPage();
    try {
      const devtools = await loadInDevTools(page, profile);
      const shares = (tree: DevToolsNode) =>
        treeShares(tree, (n) => n.children, ({ callFrame: c }) => functionKey(c.functionName, c.url, c.lineNumber + 1, c.columnNumber + 1), (n) => n.self);
      expect(devtools.javaScriptProfiler.samples).toBe(trace.samples.length);
      expect(devtools.javaScriptProfiler.idleSamples).toBe(trace.samples.filter((s) => s.stackId === undefined).length);
      expectSameShares(shares(devtools.javaScriptProfiler.tree));
      expect(devtools.performance).toHaveLength(1);
      expectSameShares(shares(devtools.performance[0].tree));
      expect(devtools.performance[0].calls).toEqual(expect.arrayContaining(['fib', 'spin', 'map']));
    } finally {
      await page.close();
    }
  });
});

describe('--to speedscope', () => {
  let text: string;

  beforeAll(() => {
    const result = jsprof(['convert', traceFile, '--to', 'speedscope', '-o', '-']);
    expect([result.status, result.stderr]).toEqual([0, '']);
    text = result.stdout;
  });

  test("writes to stdout with -o -, in speedscope's file format", () => {
    expect(schemaProblems(JSON.parse(text), path.join(SPEEDSCOPE_DIR, 'file-format-schema.json'))).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'trace.speedscope.json'))).toBe(false);
  });

  test('loads in the speedscope app, which shows each function with its time from the trace', async () => {
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('dialog', (dialog) => failures.push(dialog.message()) && dialog.dismiss());
    const server = await serve({ '/trace.json': text });
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await page.goto(`${origin}/#profileURL=${encodeURIComponent(`${origin}/trace.json`)}&view=sandwich`);
      await page.waitForFunction(() => document.title === 'trace.json - speedscope' && document.body.innerText.includes('(idle)'));
      const body = await page.evaluate(() => document.body.innerText);
      expect(body).not.toContain('Something went wrong');
      expect(failures).toEqual([]);

      // The sandwich view's table: total and self time of every function, each sample weighing the trace's interval.
      const shown = new Map([...body.matchAll(/^(\S+) \(.*\)\n\t(\S+) \(.*\)\n\t(.+)$/gm)].map(([, total, self, name]) => [name, { total, self }]));
      // speedscope's TimeFormatter: seconds from 1 s, milliseconds below (and m:ss from a minute)
      const interval = sampleInterval(trace);
      const ms = (samples: number) => {
        const time = samples * interval;
        return time >= 1000 ? `${(time / 1000).toFixed(2)}s` : samples ? `${time.toFixed(2)}ms` : '0.00ns';
      };
      const summary = summarize(trace);
      for (const name of ['fib', 'spin', 'map']) {
        const f = summary.functions.find((f) => f.name === name)!;
        expect([name, shown.get(name)]).toEqual([name, { total: ms(f.total), self: ms(f.self) }]);
      }
      const idle = ms(summary.samples - summary.busy);
      expect(shown.get('(idle)')).toEqual({ total: idle, self: idle });
    } finally {
      server.close();
      await page.close();
    }
  });
});

describe('inputs and output names', () => {
  test('reads gzip and {meta, trace} documents, and names the output after the trace without .json.gz', () => {
    const gz = path.join(dir, 'field.json.gz');
    fs.writeFileSync(gz, zlib.gzipSync(JSON.stringify({ meta: { page: '/' }, trace })));
    const result = jsprof(['convert', gz, '--to', 'speedscope']);
    expect(result.status).toBe(0);
    const converted = JSON.parse(fs.readFileSync(path.join(dir, 'field.speedscope.json'), 'utf8'));
    expect(converted.name).toBe('field.json.gz');
    expect(converted.profiles[0].samples).toEqual(JSON.parse(jsprof(['convert', traceFile, '--to', 'speedscope', '-o', '-']).stdout).profiles[0].samples);
  });

  test('without --to, a CPU profile beside the trace; symbolicate writes beside it too, as every command that makes a file does', () => {
    const copy = path.join(dir, 'defaults.json');
    fs.copyFileSync(traceFile, copy);
    const converted = jsprof(['convert', copy]);
    expect([converted.status, converted.stderr]).toEqual([0, `jsprof: wrote ${path.join(dir, 'defaults.cpuprofile')}\n`]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'defaults.cpuprofile'), 'utf8')).nodes.length).toBeGreaterThan(1);
    const symbolicated = jsprof(['symbolicate', copy, '--source-maps', dir]);
    expect(symbolicated.status).toBe(0);
    expect(symbolicated.stdout).toBe('');
    expect(symbolicated.stderr).toContain(`jsprof: wrote ${path.join(dir, 'defaults.symbolicated.json')}\n`);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'defaults.symbolicated.json'), 'utf8')).samples).toEqual(trace.samples);
  });

  test('a speedscope file larger than a string may hold (every sample repeats its stack) is written whole', () => {
    // 40,000 samples 3,000 frames deep: a 2 MB trace, whose speedscope file repeats [0,1,…,2999] for each.
    const depth = 3000;
    const deep = path.join(dir, 'deep-stacks.json');
    fs.writeFileSync(deep, JSON.stringify(deepTrace(depth, 40_000)));
    const out = path.join(dir, 'deep-stacks.speedscope.json');
    try {
      const result = jsprof(['convert', deep, '--to', 'speedscope', '-o', out]);
      expect([result.status, result.stderr]).toEqual([0, `jsprof: wrote ${out}\n`]);
      const stack = JSON.stringify(Array.from({ length: depth }, (_, i) => i));
      const size = fs.statSync(out).size;
      expect(size).toBeGreaterThan(require('node:buffer').constants.MAX_STRING_LENGTH);
      const read = (from: number, length: number) => {
        const bytes = Buffer.alloc(length);
        const fd = fs.openSync(out, 'r');
        fs.readSync(fd, bytes, 0, length, from);
        fs.closeSync(fd);
        return bytes.toString('utf8');
      };
      const start = '{"$schema":"https://www.speedscope.app/file-format-schema.json"';
      expect(read(0, start.length)).toBe(start);
      const samplesAt = read(0, 200_000).indexOf('"samples":[') + '"samples":['.length;
      expect(read(samplesAt, 2 * stack.length + 1)).toBe(`${stack},${stack}`);
      const end = ',10,10,10,10,10]}]}';
      expect(read(size - end.length, end.length)).toBe(end);
    } finally {
      fs.rmSync(out, { force: true });
    }
  });

  test('-o - into a reader that stops early ends quietly', () => {
    const long = path.join(dir, 'long.json');
    const samples = Array.from({ length: 20_000 }, (_, i) => ({ timestamp: i * 10, stackId: trace.samples[i % trace.samples.length].stackId }));
    fs.writeFileSync(long, JSON.stringify({ ...trace, samples }));
    const command = `set -o pipefail; ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} convert ${JSON.stringify(long)} --to speedscope -o - | head -c 10`;
    const result = spawnSync('bash', ['-c', command], { encoding: 'utf8' });
    expect([result.status, result.stdout, result.stderr]).toEqual([0, '{"$schema"', '']);
  });

  test('--help says where each format opens and what the default output is', () => {
    // As one line: commander wraps the options' text to the terminal's width.
    const help = jsprof(['convert', '--help']).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--to <format>');
    expect(help).toContain('(choices: "cpuprofile", "speedscope", default: "cpuprofile")');
    expect(help).toContain("default: the trace's name with .json (and .gz) replaced by .cpuprofile or .speedscope.json");
    expect(help).toContain('Chrome DevTools');
  });
});

describe('errors: one line, exit status 1 (2 for bad usage), nothing written; outputs', () => {
  const bad = path.join(dir, 'bad');

  beforeAll(() => {
    fs.mkdirSync(bad);
    fs.writeFileSync(path.join(bad, 'malformed.json'), '{"resources": [], "frames": [], "stacks": [{"frameId": 3}], "samples": []}');
    fs.writeFileSync(path.join(bad, 'truncated.json'), JSON.stringify(trace).slice(0, 200));
    fs.writeFileSync(path.join(bad, 'empty-trace.json'), JSON.stringify({ resources: [], frames: [], stacks: [], samples: [] }));
    fs.writeFileSync(path.join(bad, 'far-future.json'), '{"resources":[],"frames":[{"name":"f"}],"stacks":[{"frameId":0}],"samples":[{"timestamp":1e308,"stackId":0}]}');
  });

  test.each([
    ['an unknown --to', [traceFile, '--to', 'pprof', '-o', path.join(bad, 'out')], /^error: option '--to <format>' argument 'pprof' is invalid\. Allowed choices are cpuprofile, speedscope\.\n\(add --help for usage\)\n$/],
    ['a missing file', [path.join(bad, 'missing.json'), '--to', 'cpuprofile'], /^jsprof: .*missing\.json: no such file\n$/],
    ['a malformed trace', [path.join(bad, 'malformed.json'), '--to', 'cpuprofile'], /^jsprof: .*malformed\.json: stacks\[0\]\.frameId 3 is not an index into frames \(0 of them\)\n$/],
    ['a truncated file', [path.join(bad, 'truncated.json'), '--to', 'speedscope'], /^jsprof: .*truncated\.json: is not JSON \(.*\)\n$/],
    ['a trace without samples', [path.join(bad, 'empty-trace.json'), '--to', 'speedscope'], /^jsprof: .*empty-trace\.json: the trace has no samples; there is nothing to convert\n$/],
    ['a timestamp no clock gives (it was written as null)', [path.join(bad, 'far-future.json'), '--to', 'cpuprofile'], /^jsprof: .*far-future\.json: samples\[0\]\.timestamp 1e\+308 is beyond .*\n$/],
  ])('%s', (_, args, message) => {
    const before = fs.readdirSync(bad).sort();
    const result = jsprof(['convert', ...args]);
    expect([result.status, result.stdout]).toEqual([args.includes('pprof') ? 2 : 1, '']);
    expect(result.stderr).toMatch(message);
    expect(fs.readdirSync(bad).sort()).toEqual(before);
  });

  test('an output that cannot be written leaves no temporary file', () => {
    const target = path.join(bad, 'a-directory');
    fs.mkdirSync(target);
    const result = jsprof(['convert', traceFile, '--to', 'cpuprofile', '-o', target]);
    expect([result.status, result.stderr]).toEqual([2, `jsprof: will not write ${target}: it is a directory\n`]);
    expect(fs.readdirSync(bad).sort()).toEqual(['a-directory', 'empty-trace.json', 'far-future.json', 'malformed.json', 'truncated.json']);
    expect(fs.readdirSync(target)).toEqual([]);
  });

  test('an output that is a symlink is written through, the link kept', () => {
    const file = path.join(dir, 'real.cpuprofile');
    const link = path.join(dir, 'link.cpuprofile');
    fs.writeFileSync(file, '');
    fs.symlinkSync(file, link);
    expect(jsprof(['convert', traceFile, '--to', 'cpuprofile', '-o', link]).status).toBe(0);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).samples).toHaveLength(trace.samples.length);

    // A link to a file not there yet (relative, through a second link): the file is made, the links kept.
    const later = path.join(dir, 'profiles', 'later.cpuprofile');
    fs.symlinkSync(path.join('profiles', 'later.cpuprofile'), path.join(dir, 'hop.cpuprofile'));
    fs.symlinkSync('hop.cpuprofile', path.join(dir, 'dangling.cpuprofile'));
    expect(jsprof(['convert', traceFile, '-o', path.join(dir, 'dangling.cpuprofile')]).status).toBe(0);
    for (const name of ['dangling.cpuprofile', 'hop.cpuprofile']) expect([name, fs.lstatSync(path.join(dir, name)).isSymbolicLink()]).toEqual([name, true]);
    expect(JSON.parse(fs.readFileSync(later, 'utf8')).samples).toHaveLength(trace.samples.length);
  });
});

interface DevToolsNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  self: number;
  children: DevToolsNode[];
}

/**
 * Runs DevTools' own import code on a profile: the front end Chromium bundles, imported from a page
 * of its devtools:// origin. The JavaScript Profiler panel builds a CPUProfileDataModel from the
 * file; the Performance panel makes a trace of it and parses that with its trace engine.
 */
async function loadInDevTools(page: Page, profile: unknown) {
  const MODULES = 'devtools://devtools/bundled/models';
  await page.goto(`${MODULES}/cpu_profile/cpu_profile.js`);
  return page.evaluate(
    async ({ profile, MODULES }) => {
      const CpuProfile = await import(`${MODULES}/cpu_profile/cpu_profile.js`);
      const Trace = await import(`${MODULES}/trace/trace.js`);
      const tree = (node: any): DevToolsNode => ({ callFrame: node.callFrame, self: node.self, children: node.children.map(tree) });

      const model = new CpuProfile.CPUProfileDataModel.CPUProfileDataModel(profile, null);
      const idleId = model.idleNode?.id;
      const javaScriptProfiler = { tree: tree(model.profileHead), samples: model.samples.length, idleSamples: model.samples.filter((id: number) => id === idleId).length };

      const { traceEvents } = Trace.Helpers.SamplesIntegrator.SamplesIntegrator.createFakeTraceFromCpuProfile(profile, Trace.Types.Events.ThreadID(1));
      const engine = Trace.TraceModel.Model.createWithAllHandlers();
      await engine.parse(traceEvents, { isCPUProfile: true });
      const profiles = [...engine.parsedTrace(0).data.Samples.profilesInProcess.values()].flatMap((threads: Map<number, any>) => [...threads.values()]);
      const performance = profiles.map((p: any) => ({ tree: tree(p.parsedProfile.profileHead), calls: [...new Set(p.profileCalls.map((c: any) => c.callFrame.functionName))] }));
      return { javaScriptProfiler, performance };
    },
    { profile, MODULES },
  );
}

/** Serves the speedscope app from its npm package, and `files` beside it, on 127.0.0.1. */
async function serve(files: Record<string, string>): Promise<http.Server> {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm' };
  const server = http.createServer((req, res) => {
    const name = new URL(req.url!, 'http://x').pathname;
    if (files[name] !== undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end(files[name]);
    const file = path.join(SPEEDSCOPE_DIR, name === '/' ? 'index.html' : path.basename(name));
    fs.readFile(file, (error, body) => {
      if (error) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
