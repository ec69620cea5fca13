/** The `jsprof` command. */
import { printableLines } from '@jsprof/trace-tools';
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_THRESHOLD, OPTIONS, PlacementOptions } from '@jsprof/policy';
import { run } from './run';
import { instrumentFiles } from './bundles';
import { addReportCommand } from './commands/report';
import { addConvertCommand } from './commands/convert';
import { addSymbolicateCommand } from './commands/symbolicate';
import { addAggregateCommand } from './commands/aggregate';
import { addCacheCommand } from './commands/cache';
import { addIngestCommand } from './commands/ingest';
import { addQueryCommand } from './commands/query';
import { addServeCommand } from './commands/serve';
import { wholeNumber } from './commands/arguments';

function rate(value: string) {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n <= 1)) throw new InvalidArgumentError('must be a number from 0 to 1 (the fraction of page loads profiled).');
  return n;
}

function nonNegative(value: string) {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number of milliseconds ≥ 0.');
  return n;
}

/** Which functions get checks, and where: the options `run` and `instrument` share (see @jsprof/policy). */
/** The placement options' flags, as @jsprof/policy's option table gives them. */
function withPlacementOptions(command: Command): Command {
  for (const { name, flag } of OPTIONS) {
    if (!flag) continue;
    if (name === 'threshold') command.option(flag.flags, flag.description, wholeNumber('--threshold', 0), DEFAULT_THRESHOLD);
    else command.option(flag.flags, flag.description);
  }
  return command;
}

function placementFrom(opts: any): PlacementOptions {
  return { threshold: opts.threshold, loopingFunctions: opts.loopingFunctions !== false, loops: !!opts.loops, exits: opts.exits !== false };
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command();
  program
    .name('jsprof')
    .description('The JS Self-Profiling API for every JavaScript engine.')
    .version(require('../package.json').version)
    .showHelpAfterError()
    .enablePositionalOptions()
    .exitOverride(); // before the commands are made, so that they inherit it

  let exitCode = 0;
  withPlacementOptions(program.command('run'))
    .description('Run a Node program instrumented on the fly, profile all of it, write the trace and print the hottest functions.')
    .argument('<script>', 'the program to run')
    .argument('[args...]', 'arguments passed to the program')
    .option('-o, --out <file>', 'where to write the trace (JSON, the JS Self-Profiling API format)', 'jsprof-trace.json')
    .option('--sample-interval <ms>', 'sampling interval in ms: a multiple of 10, or down to 1 (rounded up to a whole ms)', nonNegative, 10)
    .option('--max-buffer-size <n>', 'most samples to keep', wholeNumber('--max-buffer-size', 0), 1_000_000)
    .option('--top <n>', 'how many functions the report lists', wholeNumber('--top', 1), 15)
    .option('-q, --quiet', 'print no report')
    .addHelpText('after', '\nInstrumented modules are cached, so a second run starts at full speed: see `jsprof cache --help`.')
    .passThroughOptions()
    .action(async (script: string, args: string[], opts) => {
      exitCode = await run(script, args, {
        out: opts.out,
        sampleInterval: opts.sampleInterval,
        maxBufferSize: opts.maxBufferSize,
        instrument: placementFrom(opts),
        top: opts.top,
        quiet: !!opts.quiet,
      });
    });

  withPlacementOptions(program.command('instrument'))
    .description('Insert jsprof checks into prebuilt JavaScript files (bundles, dist files, minified or not), chaining their source maps.')
    .argument('<paths...>', '.js, .mjs and .cjs files, or directories to search for them (node_modules skipped)')
    .option('-d, --out-dir <dir>', 'write the instrumented files here, keeping their paths relative to each directory given')
    .option('--in-place', 'replace the files (atomically)')
    .option('--source-map', 'write a source map even for files that have none (files with one always get a chained map)')
    .option('--no-function-table', 'do not write <file>.jsprof.json beside each output (the table of its functions, which browsers\' runtimes fetch when a profiler stops, to name and place frames as Chromium does)')
    .option('--sampling <rate>', 'with --out-dir inside the directory given: put the sampling snippet in its pages, so that this fraction of page loads (0 to 1) runs the instrumented copies and is profiled, the others the files as they are', rate)
    .option('--send <url>', 'with --sampling: where sampled page loads send their traces')
    .option('--base <path>', 'with --sampling: the URL path the directory is served at, for pages that name scripts by absolute path', '/')
    .option('--json', 'print {"files": [{file, output, functions, instrumented, bytesIn, bytesOut, ms}], "pages": [...]} to stdout')
    .addHelpText(
      'after',
      '\nThe code reaches the runtime through globalThis.__jsprof (load @jsprof/runtime first) and runs unchanged without it.\nExit status: 0 when every file was instrumented or left as it was, 1 when one failed (it is left untouched), 2 for bad usage.',
    )
    .action((paths: string[], opts) => {
      if (opts.sampling === undefined && (opts.send !== undefined || opts.base !== '/')) {
        process.stderr.write('jsprof: --send and --base go with --sampling\n');
        exitCode = 2;
        return;
      }
      exitCode = instrumentFiles(paths, {
        outDir: opts.outDir,
        inPlace: !!opts.inPlace,
        placement: placementFrom(opts),
        sourceMap: !!opts.sourceMap,
        functionTable: opts.functionTable !== false,
        json: !!opts.json,
        sampling: opts.sampling === undefined ? undefined : { rate: opts.sampling, send: opts.send, base: opts.base.endsWith('/') ? opts.base : `${opts.base}/` },
      });
    });

  const setExitCode = (code: number) => {
    exitCode = code;
  };
  addReportCommand(program, setExitCode);
  addConvertCommand(program, setExitCode);
  addSymbolicateCommand(program, setExitCode);
  addAggregateCommand(program, setExitCode);
  addCacheCommand(program, setExitCode);
  addIngestCommand(program, setExitCode);
  addQueryCommand(program, setExitCode);
  addServeCommand(program, setExitCode);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error: any) {
    if (error?.code === 'commander.helpDisplayed' || error?.code === 'commander.version' || error?.code === 'commander.help') return 0;
    // Bad usage (an unknown option, an invalid argument…): commander has said what; exit status 2.
    if (typeof error?.code === 'string' && error.code.startsWith('commander.')) return 2;
    if (error?.exitCode !== undefined) return error.exitCode;
    process.stderr.write(printableLines(`jsprof: ${error?.message ?? error}\n`));
    return 1;
  }
  return exitCode;
}
