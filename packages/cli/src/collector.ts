/**
 * A runnable collector (`jsprof serve`): `traceReceiver` behind a `node:http` server with timeouts
 * of its own, stopped cleanly: no new connections, the requests under way finished, every accepted
 * trace written, on `close()` and on SIGTERM or SIGINT. A second signal stops the waiting: the
 * requests under way are cut, and what the store has not taken is saved at once.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloseSummary, DEFAULT_BODY_LIMITS, ReceiverOptions, TraceReceiver, traceReceiver } from './receive';

export interface CollectorOptions extends ReceiverOptions {
  port?: number;
  host?: string;
  /** Most connections at once (default 1024); beyond, new ones are dropped. */
  maxConnections?: number;
  /**
   * Stop on SIGTERM and SIGINT (default true); on a second one, `stopWaiting`; on a later one, once
   * nothing waits for the store, end the process as the signal does by default.
   */
  handleSignals?: boolean;
  /** Called with each of those signals, and how many have come (1 for the first). */
  onSignal?: (signal: NodeJS.Signals, count: number) => void;
  /** Longest `close` waits for requests under way, in ms (default 15 s), before cutting them. */
  drainMs?: number;
}

export interface Collector {
  url: string;
  server: http.Server;
  receiver: TraceReceiver;
  /** Stops the collector (once; later calls get the same result). */
  close(): Promise<CloseSummary>;
  /** Makes `close` stop waiting: the requests under way are cut, and what the store has not taken is saved at once. */
  stopWaiting(): void;
  /** Settles when the collector has stopped, by `close()` or a signal. */
  closed: Promise<CloseSummary>;
}

export async function startCollector(options: CollectorOptions): Promise<Collector> {
  const receiver = traceReceiver(options);
  const server = http.createServer(receiver);
  const bodyTimeout = options.bodyTimeoutMs ?? DEFAULT_BODY_LIMITS.timeoutMs;
  server.headersTimeout = 10_000;
  server.requestTimeout = bodyTimeout + 10_000;
  server.keepAliveTimeout = 5_000;
  server.maxConnections = options.maxConnections ?? 1024;
  server.maxHeadersCount = 100;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<CloseSummary> | null = null;
  let settle!: (summary: Promise<CloseSummary>) => void;
  const closed = new Promise<CloseSummary>((resolve) => {
    settle = resolve;
  });
  let signals = 0;
  let hurried = false;
  const stopWaiting = () => {
    hurried = true;
    server.closeAllConnections();
    receiver.stopWaiting();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    options.onSignal?.(signal, ++signals);
    if (!closing) void close();
    else if (!hurried) stopWaiting();
    else if (!receiver.status().store?.buffered) {
      // Nothing is left to save: the signal does what it would have done without this handler.
      removeSignalListeners();
      process.kill(process.pid, signal);
    }
  };
  const removeSignalListeners = () => {
    process.removeListener('SIGTERM', onSignal);
    process.removeListener('SIGINT', onSignal);
  };
  const close = () => {
    closing ??= (async () => {
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), options.drainMs ?? 15_000);
      await drained;
      clearTimeout(cut);
      return receiver.close();
    })().finally(removeSignalListeners);
    settle(closing);
    return closing;
  };
  if (options.handleSignals !== false) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  return { url: `http://${host}:${address.port}/`, server, receiver, close, stopWaiting, closed };
}
