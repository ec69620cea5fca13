/**
 * Sends a trace from a page (`@jsprof/runtime/send`): JSON `{ meta, trace }`, gzipped with
 * CompressionStream where the browser has it, by `navigator.sendBeacon` (survives the page being
 * closed) or `fetch` with `keepalive`, within the size those allow (64 KB by default). A trace that
 * does not fit keeps every other sample until it does. Sent as `text/plain`, so a cross-origin
 * collector needs no preflight; the receiver recognises gzip by its magic bytes.
 */
import type { ProfilerTrace } from './trace';
import { mayBeLeaving } from './leaving';

export interface SendOptions {
  /** Where to POST the trace. */
  url: string;
  /** Largest body sent, in bytes (sendBeacon and keepalive fetch allow 64 KB in flight). */
  maxBytes?: number;
  /** Travels with the trace (page, release…). */
  meta?: Record<string, string | number | boolean>;
  transport?: 'beacon' | 'fetch';
  /** Gzip where the browser can (true by default). */
  gzip?: boolean;
}

export interface SendResult {
  sent: boolean;
  bytes: number;
  gzip: boolean;
  transport: 'beacon' | 'fetch' | null;
  /** Samples left out so that the body fits. */
  droppedSamples: number;
  reason?: string;
}

const DEFAULT_MAX_BYTES = 64 * 1024;
const MAX_HALVINGS = 12;

async function encode(text: string, gzip: boolean): Promise<{ body: Uint8Array; gzip: boolean }> {
  const raw = new TextEncoder().encode(text);
  const Compression = (globalThis as any).CompressionStream;
  if (!gzip || typeof Compression !== 'function' || mayBeLeaving()) return { body: raw, gzip: false };
  const stream = new Blob([raw]).stream().pipeThrough(new Compression('gzip'));
  return { body: new Uint8Array(await new Response(stream).arrayBuffer()), gzip: true };
}

/** JSON where a page's `Array.prototype.toJSON` (Prototype.js defines one, returning a string) is not applied: arrays stay arrays. */
function toJson(value: unknown): string {
  return JSON.stringify(value, function (this: any, key, replaced) {
    return Array.isArray(this[key]) ? this[key] : replaced;
  });
}

/** The trace with every other sample (the ones kept are spread over the whole run). */
function halved(trace: ProfilerTrace): ProfilerTrace {
  return { ...trace, samples: trace.samples.filter((_, i) => i % 2 === 0) };
}

export async function sendTrace(trace: ProfilerTrace, options: SendOptions): Promise<SendResult> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const encodeWith = (fitted: ProfilerTrace) => encode(toJson({ meta: options.meta ?? {}, trace: fitted }), options.gzip !== false);
  let fitted = trace;
  let encoded = await encodeWith(fitted);
  for (let i = 0; encoded.body.length > maxBytes && i < MAX_HALVINGS && fitted.samples.length > 0; i++) {
    fitted = halved(fitted);
    encoded = await encodeWith(fitted);
  }
  const result: SendResult = { sent: false, bytes: encoded.body.length, gzip: encoded.gzip, transport: null, droppedSamples: trace.samples.length - fitted.samples.length };
  if (encoded.body.length > maxBytes) return { ...result, reason: `the trace needs ${encoded.body.length} bytes, more than ${maxBytes}` };
  // Not the page's own URL (''), nor one named 'undefined'.
  if (!options.url) return { ...result, reason: 'no url to send to' };
  const blob = new Blob([encoded.body as BlobPart], { type: 'text/plain' });
  const nav = (globalThis as any).navigator;
  if (options.transport !== 'fetch' && typeof nav?.sendBeacon === 'function') {
    try {
      if (nav.sendBeacon(options.url, blob)) return { ...result, sent: true, transport: 'beacon' };
    } catch {
      // a beacon the browser refuses: try fetch
    }
  }
  if (typeof fetch !== 'function') return { ...result, reason: 'neither sendBeacon nor fetch is available' };
  try {
    const response = await fetch(options.url, { method: 'POST', body: blob, keepalive: true, mode: 'no-cors' });
    const sent = response.type === 'opaque' || response.ok;
    return { ...result, sent, transport: 'fetch', reason: sent ? undefined : `HTTP ${response.status}` };
  } catch (error) {
    return { ...result, transport: 'fetch', reason: String((error as Error)?.message ?? error) };
  }
}
