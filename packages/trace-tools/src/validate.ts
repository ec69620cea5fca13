/**
 * Checks that a value is a trace of the JS Self-Profiling API that every tool here can rely on:
 * indices in range, stacks listed parents first (so no cycles), finite timestamps in order, sizes
 * within limits. Field traces come from browsers nobody controls; a bad one is rejected with one
 * line that names the problem.
 */
import type { ProfilerTrace } from '@jsprof/runtime';

export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceError';
  }
}

export interface TraceLimits {
  /** Most entries in each of `resources`, `frames`, `stacks` and `samples`. */
  maxEntries?: number;
  /** Longest string (a resource URL or a frame name), in characters. */
  maxStringLength?: number;
}

/**
 * The largest timestamp (ms) a trace may have: the formats it converts to count microseconds, exact
 * in a double up to 2^53 (285 years; `performance.now()` counts from the page's start).
 */
export const MAX_TIMESTAMP = Math.floor(Number.MAX_SAFE_INTEGER / 1000);

/**
 * How far (ms) a sample's timestamp may fall behind the latest before it: Chromium coarsens the
 * timestamps of its own traces in pages that are not cross-origin isolated, and they can step back
 * by a few microseconds.
 */
export const TIMESTAMP_STEP_BACK = 0.1;

export const DEFAULT_LIMITS: Required<TraceLimits> = { maxEntries: 10_000_000, maxStringLength: 64 * 1024 };

/** What travels with a trace (`sendTrace`'s `meta`): page, release… Strings, numbers and booleans only. */
export type TraceMeta = Record<string, string | number | boolean>;

export interface TraceDocument {
  trace: ProfilerTrace;
  meta: TraceMeta;
  /** When the receiver stored it (`traceReceiver`'s files), if known. */
  receivedAt?: string;
}

/** A value as an error message quotes it: short strings and numbers as they are, anything else by its kind. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 20 ? 'a string' : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isIndex(value: unknown, length: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < length;
}

function isPosition(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffffffff;
}

function listOf(trace: Record<string, unknown>, key: string, limits: Required<TraceLimits>): unknown[] {
  const list = trace[key];
  if (!Array.isArray(list)) throw new TraceError(`"${key}" is ${list === undefined ? 'missing' : describe(list)}, not an array`);
  if (list.length > limits.maxEntries) throw new TraceError(`"${key}" has ${list.length} entries, more than the limit of ${limits.maxEntries}`);
  return list;
}

function entry(list: unknown[], key: string, i: number): Record<string, unknown> {
  const value = list[i];
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new TraceError(`${key}[${i}] is ${describe(value)}, not an object`);
  return value as Record<string, unknown>;
}

/** Returns `value` as a trace if it is a valid one; throws a `TraceError` naming the first problem otherwise. */
export function validateTrace(value: unknown, limits: TraceLimits = {}): ProfilerTrace {
  const max = { ...DEFAULT_LIMITS, ...limits };
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new TraceError(`the trace is ${describe(value)}, not an object`);
  const trace = value as Record<string, unknown>;
  const resources = listOf(trace, 'resources', max);
  const frames = listOf(trace, 'frames', max);
  const stacks = listOf(trace, 'stacks', max);
  const samples = listOf(trace, 'samples', max);

  resources.forEach((r, i) => {
    if (typeof r !== 'string') throw new TraceError(`resources[${i}] is ${describe(r)}, not a string`);
    if (r.length > max.maxStringLength) throw new TraceError(`resources[${i}] is ${r.length} characters long, more than the limit of ${max.maxStringLength}`);
  });
  for (let i = 0; i < frames.length; i++) {
    const f = entry(frames, 'frames', i);
    if (typeof f.name !== 'string') throw new TraceError(`frames[${i}].name is ${f.name === undefined ? 'missing' : describe(f.name)}, not a string`);
    if (f.name.length > max.maxStringLength) throw new TraceError(`frames[${i}].name is ${f.name.length} characters long, more than the limit of ${max.maxStringLength}`);
    if (f.resourceId !== undefined && !isIndex(f.resourceId, resources.length)) {
      throw new TraceError(`frames[${i}].resourceId ${describe(f.resourceId)} is not an index into resources (${resources.length} of them)`);
    }
    for (const key of ['line', 'column'] as const) {
      if (f[key] !== undefined && !isPosition(f[key])) throw new TraceError(`frames[${i}].${key} is ${describe(f[key])}, not a whole number ≥ 0`);
    }
  }
  for (let i = 0; i < stacks.length; i++) {
    const s = entry(stacks, 'stacks', i);
    if (!isIndex(s.frameId, frames.length)) throw new TraceError(`stacks[${i}].frameId ${s.frameId === undefined ? 'is missing' : `${describe(s.frameId)} is not an index into frames (${frames.length} of them)`}`);
    // Parents first: a parent is always an earlier stack, so following parents always ends.
    if (s.parentId !== undefined && !isIndex(s.parentId, i)) {
      throw new TraceError(`stacks[${i}].parentId ${describe(s.parentId)} is not an earlier stack (traces list parents first; this also rules out cycles)`);
    }
  }
  let previous = -Infinity;
  for (let i = 0; i < samples.length; i++) {
    const s = entry(samples, 'samples', i);
    if (typeof s.timestamp !== 'number' || !Number.isFinite(s.timestamp)) {
      throw new TraceError(`samples[${i}].timestamp is ${s.timestamp === undefined ? 'missing' : describe(s.timestamp)}, not a finite number`);
    }
    if (Math.abs(s.timestamp) > MAX_TIMESTAMP) {
      throw new TraceError(`samples[${i}].timestamp ${s.timestamp} is beyond ±${MAX_TIMESTAMP} ms, more than a clock gives (and than microseconds can hold exactly)`);
    }
    if (s.timestamp < previous - TIMESTAMP_STEP_BACK) {
      throw new TraceError(`samples[${i}].timestamp ${s.timestamp} is earlier than a sample before it (${previous})`);
    }
    previous = Math.max(previous, s.timestamp);
    if (s.stackId !== undefined && !isIndex(s.stackId, stacks.length)) {
      throw new TraceError(`samples[${i}].stackId ${describe(s.stackId)} is not an index into stacks (${stacks.length} of them)`);
    }
  }
  return value as ProfilerTrace;
}

function validateMeta(value: unknown): TraceMeta {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new TraceError(`"meta" is ${describe(value)}, not an object`);
  const meta: TraceMeta = {};
  for (const [key, v] of Object.entries(value)) {
    // Defined, not assigned: a key named __proto__ would set the object's prototype.
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) Object.defineProperty(meta, key, { value: v, enumerable: true, writable: true, configurable: true });
    else throw new TraceError(`meta.${key} is ${describe(v)}, not a string, number or boolean`);
  }
  return meta;
}

/**
 * A trace as files hold it: the bare trace (`profiler.stop()`'s value, `jsprof run`'s output), or
 * `{ meta, trace }` as `sendTrace` posts it, or `{ receivedAt, meta, trace }` as `traceReceiver`
 * stores it.
 */
export function validateDocument(value: unknown, limits: TraceLimits = {}): TraceDocument {
  if (value && typeof value === 'object' && !Array.isArray(value) && 'trace' in value && !('samples' in value)) {
    const doc = value as { trace: unknown; meta?: unknown; receivedAt?: unknown };
    const document: TraceDocument = { trace: validateTrace(doc.trace, limits), meta: validateMeta(doc.meta) };
    if (typeof doc.receivedAt === 'string') document.receivedAt = doc.receivedAt;
    return document;
  }
  return { trace: validateTrace(value, limits), meta: {} };
}
