/**
 * Reads trace files, plain JSON or gzip, within size limits: a file too large, a gzip bomb, a
 * truncated gzip or JSON that does not parse are refused with one line saying which.
 */
import * as fs from 'node:fs';
import { isatty } from 'node:tty';
import * as zlib from 'node:zlib';
import { fromCpuProfile, isCpuProfile } from './convert/from-cpuprofile';
import { TraceDocument, TraceError, TraceLimits, validateDocument, validateTrace } from './validate';

export interface ReadLimits extends TraceLimits {
  /** Largest file read, as stored (default 256 MB). */
  maxBytes?: number;
  /** Largest content once gunzipped (default 256 MB). */
  maxInflatedBytes?: number;
}

const MB = 1024 * 1024;
export const DEFAULT_MAX_BYTES = 256 * MB;

function size(bytes: number): string {
  return bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${bytes} bytes`;
}

/** The text of a trace file's bytes: gunzipped when they start with gzip's magic bytes. */
export function decodeTraceBytes(bytes: Buffer, limits: ReadLimits = {}): string {
  const maxInflated = limits.maxInflatedBytes ?? DEFAULT_MAX_BYTES;
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = zlib.gunzipSync(bytes, { maxOutputLength: maxInflated });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) throw new TraceError(`gunzips to more than ${size(maxInflated)} (the limit); refused`);
      if (code === 'Z_BUF_ERROR') throw new TraceError('the gzip data is truncated');
      throw new TraceError(`the gzip data is corrupt (${(error as Error).message})`);
    }
  } else if (bytes.length > maxInflated) {
    throw new TraceError(`is ${size(bytes.length)}, more than the limit of ${size(maxInflated)}`);
  }
  // A byte order mark (editors on Windows write one) is no part of the JSON.
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses and validates a trace document (or a V8 CPU profile) from text. */
export function parseTraceText(text: string, limits: ReadLimits = {}): TraceDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TraceError(text.trim() === '' ? 'is empty' : `is not JSON (${(error as Error).message})`);
  }
  // V8's CPU profiles (node --cpu-prof, DevTools) read as traces too.
  if (isCpuProfile(value)) return { trace: validateTrace(fromCpuProfile(value, limits), limits), meta: {} };
  if (isTraceEventFile(value)) {
    throw new TraceError(
      "is a Chrome trace-event file (what DevTools' Performance panel saves), not a trace: jsprof reads JS Self-Profiling traces and V8 CPU profiles (.cpuprofile, as node --cpu-prof writes them)",
    );
  }
  return validateDocument(value, limits);
}

/** Whether a parsed JSON value is Chrome's Trace Event Format: `{traceEvents: […]}`, or a bare array of events. */
function isTraceEventFile(value: unknown): boolean {
  const events = Array.isArray(value) ? value : (value as { traceEvents?: unknown } | null)?.traceEvents;
  return Array.isArray(events) && (events.length === 0 ? !Array.isArray(value) : typeof events[0]?.ph === 'string');
}

/** Reads, decodes and validates one trace file (`-`: standard input); a `TraceError`'s message names the file. */
export function readTraceFile(file: string, limits: ReadLimits = {}): TraceDocument {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  try {
    return parseTraceText(decodeTraceBytes(file === '-' ? readStandardInput(maxBytes) : readFile(file, maxBytes), limits), limits);
  } catch (error) {
    if (error instanceof TraceError) throw new TraceError(`${file === '-' ? 'standard input' : file}: ${error.message}`);
    throw error;
  }
}

function readFile(file: string, maxBytes: number): Buffer {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new TraceError((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `cannot be read (${(error as Error).message})`);
  }
  if (!stat.isFile()) throw new TraceError('is not a file');
  if (stat.size > maxBytes) throw new TraceError(`is ${size(stat.size)}, more than the limit of ${size(maxBytes)}`);
  return fs.readFileSync(file);
}

function readStandardInput(maxBytes: number): Buffer {
  // tty.isatty, not process.stdin: that would make a pipe non-blocking
  if (isatty(0)) throw new TraceError('is a terminal: pipe a trace in (jsprof symbolicate trace.json -s maps -o - | jsprof report -)');
  const chunks: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.alloc(1 << 16);
  for (let read; (read = readChunk(chunk)) > 0; ) {
    total += read;
    if (total > maxBytes) throw new TraceError(`is more than the limit of ${size(maxBytes)}`);
    chunks.push(Buffer.from(chunk.subarray(0, read)));
  }
  return Buffer.concat(chunks, total);
}

/** One read of standard input: 0 at its end. */
function readChunk(into: Buffer): number {
  for (;;) {
    try {
      return fs.readSync(0, into, 0, into.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EOF') return 0;
      // a pipe made non-blocking by someone else, with nothing in it yet: wait a little
      if (code !== 'EAGAIN') throw new TraceError(`cannot be read (${(error as Error).message})`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}
