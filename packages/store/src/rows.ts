/**
 * One trace as the rows every store writes: the trace (labels and counts), time per function and
 * per stack in it, the functions and stacks it names, and its raw frames (to symbolicate it again).
 *
 * Times follow `jsprof aggregate`: each sample counts as the trace's sampling interval (the median
 * gap between its samples); a function's self time has it innermost on the stack, its total time
 * anywhere on the stack, once per sample however often it recurses.
 */
import type { ProfilerTrace } from '@jsprof/runtime';
import { TraceDocument, TraceMeta, sampleInterval } from '@jsprof/trace-tools';
import { hashText } from './hash';
import { FunctionRow, IdentifiedTrace, StackRow } from './identity';

/** The `meta` keys that become columns; a trace without one has ''. */
export const LABELS = ['release', 'page', 'browser'] as const;
export type Label = (typeof LABELS)[number];

export interface Labels {
  /** The day the trace was received (`receivedAt`), or ingested; YYYY-MM-DD, UTC. */
  day: string;
  release: string;
  page: string;
  browser: string;
}

export interface TraceRow extends Labels {
  traceId: string;
  /** The whole `meta`, as JSON. */
  meta: string;
  intervalMs: number;
  samples: number;
  busySamples: number;
  idleSamples: number;
  busyMs: number;
  idleMs: number;
}

export interface TraceFunctionRow extends Labels {
  traceId: string;
  functionId: string;
  selfMs: number;
  totalMs: number;
}

export interface TraceStackRow extends Labels {
  traceId: string;
  stackId: string;
  samples: number;
  ms: number;
}

/** What ingesting a trace again needs (with other source maps): its meta, its frames and stacks as received, and the samples of each stack. */
export interface RawTrace {
  meta: TraceMeta;
  receivedAt?: string;
  resources: string[];
  frames: ProfilerTrace['frames'];
  stacks: ProfilerTrace['stacks'];
  /** Samples of each stack, by index. */
  stackSamples: number[];
  idleSamples: number;
  intervalMs: number;
}

export interface TraceRows {
  trace: TraceRow;
  functions: FunctionRow[];
  stacks: StackRow[];
  traceFunctions: TraceFunctionRow[];
  traceStacks: TraceStackRow[];
  raw: { traceId: string; day: string; raw: string };
}

function label(meta: TraceMeta, key: string): string {
  return Object.prototype.hasOwnProperty.call(meta, key) ? String(meta[key]) : '';
}

/** The UTC day of an ISO time, or of `now` when there is none or it does not parse. */
export function dayOf(receivedAt: string | undefined, now: Date): string {
  const time = receivedAt === undefined ? NaN : Date.parse(receivedAt);
  return new Date(Number.isFinite(time) ? time : now.getTime()).toISOString().slice(0, 10);
}

/** Samples of each stack of `trace`, and samples without a stack. */
function countSamples(trace: ProfilerTrace): { stackSamples: number[]; idleSamples: number } {
  const stackSamples = new Array<number>(trace.stacks.length).fill(0);
  let idleSamples = 0;
  for (const sample of trace.samples) {
    if (sample.stackId === undefined) idleSamples++;
    else stackSamples[sample.stackId]++;
  }
  return { stackSamples, idleSamples };
}

/** The raw part of a trace document: meta, frames and stacks as received, samples counted per stack. */
export function rawTraceOf(document: TraceDocument): RawTrace {
  const { trace, meta, receivedAt } = document;
  const counts = countSamples(trace);
  return { meta, ...(receivedAt === undefined ? {} : { receivedAt }), resources: trace.resources, frames: trace.frames, stacks: trace.stacks, ...counts, intervalMs: sampleInterval(trace) };
}

/**
 * The document of a raw trace: its frames, stacks and sample counts, samples `intervalMs` apart.
 * It gives the same rows as the document it was taken from, so it can be ingested again with other
 * source maps.
 */
export function documentOfRaw(raw: RawTrace): TraceDocument {
  const samples: ProfilerTrace['samples'] = [];
  const at = () => samples.length * raw.intervalMs;
  raw.stackSamples.forEach((count, stackId) => {
    for (let i = 0; i < count; i++) samples.push({ timestamp: at(), stackId });
  });
  for (let i = 0; i < raw.idleSamples; i++) samples.push({ timestamp: at() });
  const trace = { resources: raw.resources, frames: raw.frames, stacks: raw.stacks, samples };
  return raw.receivedAt === undefined ? { meta: raw.meta, trace } : { meta: raw.meta, receivedAt: raw.receivedAt, trace };
}

/**
 * The rows of one trace: `document` as received, `identified` its trace after identification
 * (symbolicated). The trace id is the hash of the raw trace, so ingesting the same trace twice (or
 * again from the raw rows) can be detected.
 */
export function traceRows(document: TraceDocument, identified: IdentifiedTrace, now: Date = new Date()): TraceRows {
  const raw = rawTraceOf(document);
  const rawText = JSON.stringify(raw);
  const meta = JSON.stringify(document.meta);
  const traceId = hashText(rawText);
  const labels: Labels = { day: dayOf(document.receivedAt, now), release: label(document.meta, 'release'), page: label(document.meta, 'page'), browser: label(document.meta, 'browser') };

  const { trace, frameFunctions, stacks } = identified;
  const interval = raw.intervalMs;
  const { stackSamples, idleSamples } = countSamples(trace);
  const busySamples = trace.samples.length - idleSamples;
  const selfMs = new Map<string, number>();
  const totalMs = new Map<string, number>();
  const stackTimes = new Map<string, { samples: number; ms: number }>();
  const functions = new Map<string, FunctionRow>();
  const usedStacks = new Map<string, StackRow>();

  stackSamples.forEach((count, index) => {
    if (count === 0) return;
    const ms = count * interval;
    const stack = stacks[index];
    selfMs.set(stack.functionId, (selfMs.get(stack.functionId) ?? 0) + ms);
    const seen = new Set<string>();
    for (let s: number | undefined = index; s !== undefined; s = trace.stacks[s].parentId) {
      const fn = frameFunctions[trace.stacks[s].frameId];
      usedStacks.set(stacks[s].stackId, stacks[s]);
      functions.set(fn.functionId, fn);
      if (seen.has(fn.functionId)) continue;
      seen.add(fn.functionId);
      totalMs.set(fn.functionId, (totalMs.get(fn.functionId) ?? 0) + ms);
    }
    const time = stackTimes.get(stack.stackId) ?? { samples: 0, ms: 0 };
    time.samples += count;
    time.ms += ms;
    stackTimes.set(stack.stackId, time);
  });

  return {
    trace: { traceId, ...labels, meta, intervalMs: interval, samples: trace.samples.length, busySamples, idleSamples, busyMs: busySamples * interval, idleMs: idleSamples * interval },
    functions: [...functions.values()],
    stacks: [...usedStacks.values()],
    traceFunctions: [...totalMs].map(([functionId, total]) => ({ traceId, ...labels, functionId, selfMs: selfMs.get(functionId) ?? 0, totalMs: total })),
    traceStacks: [...stackTimes].map(([stackId, time]) => ({ traceId, ...labels, stackId, ...time })),
    raw: { traceId, day: labels.day, raw: rawText },
  };
}
