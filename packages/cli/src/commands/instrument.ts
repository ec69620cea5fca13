/** `jsprof instrument`: checks inserted into prebuilt files, their maps chained, and sampled pages if asked. */
import { Command } from 'commander';
import { instrumentFiles } from '../bundles';
import { numberIn, placementFrom, withPlacementOptions } from './arguments';

const rate = numberIn(0, 1, 'must be a number from 0 to 1 (the fraction of page loads profiled).');

export function addInstrumentCommand(program: Command, setExitCode: (code: number) => void): void {
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
      '\nThe code reaches the runtime through globalThis.__jsprof (load @jsprof/runtime first). Without it the code computes what it did, but a function shipped as text (fn.toString() into a Worker, new Function) carries its checks and throws where it runs, unless the runtime is loaded where toString() is called or where the text runs.\nExit status: 0 when every file was instrumented or left as it was, 1 when one failed (it is left untouched), 2 for bad usage.',
    )
    .action((paths: string[], opts) => {
      if (opts.sampling === undefined && (opts.send !== undefined || opts.base !== '/')) {
        process.stderr.write('jsprof: --send and --base go with --sampling\n');
        setExitCode(2);
        return;
      }
      setExitCode(instrumentFiles(paths, {
        outDir: opts.outDir,
        inPlace: !!opts.inPlace,
        placement: placementFrom(opts),
        sourceMap: !!opts.sourceMap,
        functionTable: opts.functionTable !== false,
        json: !!opts.json,
        sampling: opts.sampling === undefined ? undefined : { rate: opts.sampling, send: opts.send, base: opts.base.endsWith('/') ? opts.base : `${opts.base}/` },
      }));
    });
}
