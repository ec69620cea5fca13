/**
 * The receiving side of `sendTrace` (`@jsprof/runtime/send`): a `node:http` request handler that
 * stores each trace posted to it as a JSON file, `{ receivedAt, meta, trace }`, and/or writes it
 * into a `@jsprof/store` store in batches. Made for the open internet: bodies bounded before and
 * after gunzip (inflated off the main thread, stopped at the limit), a body timeout, traces
 * validated fully and `meta` bounded, a rate limit per client, and optionally a list of allowed
 * origins and a shared key. What is refused gets a 4xx or 503 with one short line saying why.
 */
import * as fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as path from 'node:path';
import type { Store } from '@jsprof/store';
import { TraceDocument, TraceError } from '@jsprof/trace-tools';
import { removeStaleTempFiles, writeAtomic } from './files';
import { BodyLimits, Refused, inflate, parseDocument, readBody } from './receive-body';
import { DEFAULT_RATE_LIMIT, RateLimit, RateLimiter, clientOf, hasKey, normalizeOrigin } from './receive-guard';
import { CloseSummary, StoreStatus, StoreWriter, StoreWriterOptions } from './receive-store';
import { browserOf } from './user-agent';

export { META_LIMITS } from './receive-body';
export { DEFAULT_RATE_LIMIT } from './receive-guard';
export type { RateLimit } from './receive-guard';
export type { CloseSummary, StoreStatus, StoreWriterOptions } from './receive-store';
export { DEFAULT_CLOSE_TIMEOUT_MS, DEFAULT_MAX_BUFFERED } from './receive-store';

export interface ReceiverOptions {
  /** Where the traces are written as files (created if missing). */
  dir?: string;
  /** A store (`openStore`) the traces are written into, in batches. It is not closed by the receiver. */
  store?: Store;
  /** Batching, retries and source maps for the store. */
  storeOptions?: StoreWriterOptions;
  /** Largest body accepted, as sent (default 128 KB: `sendTrace` sends at most 64 KB). */
  maxBytes?: number;
  /** Largest body once gunzipped (default 2 MB). */
  maxInflatedBytes?: number;
  /** Longest wait for a body once its headers have come, in ms (default 10 s). */
  bodyTimeoutMs?: number;
  /** Traces per client (address): `{ perSecond, burst }`, default 10/s with bursts of 100; `false` for none. */
  rateLimit?: RateLimit | false;
  /** Behind a proxy (TLS in front): count clients by the last address of `x-forwarded-for`. */
  trustProxy?: boolean;
  /** Origins (`https://shop.example`) whose pages may post; any when not given. */
  allowOrigins?: string[];
  /** A shared key, in the `x-jsprof-key` header or the `key` query parameter. */
  key?: string;
  /** Called with each file written. */
  onTrace?: (file: string) => void;
  /** Called with the reason a body was refused. */
  onRefused?: (status: number, reason: string) => void;
}

export interface ReceiverStatus {
  accepted: number;
  /** Refusals by HTTP status. */
  refused: Record<number, number>;
  store?: StoreStatus;
}

export interface TraceReceiver {
  (req: IncomingMessage, res: ServerResponse): void;
  status(): ReceiverStatus;
  /** Refuses new traces (503), waits for those being received, writes what the store has not yet taken. */
  close(): Promise<CloseSummary>;
  /** Makes `close` stop trying the store: what it has not taken is saved at once. */
  stopWaiting(): void;
}

/** Bodies accepted by default: 128 KB as sent (`sendTrace` sends at most 64 KB), 2 MB gunzipped, in 10 s. */
export const DEFAULT_BODY_LIMITS: Readonly<BodyLimits> = Object.freeze({ maxBytes: 128 * 1024, maxInflatedBytes: 2 << 20, timeoutMs: 10_000 });

export function traceReceiver(options: ReceiverOptions): TraceReceiver {
  if (!options.dir && !options.store) throw new Error('traceReceiver needs a dir, a store, or both');
  const limits: BodyLimits = {
    maxBytes: options.maxBytes ?? DEFAULT_BODY_LIMITS.maxBytes,
    maxInflatedBytes: options.maxInflatedBytes ?? DEFAULT_BODY_LIMITS.maxInflatedBytes,
    timeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_LIMITS.timeoutMs,
  };
  const limiter = options.rateLimit === false ? null : new RateLimiter({ ...DEFAULT_RATE_LIMIT, ...options.rateLimit });
  const origins = options.allowOrigins ? new Set(options.allowOrigins.map(normalizeOrigin)) : null;
  const writer = options.store ? new StoreWriter(options.store, { ...options.storeOptions, spillDir: options.dir ? undefined : options.storeOptions?.spillDir }) : null;
  if (options.dir) {
    if (fs.statSync(options.dir, { throwIfNoEntry: false })?.isDirectory() === false) throw new Error(`${options.dir}: not a directory`);
    fs.mkdirSync(options.dir, { recursive: true });
    removeStaleTempFiles(options.dir);
  }
  const status: ReceiverStatus = { accepted: 0, refused: {} };
  const receiving = new Set<Promise<void>>();
  let closing = false;

  async function receive(req: IncomingMessage): Promise<void> {
    if (closing) throw new Refused(503, 'the collector is shutting down', 5);
    if (req.method !== 'POST') throw new Refused(405, 'POST a trace');
    const origin = req.headers.origin;
    if (origins && !(origin && origins.has(normalizeOrigin(origin)))) throw new Refused(403, 'origin not allowed');
    if (options.key !== undefined && !hasKey(req, options.key)) throw new Refused(403, 'missing or wrong key');
    const wait = limiter?.take(clientOf(req, !!options.trustProxy));
    if (wait) throw new Refused(429, 'too many traces from this client', wait);
    if (writer?.full) throw new Refused(503, 'the store is behind; try again later', 5);
    const document = parseDocument(await inflate(await readBody(req, limits), limits.maxInflatedBytes));
    const browser = document.meta?.browser === undefined ? browserOf(req.headers['user-agent']) : undefined;
    if (browser) document.meta = { ...document.meta, browser };
    // From here on, nothing waits: the trace is accepted whole or not at all.
    if (writer?.full) throw new Refused(503, 'the store is behind; try again later', 5);
    const rows = writer && rowsOrRefused(writer, document);
    if (options.dir) {
      const file = path.join(options.dir, `${Date.now()}-${Math.random().toString(36).slice(2, 10)}.json`);
      writeAtomic(file, JSON.stringify(document));
      options.onTrace?.(file);
    }
    if (rows) writer!.add(rows);
  }

  function rowsOrRefused(store: NonNullable<typeof writer>, document: TraceDocument) {
    try {
      return store.rowsOf(document);
    } catch (error) {
      // A valid trace the store cannot take (stacks too deep for it).
      if (error instanceof TraceError) throw new Refused(400, error.message);
      throw error;
    }
  }

  const handler = ((req, res) => {
    const origin = req.headers.origin;
    if (!origins) res.setHeader('access-control-allow-origin', '*');
    else {
      res.setHeader('vary', 'Origin');
      if (origin && origins.has(normalizeOrigin(origin))) res.setHeader('access-control-allow-origin', origin);
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'content-type, x-jsprof-key', 'access-control-max-age': '86400' }).end();
      return;
    }
    const done = receive(req).then(
      () => {
        status.accepted++;
        res.writeHead(204).end();
      },
      (error) => {
        const refused = error instanceof Refused ? error : new Refused(500, 'could not store the trace');
        status.refused[refused.status] = (status.refused[refused.status] ?? 0) + 1;
        options.onRefused?.(refused.status, refused.message);
        if (res.headersSent) return;
        const headers: Record<string, string> = { 'content-type': 'text/plain', connection: 'close' };
        if (refused.retryAfter) headers['retry-after'] = String(refused.retryAfter);
        res.writeHead(refused.status, headers);
        // A body still coming (too large, too slow) is not read to its end: the connection goes.
        res.end(`${refused.message}\n`, () => {
          if (!req.complete) req.socket.destroy();
        });
      },
    );
    receiving.add(done);
    void done.finally(() => receiving.delete(done));
  }) as TraceReceiver;

  handler.status = () => ({ ...status, refused: { ...status.refused }, ...(writer ? { store: writer.status } : {}) });
  handler.close = async () => {
    closing = true;
    await Promise.allSettled([...receiving]);
    return writer ? writer.close() : { unwritten: 0 };
  };
  handler.stopWaiting = () => writer?.stopWaiting();
  return handler;
}
