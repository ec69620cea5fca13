/** `jsprof symbolicate`: a trace's frames mapped to original files, lines, columns and names. */
import type { Command } from 'commander';
import { SourceMaps, SymbolicateStats, TraceDocument, printableLines, readTraceFile, symbolicate } from '@jsprof/trace-tools';
import { outputBeside, writeResult } from '../files';

export const SOURCE_MAPS_HELP = 'the source maps in this directory, each script matched by file name (app.js.map, or app.js with its sourceMappingURL)';

/** The document with its trace's frames mapped through the source maps in `dir`; what was mapped said on stderr. */
export function withSourceMaps<D extends TraceDocument>(document: D, dir: string): D {
  const mapper = sourceMapper(dir);
  const mapped = { ...document, trace: mapper.map(document).trace };
  mapper.done();
  return mapped;
}

/**
 * Maps each document it is given through the source maps in `dir` (read once for all of them);
 * `done()` says on stderr what was mapped in all.
 */
export function sourceMapper(dir: string): { map: (document: TraceDocument) => TraceDocument; done: () => void } {
  const maps = new SourceMaps(dir);
  const all: SymbolicateStats = { frames: 0, mapped: 0, withoutMap: [], badMaps: maps.badMaps, ambiguousMaps: maps.ambiguousMaps };
  const withoutMap = new Set<string>();
  return {
    map(document) {
      const { trace, stats } = symbolicate(document.trace, maps);
      all.frames += stats.frames;
      all.mapped += stats.mapped;
      for (const url of stats.withoutMap) withoutMap.add(url);
      return { ...document, trace };
    },
    done: () => tellMapped({ ...all, withoutMap: [...withoutMap] }),
  };
}

function tellMapped(stats: SymbolicateStats): void {
  const lines = [`jsprof: ${stats.mapped} of ${stats.frames} frames mapped to original sources.`];
  const shown = stats.withoutMap.slice(0, 10).join(', ');
  if (stats.withoutMap.length) lines.push(`jsprof: no source map for ${shown}${stats.withoutMap.length > 10 ? ` and ${stats.withoutMap.length - 10} more` : ''}`);
  for (const bad of stats.badMaps) lines.push(`jsprof: could not read the source map ${bad}`);
  for (const both of stats.ambiguousMaps) lines.push(`jsprof: several different source maps fit ${both}; the first was used (give -s the directory of one build)`);
  process.stderr.write(printableLines(`${lines.join('\n')}\n`));
}

export function addSymbolicateCommand(program: Command, _setExitCode: (code: number) => void): void {
  program
    .command('symbolicate')
    .description('Map the frames of a trace to original files, lines, columns and function names through source maps.')
    .argument('<trace>', 'a trace file (JSON or gzip; a bare trace, a {meta, trace} document, or a V8 .cpuprofile, written as a trace); - for standard input, written to standard output unless -o says otherwise')
    .requiredOption('-s, --source-maps <dir>', SOURCE_MAPS_HELP)
    .option('-o, --out <file>', 'where to write the symbolicated trace ("-" for stdout); default: the trace\'s name with .json (and .gz) replaced by .symbolicated.json')
    .addHelpText(
      'after',
      '\nA frame is placed at the start of the original function that holds its mapped position, named as Chrome would name it there' +
        '\n(sources must be JavaScript, in the map\'s sourcesContent or on disk; otherwise the mapped position and the map\'s name are used).' +
        '\nFrames of scripts without a map are kept as they are. Metadata travelling with the trace ({meta, trace}) is kept.',
    )
    .action((file: string, opts: { sourceMaps: string; out?: string }) => {
      const document = withSourceMaps(readTraceFile(file), opts.sourceMaps);
      const output = document.receivedAt !== undefined || Object.keys(document.meta).length ? document : document.trace;
      writeResult(opts.out ?? outputBeside(file, '.symbolicated.json'), `${JSON.stringify(output)}\n`, [[file, 'the trace it reads']]);
    });
}
