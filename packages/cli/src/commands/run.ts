/** `jsprof run`: a Node program instrumented as its modules load, profiled whole. */
import { Command } from 'commander';
import { run } from '../run';
import { numberIn, placementFrom, wholeNumber, withPlacementOptions } from './arguments';

const milliseconds = numberIn(0, Infinity, 'must be a number of milliseconds ≥ 0.');

export function addRunCommand(program: Command, setExitCode: (code: number) => void): void {
  withPlacementOptions(program.command('run'))
    .description('Run a Node program instrumented on the fly, profile all of it, write the trace and print the hottest functions.')
    .argument('<script>', 'the program to run')
    .argument('[args...]', 'arguments passed to the program')
    .option('-o, --out <file>', 'where to write the trace (JSON, the JS Self-Profiling API format)', 'jsprof-trace.json')
    .option('--sample-interval <ms>', 'sampling interval in ms: a multiple of 10, or a whole number down to 1 (2.5 is 2; below 1 is 1)', milliseconds, 10)
    .option('--max-buffer-size <n>', 'most samples to keep', wholeNumber('--max-buffer-size', 0), 1_000_000)
    .option('--top <n>', 'how many functions the report lists', wholeNumber('--top', 1), 15)
    .option('-q, --quiet', 'print no report')
    .addHelpText('after', '\nInstrumented modules are cached, so a second run starts at full speed: see `jsprof cache --help`.')
    .passThroughOptions()
    .action(async (script: string, args: string[], opts) => {
      setExitCode(await run(script, args, {
        out: opts.out,
        sampleInterval: opts.sampleInterval,
        maxBufferSize: opts.maxBufferSize,
        instrument: placementFrom(opts),
        top: opts.top,
        quiet: !!opts.quiet,
      }));
    });
}
