/**
 * `jsprof serve`: a collector for `sendTrace`, writing trace files and/or into a store, with a
 * status line on stderr; stops cleanly on SIGTERM or SIGINT (every accepted trace written or, on a
 * second signal or when the store stays down, saved as files).
 */
import * as fs from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { printable } from '@jsprof/trace-tools';
import { DEFAULT_BATCH, Store, checkMapsDirs, duckDbFile, openStore } from '@jsprof/store';
import { startCollector } from '../collector';
import { UsageError } from '../files';
import { DEFAULT_BODY_LIMITS, DEFAULT_CLOSE_TIMEOUT_MS, DEFAULT_MAX_BUFFERED, DEFAULT_RATE_LIMIT, ReceiverStatus } from '../receive';
import { wholeNumber } from './arguments';
import { counted } from '../words';
import { STORE_HELP } from './ingest';
import { SOURCE_MAPS_HELP } from './symbolicate';

const HELP = `
Run it behind a TLS proxy (nginx, Caddy…) with --trust-proxy for a public collector, and set
--allow-origin (the sites whose pages send traces) and/or --key. Traces are validated fully; bodies
are bounded before and after gunzip; each client (address) is rate limited. With --store, accepted
traces are written in batches; while the store cannot be reached they wait (up to --max-buffered,
then clients get 503 and may retry); on SIGTERM or SIGINT everything accepted is written, or saved as
files in --dir or --spill-dir for \`jsprof ingest\` when the store is still down 10 s later or a second
SIGTERM or SIGINT comes.
Exit status: 0 after a clean stop, 1 when accepted traces could be neither written nor saved, 2 for bad usage.`;

function positive(name: string) {
  return (value: string) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a number > 0.`);
    return n;
  };
}

/** `--allow-origin`, repeatable: each an http(s) origin as a browser sends it (https://shop.example, no path, default port left out). */
function collectOrigin(value: string, list: string[] = []): string[] {
  let url: URL | null = null;
  try {
    url = new URL(value.trim());
  } catch {
    // not a URL at all
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password || url.pathname !== '/' || url.search || url.hash) {
    throw new InvalidArgumentError('--allow-origin takes an origin: the scheme, host and port of the pages, as https://shop.example.');
  }
  return [...list, url.origin];
}

function statusLine(status: ReceiverStatus, perSecond: number): string {
  const refused = Object.entries(status.refused).map(([code, n]) => `${n.toLocaleString('en-US')}×${code}`);
  const parts = [`${status.accepted.toLocaleString('en-US')} accepted (${Math.round(perSecond)}/s)`, `refused ${refused.length ? refused.join(' ') : 0}`];
  if (status.store) {
    const { written, buffered, error } = status.store;
    parts.push(`store ${written.toLocaleString('en-US')} written, ${buffered.toLocaleString('en-US')} waiting${error ? `, failing: ${printable(error).slice(0, 80)}` : ''}`);
  }
  return `jsprof: ${parts.join(' · ')}`;
}

/** The status line: rewritten every second on a terminal, otherwise a line a minute when something changed. */
function showStatus(status: () => ReceiverStatus): () => void {
  const tty = !!process.stderr.isTTY;
  let last = status();
  let lastAt = Date.now();
  let shown = '';
  const timer = setInterval(() => {
    const now = status();
    const line = statusLine(now, ((now.accepted - last.accepted) * 1000) / Math.max(1, Date.now() - lastAt));
    last = now;
    lastAt = Date.now();
    if (tty) process.stderr.write(`\r\x1b[K${line}`);
    else if (line !== shown) process.stderr.write(`${line}\n`);
    shown = line;
  }, tty ? 1000 : 60_000);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (tty) process.stderr.write('\r\x1b[K');
  };
}


/** What the collector waits for once told to stop, and what a second signal does. */
function stoppingLine(buffered: number, dir: string | undefined, spillDir: string): string {
  const waiting = `${counted(buffered, 'trace')} waiting for the store; trying it for up to ${DEFAULT_CLOSE_TIMEOUT_MS / 1000} s`;
  const then = dir ? ` (they are in ${printable(dir)} too; Ctrl-C again stops now)` : `, then saving them in ${printable(spillDir)} (Ctrl-C again saves them now)`;
  return `jsprof: stopping: ${waiting}${then}`;
}

export function addServeCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('serve')
    .description('Collect the traces pages send (sendTrace): validated, rate limited, written as files and/or into a store.')
    .option('--port <n>', 'port to listen on (0: any free port)', wholeNumber('--port', 0, 65535), 8080)
    .option('--host <host>', 'address to listen on (0.0.0.0 for every interface)', '127.0.0.1')
    .option('--dir <dir>', 'write each trace as a JSON file here')
    .option('--store <store>', `write the traces into ${STORE_HELP}`)
    .addOption(new Option('-s, --source-maps <dir>', `with --store: map frames through ${SOURCE_MAPS_HELP}`).conflicts('releaseMaps'))
    .option('--release-maps <dir>', 'with --store: map each trace through the source maps in <dir>/<release>/')
    .option('--allow-origin <origin>', 'accept traces only from pages of this origin (https://shop.example); repeatable', collectOrigin)
    .option('--key <key>', 'accept only requests carrying this key (x-jsprof-key header or ?key= in the URL); default $JSPROF_KEY')
    .option('--rate <n>', 'traces per second each client may send, on average', positive('--rate'), DEFAULT_RATE_LIMIT.perSecond)
    .option('--burst <n>', 'traces a client may send at once', wholeNumber('--burst', 1), DEFAULT_RATE_LIMIT.burst)
    .option('--no-rate-limit', 'no limit per client')
    .option('--trust-proxy', 'count clients by the address the proxy in front adds to x-forwarded-for')
    .option('--max-body <KB>', 'largest body as sent', wholeNumber('--max-body', 1), DEFAULT_BODY_LIMITS.maxBytes / 1024)
    .option('--max-inflated <KB>', 'largest body once gunzipped', wholeNumber('--max-inflated', 1), DEFAULT_BODY_LIMITS.maxInflatedBytes / 1024)
    .option('--body-timeout <s>', 'longest wait for a body', positive('--body-timeout'), DEFAULT_BODY_LIMITS.timeoutMs / 1000)
    .option('--batch <n>', 'with --store: traces written at once', wholeNumber('--batch', 1), DEFAULT_BATCH)
    .option('--max-buffered <n>', 'with --store: most traces waiting for the store before clients get 503', wholeNumber('--max-buffered', 1), DEFAULT_MAX_BUFFERED)
    .option('--spill-dir <dir>', 'with --store and no --dir: where traces the store could not take at shutdown are saved', 'jsprof-unwritten')
    .addHelpText('after', HELP)
    .action(async (opts) => {
      if (!opts.dir && !opts.store) throw new UsageError('say where traces go: --dir <dir>, --store <store>, or both');
      const unused = [
        ['--rate', opts.rateLimit === false && opts.rate !== DEFAULT_RATE_LIMIT.perSecond, '--no-rate-limit'],
        ['--burst', opts.rateLimit === false && opts.burst !== DEFAULT_RATE_LIMIT.burst, '--no-rate-limit'],
        ['--batch', !opts.store && opts.batch !== DEFAULT_BATCH, 'no --store'],
        ['--max-buffered', !opts.store && opts.maxBuffered !== DEFAULT_MAX_BUFFERED, 'no --store'],
        ['--source-maps', !opts.store && opts.sourceMaps !== undefined, 'no --store'],
        ['--release-maps', !opts.store && opts.releaseMaps !== undefined, 'no --store'],
        ['--spill-dir', (!opts.store || opts.dir) && opts.spillDir !== 'jsprof-unwritten', !opts.store ? 'no --store' : '--dir (the traces are kept there)'],
      ].find(([, given]) => given);
      if (unused) throw new UsageError(`${unused[0]} does nothing with ${unused[2]}`);
      checkMapsDirs(opts);
      if (opts.dir && fs.statSync(opts.dir, { throwIfNoEntry: false })?.isDirectory() === false) throw new Error(`${opts.dir}: not a directory`);
      const saved = opts.dir ? `they are in ${printable(opts.dir)} too` : `saved in ${printable(opts.spillDir)} at shutdown if it is still down`;
      const unreachable = (error: Error) =>
        process.stderr.write(`jsprof: the store cannot be reached (${printable(error.message)}); collecting anyway: traces wait for it, up to --max-buffered, and are written once it answers (${saved})\n`);
      // A DuckDB file this run creates goes again if the collector cannot start (its port taken).
      const storeFile = opts.store ? duckDbFile(opts.store) : null;
      const newStoreFile = storeFile && !fs.existsSync(storeFile) ? storeFile : null;
      let started = false;
      const store: Store | undefined = opts.store ? await openStore(opts.store, { onUnreachable: unreachable }) : undefined;
      try {
        const collector = await startCollector({
          port: opts.port,
          host: opts.host,
          dir: opts.dir,
          store,
          storeOptions: { batchSize: opts.batch, maxBuffered: opts.maxBuffered, spillDir: opts.spillDir, sourceMaps: opts.sourceMaps, releaseMaps: opts.releaseMaps },
          allowOrigins: opts.allowOrigin,
          key: opts.key ?? process.env.JSPROF_KEY ?? undefined,
          rateLimit: opts.rateLimit === false ? false : { perSecond: opts.rate, burst: opts.burst },
          trustProxy: !!opts.trustProxy,
          maxBytes: opts.maxBody * 1024,
          maxInflatedBytes: opts.maxInflated * 1024,
          bodyTimeoutMs: opts.bodyTimeout * 1000,
          onSignal: (_signal, count) => {
            const status = collector.receiver.status();
            if (count === 1 && status.store?.buffered) process.stderr.write(`${process.stderr.isTTY ? '\r\x1b[K' : ''}${stoppingLine(status.store.buffered, opts.dir, opts.spillDir)}\n`);
          },
        });
        started = true;
        const into = [opts.dir && `files in ${printable(opts.dir)}`, store && printable(store.description)].filter(Boolean).join(' and ');
        process.stderr.write(`jsprof: collecting traces at ${collector.url} into ${into} (SIGTERM or Ctrl-C stops)\n`);
        const stopStatus = showStatus(collector.receiver.status);
        const summary = await collector.closed;
        stopStatus();
        process.stderr.write(`${statusLine(collector.receiver.status(), 0).replace(/ \(0\/s\)/, '')}; stopped\n`);
        if (summary.unwritten > 0) {
          const where = opts.dir ? `they are in ${opts.dir}` : summary.savedIn ? `saved in ${summary.savedIn}` : 'they are lost';
          process.stderr.write(`jsprof: ${counted(summary.unwritten, 'accepted trace')} could not be written to the store; ${where} (jsprof ingest <dir> --store … loads them)\n`);
          if (!opts.dir && !summary.savedIn) setExitCode(1);
        }
      } finally {
        await store?.close();
        if (!started && newStoreFile) for (const file of [newStoreFile, `${newStoreFile}.wal`]) fs.rmSync(file, { force: true });
      }
    });
}
