/** The `jsprof` command. */
import { printableLines } from '@jsprof/trace-tools';
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_THRESHOLD, PlacementOptions } from '@jsprof/policy';
import { run } from './run';
import { instrumentFiles } from './bundles';
import { addReportCommand } from './commands/report';
import { addConvertCommand } from './commands/convert';
import { addSymbolicateCommand } from './commands/symbolicate';
import { addAggregateCommand } from './commands/aggregate';
import { addCacheCommand } from './commands/cache';

function wholeNumber(name: string, min: number) {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`${name} must be a whole number ≥ ${min}.`);
    }
    return n;
  };
}

function nonNegative(value: string) {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number of milliseconds ≥ 0.');
  return n;
}

/** Which functions get checks, and where: the options `run` and `instrument` share (see @jsprof/policy). */
function withPlacementOptions(command: Command): Command {
  return command
    .option('--threshold <n>', 'instrument functions that can run at least this many statements in one call', wholeNumber('--threshold', 0), DEFAULT_THRESHOLD)
    .option('--no-looping-functions', 'do not instrument functions below the threshold that have a loop of their own')
    .option('--loops', 'also check at every loop back-edge of instrumented functions')
    .option('--no-exits', 'do not check when instrumented functions return');
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
    .enablePositionalOptions();

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
    .option('--json', 'print {"files": [{file, output, functions, instrumented, bytesIn, bytesOut, ms}]} to stdout')
    .addHelpText(
      'after',
      '\nThe code reaches the runtime through globalThis.__jsprof (load @jsprof/runtime first) and runs unchanged without it.\nExit status: 0 when every file was instrumented or left as it was, 1 when one failed (it is left untouched).',
    )
    .action((paths: string[], opts) => {
      exitCode = instrumentFiles(paths, {
        outDir: opts.outDir,
        inPlace: !!opts.inPlace,
        placement: placementFrom(opts),
        sourceMap: !!opts.sourceMap,
        functionTable: opts.functionTable !== false,
        json: !!opts.json,
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

  program.exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error: any) {
    if (error?.code === 'commander.helpDisplayed' || error?.code === 'commander.version' || error?.code === 'commander.help') return 0;
    if (error?.exitCode !== undefined) return error.exitCode;
    process.stderr.write(printableLines(`jsprof: ${error?.message ?? error}\n`));
    return 1;
  }
  return exitCode;
}
