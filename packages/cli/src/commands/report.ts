/** `jsprof report`: a trace read as the hottest functions, as call trees, or as a self-contained HTML page. */
import * as path from 'node:path';
import { Command, Option } from 'commander';
import {
  DEFAULT_MIN_SHARE,
  DEFAULT_TOP_CHILDREN,
  DEFAULT_TOP_FUNCTIONS,
  ReportView,
  VIEWS,
  formatView,
  htmlReport,
  readTraceFile,
  stringifyDeep,
  viewJson,
} from '@jsprof/trace-tools';
import { writeResult } from '../files';
import { SOURCE_MAPS_HELP, withSourceMaps } from './symbolicate';
import { numberIn, wholeNumber } from './arguments';

interface ReportOptions {
  view: ReportView;
  top?: number;
  minShare: number;
  json?: boolean;
  html?: string;
  sourceMaps?: string;
}

const MORE_HELP = `
Top-down: total is the time under a node, self the time in it. Bottom-up: the
roots are the functions where time was spent (self = total), their children
the callers, each with the time its callee spent when called from there.
Recursion never counts a sample twice in one node. Idle samples (no
JavaScript running) are counted apart; shares are of the busy samples.

--json prints {view, samples, busy, idle, intervalMs, meta} and, for the
functions view, "functions": [{name, resource, line, column, location, self,
total}]; for the trees, "tree": the root (every busy sample) as {total, self,
children, hidden?}, each child {name, resource, line, column, location,
total, self, children, hidden?}. Counts are samples: a share is count / busy,
a duration count × intervalMs (the median gap between samples; null with
fewer than two). resource, line and column are null for built-ins. "hidden":
{nodes, total} counts the children that --top and --min-share left out.

--html writes one file (script, style and data inline; no network) with a
flame graph and both call trees, unpruned.
`;

export function addReportCommand(program: Command, _setExitCode: (code: number) => void): void {
  program
    .command('report')
    .description('Print the hottest functions of a trace or its call trees (top-down, bottom-up), or write an HTML report with a flame graph.')
    .argument('<trace>', 'a trace file (JSON or gzip; a bare trace, {meta, trace} as sendTrace posts it, or a V8 .cpuprofile as node --cpu-prof writes it); - for standard input')
    .addOption(new Option('--view <view>', 'what to print').choices(VIEWS).default('functions'))
    .option('--top <n>', `functions: how many to list (default ${DEFAULT_TOP_FUNCTIONS}); trees: most children shown under each node (default ${DEFAULT_TOP_CHILDREN})`, wholeNumber('--top', 1))
    .option('--min-share <percent>', 'trees: hide nodes under this share of the busy samples', numberIn(0, 100, '--min-share must be a percentage from 0 to 100.'), 100 * DEFAULT_MIN_SHARE)
    .addOption(new Option('--json', 'print the view as JSON on stdout (shape below)').conflicts('html'))
    .addOption(new Option('--html <file>', 'write a self-contained HTML report (flame graph, both call trees) instead of printing a view').conflicts(['view', 'top', 'minShare']))
    .option('-s, --source-maps <dir>', `map frames to original files and names first, as \`jsprof symbolicate\` does, through ${SOURCE_MAPS_HELP}`)
    .addHelpText('after', MORE_HELP)
    .action((input: string, opts: ReportOptions) => {
      const read = readTraceFile(input);
      const document = opts.sourceMaps ? withSourceMaps(read, opts.sourceMaps) : read;
      if (opts.html) {
        writeResult(opts.html, htmlReport(document, input === '-' ? 'standard input' : path.basename(input)), [[input, 'the trace it reads']]);
        return;
      }
      const options = { view: opts.view, top: opts.top, minShare: opts.minShare / 100 };
      process.stdout.write(opts.json ? stringifyDeep(viewJson(document, options), 2) + '\n' : formatView(document.trace, options));
    });
}
