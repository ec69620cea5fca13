/**
 * `jsprof query top|flame|diff`: what a store (`jsprof ingest`) says about many traces: the
 * functions that take the time, a merged flame graph, and what changed between two releases.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { ProfilerTrace } from '@jsprof/runtime';
import { htmlReport, printable } from '@jsprof/trace-tools';
import { DiffResult, Filter, FlameGraph, FlameNode, LABELS, Store, TopResult, TopView, diffFunctions, flameGraph, openStore, topFunctions } from '@jsprof/store';
import { checkOutput, writeResult } from '../files';
import { storeHelp } from './ingest';
import { wholeNumber, withSubcommands } from './arguments';

function day(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) throw new InvalidArgumentError('must be a day, YYYY-MM-DD.');
  return value;
}

/** The options every query takes: the store, and which traces. */
function withStoreAndFilter(command: Command, withRelease = true): Command {
  command.requiredOption('--store <store>', storeHelp(false));
  if (withRelease) command.option('--release <release>', 'only traces of this release (meta.release)');
  return command
    .option('--page <page>', 'only traces of this page (meta.page)')
    .option('--browser <browser>', 'only traces of this browser (meta.browser)')
    .option('--from <day>', 'only traces received on this day (YYYY-MM-DD, UTC) or later', day)
    .option('--to <day>', 'only traces received on this day or earlier', day);
}

function filterOf(opts: Filter): Filter {
  const filter: Filter = {};
  for (const key of ['release', 'page', 'browser', 'from', 'to'] as const) if (opts[key] !== undefined) filter[key] = opts[key];
  return filter;
}

async function withStore<T>(target: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(target, { create: false, readOnly: true });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

const ms = (value: number) => (Math.abs(value) >= 10 ? value.toFixed(0) : value.toFixed(1));
const percent = (share: number) => `${(100 * share).toFixed(1)}%`;
const where = (file: string) => printable(file || '(built-in)');

function table(header: string[], rows: string[][], numeric: number): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const format = (r: string[]) => r.map((c, i) => (i < numeric ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [format(header), ...rows.map(format)];
}

function describeTopView(title: string, view: TopView): string[] {
  const heading = `${title}: ${view.traces.toLocaleString('en-US')} traces, ${ms(view.traces ? view.busyMs / view.traces : 0)} ms busy per trace`;
  if (view.busyMs === 0) return [`${heading}; no JavaScript ran`];
  const rows = view.functions.map((f) => [percent(f.self), percent(f.total), ms(f.selfMs / view.traces), ms(f.totalMs / view.traces), percent(f.traces / view.traces), printable(f.name || '(anonymous)'), where(f.file)]);
  return [heading, ...table(['self', 'total', 'self ms/trace', 'total ms/trace', 'traces', 'function', 'file'], rows, 5)];
}

function formatTop(result: TopResult): string {
  const lines = ['Shares of busy time; ms per trace over all the view\'s traces; "traces": share of traces in which the function ran.', ''];
  lines.push(...describeTopView('All traces', result.all));
  for (const group of result.groups) lines.push('', ...describeTopView(printable(`${result.groupBy} = ${group.name}`), group));
  return `${lines.join('\n')}\n`;
}

function formatDiff(result: DiffResult, a: string, b: string): string {
  const side = (name: string, s: DiffResult['a']) => `${printable(name)}: ${s.traces.toLocaleString('en-US')} traces, ${ms(s.busyMsPerTrace)} ms busy per trace`;
  const lines = [
    `${side(`A = release ${a}`, result.a)}; ${side(`B = release ${b}`, result.b)}.`,
    `Self time per trace, B − A; "noise": the standard error of that change between traces; "changed": more than ${result.noiseFactor}× the noise.`,
    '',
  ];
  const rows = result.functions.map((f) => [
    ms(f.a.selfMsPerTrace),
    ms(f.b.selfMsPerTrace),
    `${f.selfMsDelta >= 0 ? '+' : ''}${ms(f.selfMsDelta)}`,
    `±${ms(f.selfMsNoise)}`,
    `${percent(f.a.self)} → ${percent(f.b.self)}`,
    `${f.totalMsDelta >= 0 ? '+' : ''}${ms(f.totalMsDelta)}`,
    f.selfChanged ? 'changed' : f.totalChanged ? 'total changed' : '',
    printable(f.name || '(anonymous)'),
    where(f.file),
  ]);
  lines.push(...table(['A ms', 'B ms', 'change', 'noise', 'self share', 'total change', '', 'function', 'file'], rows, 6));
  return `${lines.join('\n')}\n`;
}

/** Folded stacks ("a;b;c 12.5" per line, self ms), as flamegraph.pl and speedscope read them. */
function foldedStacks(flame: FlameGraph): string {
  const lines: string[] = [];
  const name = (id: string) => printable(flame.functions[id]?.name || '(anonymous)').replace(/[; ]/g, '_');
  const work: [FlameNode, string][] = flame.root.children.map((c) => [c, name(c.functionId)]);
  while (work.length) {
    const [node, path] = work.pop()!;
    if (node.selfMs > 0) lines.push(`${path} ${Number(node.selfMs.toFixed(3))}`);
    for (const child of node.children) work.push([child, `${path};${name(child.functionId)}`]);
  }
  return lines.length ? `${lines.sort().join('\n')}\n` : '';
}

/** Most samples the HTML flame graph's trace is made of: each stands for busy time / this, at least 1 ms. */
const HTML_SAMPLES = 200_000;

/**
 * The flame graph as a trace whose samples stand for equal slices of time, for trace-tools' HTML
 * report; its frames are `functions` (by default the graph's own), so two graphs can share them.
 */
function flameAsTrace(flame: FlameGraph, functions: FlameGraph['functions'] = flame.functions): { trace: ProfilerTrace; sliceMs: number } {
  const sliceMs = Math.max(1, flame.busyMs / HTML_SAMPLES);
  const ids = Object.keys(functions);
  const frameOf = new Map(ids.map((id, i) => [id, i]));
  const files = [...new Set(ids.map((id) => functions[id].file).filter((f) => f !== ''))];
  const resourceOf = new Map(files.map((file, i) => [file, i]));
  const trace: ProfilerTrace = {
    resources: files,
    frames: ids.map((id) => {
      const { name, file } = functions[id];
      return file === '' ? { name } : { name, resourceId: resourceOf.get(file)! };
    }),
    stacks: [],
    samples: [],
  };
  const work: [FlameNode, number | undefined][] = flame.root.children.map((c) => [c, undefined]);
  while (work.length) {
    const [node, parentId] = work.pop()!;
    const frameId = frameOf.get(node.functionId)!;
    const stackId = trace.stacks.push(parentId === undefined ? { frameId } : { parentId, frameId }) - 1;
    for (let i = Math.round(node.selfMs / sliceMs); i > 0; i--) trace.samples.push({ timestamp: trace.samples.length * sliceMs, stackId });
    for (const child of node.children) work.push([child, stackId]);
  }
  return { trace, sliceMs };
}

/** The diff as an HTML page: B's flame graph coloured by the change from A, and the function table. */
function diffHtml(result: DiffResult, a: string, b: string, flameA: FlameGraph, flameB: FlameGraph, filter: Filter): string {
  const functions = { ...flameA.functions, ...flameB.functions };
  const [traceA, traceB] = [flameAsTrace(flameA, functions), flameAsTrace(flameB, functions)];
  const meta = { A: `release ${a}, ${flameA.traces} traces`, B: `release ${b}, ${flameB.traces} traces`, ...filter };
  return htmlReport({ trace: traceB.trace, meta }, `jsprof query diff ${a} ${b}`, {
    baselineName: `A (${a})`,
    currentName: `B (${b})`,
    baselineTrace: traceA.trace,
    baselineMsPerSample: traceA.sliceMs / Math.max(1, flameA.traces),
    msPerSample: traceB.sliceMs / Math.max(1, flameB.traces),
    functions: result.functions.map((f) => ({ name: f.name, file: f.file, a: f.a.selfMsPerTrace, b: f.b.selfMsPerTrace, change: f.selfMsDelta, noise: f.selfMsNoise, changed: f.selfChanged })),
  });
}

export function addQueryCommand(program: Command, setExitCode: (code: number) => void): void {
  const query = program
    .command('query')
    .description('Ask a store (filled by `jsprof ingest`) where time goes: top functions, a merged flame graph, or the difference between two releases.')
    .usage('<top|flame|diff> [options]');

  withStoreAndFilter(query.command('top'))
    .description('Functions by self and total time over the traces, and per release, page or browser.')
    .addOption(new Option('--group-by <label>', 'one view per value of this label').choices(LABELS))
    .option('--top <n>', 'how many functions each view lists', wholeNumber('--top', 1), 20)
    .option('--json', 'print {groupBy, filter, all, groups: [{name, traces, samples, busySamples, busyMs, idleSamples, idleMs, functions: [{functionId, name, file, selfMs, totalMs, self, total, traces}]}]}')
    .action(async (opts) => {
      const result = await withStore(opts.store, (store) => topFunctions(store, { filter: filterOf(opts), groupBy: opts.groupBy ?? null, limit: opts.top }));
      process.stdout.write(opts.json ? `${JSON.stringify(result, null, 1)}\n` : formatTop(result));
    });

  withStoreAndFilter(query.command('flame'))
    .description('Every stack of the traces merged into one call tree: folded stacks on stdout ("a;b;c <self ms>"), JSON, or an HTML flame graph.')
    .addOption(new Option('--json', 'print {filter, traces, busyMs, root: {functionId, totalMs, selfMs, children}, functions: {id: {name, file}}}').conflicts('html'))
    .option('--html <file>', 'write a self-contained HTML page with the flame graph and both call trees')
    .action(async (opts) => {
      if (opts.html) checkOutput(opts.html, [[opts.store, 'the store']]);
      const filter = filterOf(opts);
      const flame = await withStore(opts.store, (store) => flameGraph(store, filter));
      if (opts.html) {
        const { trace, sliceMs } = flameAsTrace(flame);
        const meta = { traces: flame.traces, 'ms per sample': Number(sliceMs.toFixed(3)), ...filter };
        writeResult(opts.html, htmlReport({ trace, meta }, `jsprof query flame (${flame.traces} traces)`), [[opts.store, 'the store']]);
        return;
      }
      process.stdout.write(opts.json ? `${JSON.stringify(flame)}\n` : foldedStacks(flame));
    });

  withStoreAndFilter(query.command('diff'), false)
    .description('How each function\'s time per trace changed from release A to release B, and whether the change is larger than the noise between traces.')
    .argument('<a>', 'release A (the baseline)')
    .argument('<b>', 'release B')
    .option('--top <n>', 'how many functions to list', wholeNumber('--top', 1), 20)
    .addOption(new Option('--json', 'print {a, b, noiseFactor, functions: [{functionId, name, file, a, b, selfMsDelta, totalMsDelta, selfMsNoise, totalMsNoise, selfChanged, totalChanged}]}').conflicts('html'))
    .option('--html <file>', "write a self-contained HTML page: the function table, and B's flame graph coloured by each path's change in time per trace (red slower, blue faster)")
    .action(async (a: string, b: string, opts) => {
      if (opts.html) checkOutput(opts.html, [[opts.store, 'the store']]);
      const filter = filterOf(opts);
      const [sideA, sideB] = [{ ...filter, release: a }, { ...filter, release: b }];
      await withStore(opts.store, async (store) => {
        const result = await diffFunctions(store, sideA, sideB, opts.top);
        // A misspelt release is no release that lost all its time.
        const empty = [[a, result.a.traces], [b, result.b.traces]].filter(([, traces]) => traces === 0).map(([release]) => release);
        if (empty.length) throw new Error(`no traces of release ${empty.join(' or ')} in the store${Object.keys(filter).length ? ' with these filters' : ''}`);
        if (opts.html) writeResult(opts.html, diffHtml(result, a, b, await flameGraph(store, sideA), await flameGraph(store, sideB), filter), [[opts.store, 'the store']]);
        else process.stdout.write(opts.json ? `${JSON.stringify(result, null, 1)}\n` : formatDiff(result, a, b));
      });
    });

  withSubcommands(query, 'top|flame|diff', (name) => `${name === undefined ? 'which query? ' : `no query "${name}"; `}top, flame or diff`, setExitCode);
}
