/**
 * `jsprof ingest`: trace files (as `traceReceiver` stores them) loaded into a store, DuckDB or
 * ClickHouse, functions identified across releases through their source maps.
 */
import * as os from 'node:os';
import { printable } from '@jsprof/trace-tools';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_FILES_BATCH, IngestSummary, checkMapsDirs, checkMapsUrl, ingestFiles, openStore } from '@jsprof/store';
import { SOURCE_MAPS_HELP } from './symbolicate';
import { maxFileSizeOption, readLimitsOf, traceFilesIn, traceFilesProgress, wholeNumber } from './arguments';


/** One per core, up to four: past that the store's writing thread is what limits. */
const DEFAULT_WORKERS = Math.min(os.availableParallelism(), 4);

function mapsUrl(value: string): string {
  try {
    checkMapsUrl(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return value;
}

/** How `--store` names a store; `made` for the commands that make one where there is none. */
export const storeHelp = (made: boolean) =>
  `a DuckDB file${made ? ' (created if missing)' : ' (made by jsprof ingest)'}, a ClickHouse server's URL (http://user:password@host:8123, ?database=name, default jsprof), or chdb:<dir> for ClickHouse in this process`;
export const STORE_HELP = storeHelp(true);

const HELP = `
A function is its original file and name (through the release's source maps; the script's URL
when unmapped), not its line, so it keeps its id from release to release. Each trace's raw frames
are kept beside it, to map it again. A trace already in the store is not written again.
Exit status: 0 when every file was ingested (or already stored), 1 when one was rejected (named on
stderr; the rest are ingested), 2 for bad usage.`;

export function addIngestCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('ingest')
    .description('Load trace files into a store (DuckDB or ClickHouse) for `jsprof query`: functions identified across releases.')
    .argument('<paths...>', 'trace files (JSON, or gzip: .json.gz, .gz), or directories to search recursively for them')
    .requiredOption('--store <store>', STORE_HELP)
    .addOption(new Option('-s, --source-maps <dir>', `map every trace's frames to original files and names through ${SOURCE_MAPS_HELP}`).conflicts(['releaseMaps', 'mapsUrl']))
    .addOption(new Option('--release-maps <dir>', 'map each trace through the source maps of its release, in <dir>/<release>/ (original files are named relative to that directory)').conflicts('mapsUrl'))
    .addOption(
      new Option('--maps-url <url>', "fetch each release's source maps over http(s) from this URL, with {release} and {path} (the script URL's path) filled in: https://maps.internal/{release}/{path}.map")
        .argParser(mapsUrl),
    )
    .option('--batch <n>', 'traces written to the store at once', wholeNumber('--batch', 1), DEFAULT_FILES_BATCH)
    .addOption(
      new Option('--workers <n>', 'threads that read and identify trace files while the store is written (0: none)')
        .argParser(wholeNumber('--workers', 0, 64))
        .default(DEFAULT_WORKERS, 'one per core, up to 4'),
    )
    .addOption(maxFileSizeOption())
    .option('--json', 'print {store, files, ingested, duplicates, rejected, frames, mapped, releasesWithoutMaps, mapsFetched, mapFetchFailures, mapFetchErrors, ambiguousMaps, ms} on stdout')
    .addHelpText('after', HELP)
    .action(async (paths: string[], opts) => {
      const files = traceFilesIn(paths);
      checkMapsDirs(opts);
      const store = await openStore(opts.store);
      const started = performance.now();
      const progress = traceFilesProgress(files.length);
      let summary: IngestSummary;
      try {
        summary = await ingestFiles(store, files, {
          sourceMaps: opts.sourceMaps,
          releaseMaps: opts.releaseMaps,
          mapsUrl: opts.mapsUrl,
          batchSize: opts.batch,
          limits: readLimitsOf(opts),
          workers: opts.workers,
          onFile: progress.onFile,
          onRejected: progress.onRejected,
        });
      } finally {
        progress.finish();
        await store.close();
      }
      const ms = Math.round(performance.now() - started);
      if (opts.json) process.stdout.write(`${JSON.stringify({ store: store.description, files: files.length, ...summary, ms })}\n`);
      else process.stdout.write(describe(summary, store.description, ms));
      if (summary.rejected > 0) setExitCode(1);
    });
}

function describe(summary: IngestSummary, store: string, ms: number): string {
  const rate = ms > 0 ? `, ${Math.round((summary.ingested * 1000) / ms).toLocaleString('en-US')} traces/s` : '';
  const lines = [`Ingested ${summary.ingested.toLocaleString('en-US')} traces into ${printable(store)} in ${(ms / 1000).toFixed(1)} s${rate}.`];
  const [duplicates, rejected] = [summary.duplicates, summary.rejected].map((n) => n.toLocaleString('en-US'));
  if (summary.duplicates) lines.push(summary.duplicates === 1 ? '1 was already stored and was skipped.' : `${duplicates} were already stored and were skipped.`);
  if (summary.rejected) lines.push(summary.rejected === 1 ? '1 file was rejected.' : `${rejected} files were rejected.`);
  if (summary.frames) lines.push(`${summary.mapped} of ${summary.frames} frames mapped to original sources.`);
  if (summary.releasesWithoutMaps.length) lines.push(`No source maps for release ${summary.releasesWithoutMaps.map(printable).join(', ')}: their frames keep their URLs.`);
  if (summary.mapsFetched) lines.push(`${summary.mapsFetched} source maps fetched.`);
  if (summary.mapFetchFailures) lines.push(`${summary.mapFetchFailures} source maps could not be fetched: ${summary.mapFetchErrors.map(printable).join('; ')}`);
  for (const both of summary.ambiguousMaps) lines.push(`Several different source maps fit ${printable(both)}; the first was used (give -s the directory of one build, or --release-maps a directory per release).`);
  return `${lines.join('\n')}\n`;
}
