/**
 * `jsprof aggregate`: thousands of traces (field traces stored by `traceReceiver`, `jsprof run`'s)
 * merged into one view of where time goes, one file at a time, optionally per value of a `meta` key.
 */
import { Command, InvalidArgumentError } from 'commander';
import { SOURCE_MAPS_HELP, sourceMapper } from './symbolicate';
import { maxFileSizeOption, readLimitsOf, traceFilesIn, traceFilesProgress, wholeNumber } from './arguments';
import { counted } from '../words';
import { AggregateFilesOptions, AggregateResult, AggregateView, DEFAULT_MAX_FUNCTIONS, DEFAULT_MAX_GROUPS, OTHER_FUNCTIONS, OTHER_GROUPS, aggregateFiles, displayLocation, printable } from '@jsprof/trace-tools';


const HELP = `
A function is its name, resource, line and column, so the same function is one row whichever traces
it appears in. Each sample counts as its trace's sampling interval (the median gap between its
samples), so a trace weighs as much as the time it covers, whatever its sampling rate or thinning.
Shares are shares of the busy time (samples with a stack, i.e. JavaScript running) of all the traces
of a view together: self with the function innermost on the stack, total with it anywhere on the
stack (once per sample, however deep it recurses); traces is the share of the view's traces in which
it ran at all. Idle samples count in no share. Groups beyond ${DEFAULT_MAX_GROUPS} are counted as one, "${OTHER_GROUPS}".

Files are read one at a time, so memory grows with the number of distinct functions (capped by
--max-functions) and groups, and with the largest file (capped by --max-file-size), not with the
number of traces.
Exit status: 0 when every trace was read, 1 when one was rejected (named on stderr; the rest are merged).`;

export function addAggregateCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('aggregate')
    .description('Merge many traces into one view of where time goes across users: functions by self and total share, per group of a meta key if asked.')
    .argument('<paths...>', 'trace files (JSON, or gzip: .json.gz, .gz; a V8 .cpuprofile when named), or directories to search recursively for .json, .json.gz and .gz files')
    .option('--group-by <key>', 'one view per value of this key of the traces\' meta (page, release…); traces without it go to "(none)"', metaKey)
    .option('--top <n>', 'how many functions each view lists', wholeNumber('--top', 1), 20)
    .option('--max-functions <n>', `most distinct functions kept; functions first seen after that count as one, "${OTHER_FUNCTIONS}"`, wholeNumber('--max-functions', 1), DEFAULT_MAX_FUNCTIONS)
    .addOption(maxFileSizeOption())
    .option('-s, --source-maps <dir>', `map frames to original files and names first, as \`jsprof symbolicate\` does, through ${SOURCE_MAPS_HELP}`)
    .option('--json', 'print the whole result as JSON (every function of every view, times in ms, shares from 0 to 1)')
    .addHelpText('after', HELP)
    .action((paths: string[], opts) => {
      const files = traceFilesIn(paths);
      const mapper = opts.sourceMaps ? sourceMapper(opts.sourceMaps) : null;
      const result = aggregateWithProgress(files, { groupBy: opts.groupBy, maxFunctions: opts.maxFunctions, limits: readLimitsOf(opts), transform: mapper?.map });
      mapper?.done();
      if (opts.json) writeJson(result);
      else process.stdout.write(formatAggregate(result, opts.top));
      if (result.rejected > 0) setExitCode(1);
    });
}

function aggregateWithProgress(files: string[], options: AggregateFilesOptions): AggregateResult {
  const progress = traceFilesProgress(files.length);
  const result = aggregateFiles(files, { ...options, onFile: progress.onFile, onRejected: progress.onRejected });
  progress.finish();
  return result;
}

/**
 * The result as JSON, written a view at a time and a function a line: with many functions and
 * groups it can be larger than a string may be.
 */
function writeJson(result: AggregateResult): void {
  const { all, groups, ...summary } = result;
  // A reader that stops early (`| head`) closes the pipe: stop there, with the exit status (other errors: bin/jsprof.js says what, status 1).
  process.stdout.once('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(result.rejected ? 1 : 0);
  });
  const write = (text: string) => process.stdout.write(text);
  const writeView = (view: AggregateView) => {
    const { functions, ...counts } = view;
    write(`${JSON.stringify(counts).slice(0, -1)},"functions":[`);
    for (let i = 0; i < functions.length; i += 1000) {
      write(`${i ? ',' : ''}\n${functions.slice(i, i + 1000).map((f) => `  ${JSON.stringify(f)}`).join(',\n')}`);
    }
    write(']}');
  };
  write(`${JSON.stringify(summary).slice(0, -1)},\n"all":`);
  writeView(all);
  write(',\n"groups":[');
  groups.forEach((group, i) => {
    write(i ? ',\n' : '\n');
    writeView(group);
  });
  write(']}\n');
}


function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

const percent = (share: number) => `${(100 * share).toFixed(1)}%`;

function metaKey(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must name a key of the traces\' meta, such as page or release.');
  return value;
}

function table(view: AggregateView, top: number): string[] {
  const header = ['self', 'total', 'traces', 'function', 'location'];
  const rows = view.functions.slice(0, top).map((f) => [
    percent(f.self),
    percent(f.total),
    percent(f.traces / view.traces),
    printable(f.name || '(anonymous)'),
    f.name === OTHER_FUNCTIONS && f.resource === null ? '' : printable(displayLocation(f.resource, f.line, f.column)),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const format = (r: string[]) => r.map((c, i) => (i < 3 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [format(header), ...rows.map(format)];
}

function describeView(title: string, view: AggregateView, top: number): string[] {
  const heading = `${title}: ${counted(view.traces, 'trace')}, ${duration(view.busyMs)} busy, ${duration(view.idleMs)} idle`;
  return view.busyMs > 0 ? [heading, ...table(view, top)] : [`${heading}; no JavaScript ran`];
}

function formatAggregate(result: AggregateResult, top: number): string {
  const { all } = result;
  const lines = [
    `${counted(all.traces, 'trace')}${result.rejected ? ` (${result.rejected.toLocaleString('en-US')} rejected)` : ''}, ${counted(all.samples, 'sample')}: ` +
      `${all.busySamples.toLocaleString('en-US')} busy (${duration(all.busyMs)}), ${all.idleSamples.toLocaleString('en-US')} idle (${duration(all.idleMs)}).`,
    'Shares of busy time, each sample counting as its trace\'s sampling interval; "traces": share of traces in which the function ran.',
  ];
  if (result.functionsCapped) lines.push(`More than ${counted(result.maxFunctions, 'distinct function')} (--max-functions): the rest are counted as "${OTHER_FUNCTIONS}".`);
  if (result.groupsCapped) lines.push(`More than ${counted(result.maxGroups, 'value')} of ${result.groupBy}: the rest are counted as "${OTHER_GROUPS}".`);
  lines.push('', ...describeView('All traces', all, top));
  for (const group of result.groups) lines.push('', ...describeView(printable(`${result.groupBy} = ${group.name}`), group, top));
  return `${lines.join('\n')}\n`;
}
