/** `jsprof convert`: a trace as a Chrome DevTools CPU profile or a speedscope profile. */
import * as path from 'node:path';
import { Command, Option } from 'commander';
import { jsonChunks, readTraceFile, toCpuProfile, toSpeedscope, TraceError } from '@jsprof/trace-tools';
import { outputBeside, writeResult } from '../files';
import { SOURCE_MAPS_HELP, withSourceMaps } from './symbolicate';

const EXTENSIONS = { cpuprofile: '.cpuprofile', speedscope: '.speedscope.json' };
type Format = keyof typeof EXTENSIONS;

/** The converted file's JSON, in pieces: a speedscope file of a few million samples is more text than one string holds. */
function convert(input: string, format: Format, sourceMaps?: string): Iterable<string> {
  const read = readTraceFile(input);
  const { trace } = sourceMaps ? withSourceMaps(read, sourceMaps) : read;
  if (trace.samples.length === 0) throw new TraceError(`${input}: the trace has no samples; there is nothing to convert`);
  if (format === 'cpuprofile') return jsonChunks(toCpuProfile(trace));
  const exporter = `jsprof ${require('../../package.json').version}`;
  return jsonChunks(toSpeedscope(trace, { name: input === '-' ? 'standard input' : path.basename(input), exporter }));
}

export function addConvertCommand(program: Command, _setExitCode: (code: number) => void): void {
  program
    .command('convert')
    .description("Convert a trace to a Chrome DevTools CPU profile (.cpuprofile, V8's format) or a speedscope profile.")
    .argument('<trace>', 'a trace file (JSON or gzip; a bare trace, {meta, trace} as sendTrace posts it and traceReceiver stores it, or a V8 .cpuprofile); - for standard input, converted to standard output unless -o says otherwise')
    .addOption(new Option('--to <format>', 'the output format').choices(Object.keys(EXTENSIONS)).default('cpuprofile'))
    .option('-o, --out <file>', 'where to write it ("-" for stdout); default: the trace\'s name with .json (and .gz) replaced by .cpuprofile or .speedscope.json')
    .option('-s, --source-maps <dir>', `map frames to original files and names first, as \`jsprof symbolicate\` does, through ${SOURCE_MAPS_HELP}`)
    .addHelpText(
      'after',
      `
Formats:
  cpuprofile  V8's CPU profile, as node --cpu-prof writes it: load it in Chrome DevTools
              (Performance panel or JavaScript Profiler, "Load profile"). Idle samples are
              on an (idle) node, as V8 puts them.
  speedscope  open it at https://www.speedscope.app or with \`npx speedscope <file>\`. Every
              sample weighs the sampling interval (the median gap between samples); idle
              samples show as an (idle) frame.

A file is written through a temporary file and a rename: a failed run leaves no partial file.`,
    )
    .action((input: string, opts: { to: Format; out?: string; sourceMaps?: string }) => {
      writeResult(opts.out ?? outputBeside(input, EXTENSIONS[opts.to]), convert(input, opts.to, opts.sourceMaps), [[input, 'the trace it reads']]);
    });
}
