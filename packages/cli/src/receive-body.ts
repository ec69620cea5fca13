/**
 * A posted trace from a stranger, read within limits: the body as sent (size, time), gunzipped off
 * the main thread and stopped at a limit, and validated as `jsprof report` validates traces, with a
 * small flat `meta`. Anything else is a `Refused` with a status and one short line.
 */
import type { IncomingMessage } from 'node:http';
import * as zlib from 'node:zlib';
import { TraceDocument, TraceError, printable, validateDocument } from '@jsprof/trace-tools';

export class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Seconds after which the client may try again (429, 503). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export interface BodyLimits {
  /** Largest body as sent. */
  maxBytes: number;
  /** Largest body once gunzipped. */
  maxInflatedBytes: number;
  /** Longest wait for the whole body, from the request's headers. */
  timeoutMs: number;
}

/** What `meta` may be: a small flat object of strings, numbers and booleans. */
export const META_LIMITS = { maxKeys: 32, maxKeyLength: 64, maxStringLength: 1024, maxBytes: 4096 };

/** Longest string in a trace (a resource URL or a function name). */
const MAX_TRACE_STRING = 8192;

/** The body as sent, or a `Refused` when it is too large, too slow or cut short. */
export function readBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limits.maxBytes) return reject(new Refused(413, `larger than ${limits.maxBytes} bytes`));
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: Refused | null) => {
      clearTimeout(timer);
      req.removeListener('data', onData);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const timer = setTimeout(() => finish(new Refused(408, `the body did not arrive within ${limits.timeoutMs / 1000} s`)), limits.timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) finish(new Refused(413, `larger than ${limits.maxBytes} bytes`));
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => finish(null));
    req.once('error', () => finish(new Refused(400, 'the request was cut short')));
  });
}

/** The body gunzipped (when it starts with gzip's magic bytes) on zlib's threads, stopping at the limit. */
export function inflate(body: Buffer, maxInflatedBytes: number): Promise<Buffer> {
  if (body.length < 2 || body[0] !== 0x1f || body[1] !== 0x8b) return Promise.resolve(body);
  return new Promise((resolve, reject) => {
    zlib.gunzip(body, { maxOutputLength: maxInflatedBytes }, (error, inflated) => {
      if (!error) return resolve(inflated);
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) reject(new Refused(413, `inflates beyond ${maxInflatedBytes} bytes`));
      else reject(new Refused(400, 'not valid gzip'));
    });
  });
}

function checkMeta(meta: unknown): void {
  if (meta === undefined || meta === null) return;
  if (typeof meta !== 'object' || Array.isArray(meta)) throw new Refused(400, 'meta is not an object');
  const keys = Object.keys(meta);
  if (keys.length > META_LIMITS.maxKeys) throw new Refused(400, `meta has ${keys.length} keys, more than ${META_LIMITS.maxKeys}`);
  for (const key of keys) {
    if (key.length > META_LIMITS.maxKeyLength) throw new Refused(400, `a meta key is longer than ${META_LIMITS.maxKeyLength} characters`);
    const value = (meta as Record<string, unknown>)[key];
    if (typeof value === 'string' && value.length > META_LIMITS.maxStringLength) throw new Refused(400, `meta.${printable(key)} is longer than ${META_LIMITS.maxStringLength} characters`);
  }
  if (Buffer.byteLength(JSON.stringify(meta)) > META_LIMITS.maxBytes) throw new Refused(400, `meta is larger than ${META_LIMITS.maxBytes} bytes`);
}

/** `{ meta, trace }` as `sendTrace` posts it, validated; `receivedAt` added. */
export function parseDocument(text: Buffer): TraceDocument {
  let value: any;
  try {
    value = JSON.parse(text.toString('utf8'));
  } catch {
    throw new Refused(400, 'not JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value) || !value.trace || typeof value.trace !== 'object') {
    throw new Refused(400, 'not a trace: expected { meta, trace: { resources, frames, stacks, samples } }');
  }
  checkMeta(value.meta);
  try {
    const document = validateDocument({ meta: value.meta, trace: value.trace }, { maxStringLength: MAX_TRACE_STRING });
    return { receivedAt: new Date().toISOString(), meta: document.meta, trace: document.trace };
  } catch (error) {
    if (!(error instanceof TraceError)) throw error;
    const reason = printable(error.message);
    throw new Refused(400, `not a valid trace: ${reason.length > 200 ? `${reason.slice(0, 200)}…` : reason}`);
  }
}
