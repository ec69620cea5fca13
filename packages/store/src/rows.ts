/**
 * One trace as the rows every store writes: the trace (labels and counts), time per function and
 * per stack in it, the functions and stacks it names, and its raw frames (to symbolicate it again).
 *
 * Times follow `jsprof aggregate`: each sample counts as the trace's sampling interval (the median
 * gap between its samples); a function's self time has it innermost on the stack, its total time
 * anywhere on the stack, once per sample however often it recurses.
 */
import type { ProfilerTrace } from '@jsprof/runtime';
import { TraceDocument, TraceError, TraceMeta, sampleInterval } from '@jsprof/trace-tools';
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

/** Time per function in a trace (one row each of the trace's table of function times), a column per field. */
export interface FunctionTimes {
  functionIds: string[];
  selfMs: Float64Array;
  totalMs: Float64Array;
}

/** Time per stack that is innermost in some sample of a trace, a column per field. */
export interface StackTimes {
  stackIds: string[];
  samples: Uint32Array;
  ms: Float64Array;
}

/** What ingesting a trace again needs (with other source maps): its meta, its frames and stacks as received, and the samples of each stack. */
export interface RawTrace {
  meta: TraceMeta;
  receivedAt?: string;
  resources: string[];
  frames: ProfilerTrace['frames'];
  /** Two numbers a stack, stack after stack: its frame, and its parent plus one (0 for none). A third of the text of `{frameId, parentId}` objects. */
  stacks: number[];
  /** Samples of each stack, by index. */
  stackSamples: number[];
  idleSamples: number;
  intervalMs: number;
}

export interface TraceRows {
  trace: TraceRow;
  functions: FunctionRow[];
  stacks: StackRow[];
  /** Columns rather than row objects: a worker thread sends them cheaply, and stores append them as columns. */
  functionTimes: FunctionTimes;
  stackTimes: StackTimes;
  raw: { traceId: string; day: string; raw: string };
}

function label(meta: TraceMeta, key: string): string {
  return Object.prototype.hasOwnProperty.call(meta, key) ? String(meta[key]) : '';
}

/** The days both stores can keep: ClickHouse's `Date`. */
const FIRST_DAY = Date.UTC(1970, 0, 1);
const LAST_DAY = Date.UTC(2149, 5, 6);

/** The UTC day of an ISO time, or of `now` when there is none or it does not parse; a day no store keeps is refused. */
export function dayOf(receivedAt: string | undefined, now: Date): string {
  const time = receivedAt === undefined ? NaN : Date.parse(receivedAt);
  if (!Number.isFinite(time)) return now.toISOString().slice(0, 10);
  if (time < FIRST_DAY || time >= LAST_DAY + 86_400_000) {
    throw new TraceError(`receivedAt ${JSON.stringify(receivedAt!.slice(0, 40))} is not a day a store keeps (1970-01-01 to 2149-06-06)`);
  }
  return new Date(time).toISOString().slice(0, 10);
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
  const stacks = new Array<number>(trace.stacks.length * 2);
  trace.stacks.forEach((stack, i) => {
    stacks[2 * i] = stack.frameId;
    stacks[2 * i + 1] = stack.parentId === undefined ? 0 : stack.parentId + 1;
  });
  return { meta, ...(receivedAt === undefined ? {} : { receivedAt }), resources: trace.resources, frames: trace.frames, stacks, ...counts, intervalMs: sampleInterval(trace) };
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
  const stacks: ProfilerTrace['stacks'] = [];
  for (let i = 0; i < raw.stacks.length; i += 2) {
    const frameId = raw.stacks[i];
    const parent = raw.stacks[i + 1];
    stacks.push(parent === 0 ? { frameId } : { parentId: parent - 1, frameId });
  }
  const trace = { resources: raw.resources, frames: raw.frames, stacks, samples };
  return raw.receivedAt === undefined ? { meta: raw.meta, trace } : { meta: raw.meta, receivedAt: raw.receivedAt, trace };
}

/**
 * Self and total ms of each function the samples reach, and the stacks they use (theirs and their
 * callers'), in one walk of the stack tree: a function's total counts the samples under its
 * outermost frame on each path, so a sample counts once however often the function recurses.
 */
function timesOf(trace: ProfilerTrace, frameFunctions: FunctionRow[], stackSamples: number[], interval: number) {
  const n = trace.stacks.length;
  // Functions numbered within the trace (frames of one function share its number).
  const numbers = new Map<string, number>();
  const functions: FunctionRow[] = [];
  const frameNumber = frameFunctions.map((fn) => {
    let number = numbers.get(fn.functionId);
    if (number === undefined) numbers.set(fn.functionId, (number = functions.push(fn) - 1));
    return number;
  });
  const functionOf = (stack: number) => frameNumber[trace.stacks[stack].frameId];
  // Samples at or under each stack: parents come first, so one backward pass adds children up.
  const under = Float64Array.from(stackSamples);
  for (let i = n - 1; i >= 0; i--) {
    const parent = trace.stacks[i].parentId;
    if (parent !== undefined) under[parent] += under[i];
  }
  const firstChild = new Int32Array(n).fill(-1);
  const nextSibling = new Int32Array(n).fill(-1);
  const roots: number[] = [];
  for (let i = n - 1; i >= 0; i--) {
    if (under[i] === 0) continue;
    const parent = trace.stacks[i].parentId;
    if (parent === undefined) roots.push(i);
    else {
      nextSibling[i] = firstChild[parent];
      firstChild[parent] = i;
    }
  }
  const selfMs = new Float64Array(functions.length);
  const totalMs = new Float64Array(functions.length);
  const onPath = new Int32Array(functions.length);
  const usedStacks: number[] = [];
  const enter = (stack: number) => {
    const fn = functionOf(stack);
    if (onPath[fn]++ === 0) totalMs[fn] += under[stack] * interval;
    selfMs[fn] += stackSamples[stack] * interval;
    usedStacks.push(stack);
  };
  // Depth first without recursion (stacks can be thousands of frames deep).
  const path: number[] = [];
  const next = new Int32Array(n);
  for (let r = roots.length - 1; r >= 0; r--) {
    path.push(roots[r]);
    enter(roots[r]);
    next[roots[r]] = firstChild[roots[r]];
    while (path.length > 0) {
      const top = path[path.length - 1];
      const child = next[top];
      if (child === -1) {
        onPath[functionOf(top)]--;
        path.pop();
        continue;
      }
      next[top] = nextSibling[child];
      path.push(child);
      enter(child);
      next[child] = firstChild[child];
    }
  }
  return { functions, selfMs, totalMs, usedStacks };
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
  const times = timesOf(trace, frameFunctions, stackSamples, interval);
  // The functions the samples reached: those with time under them.
  const reached = times.functions.flatMap((_, i) => (times.totalMs[i] > 0 ? [i] : []));
  const functionTimes: FunctionTimes = {
    functionIds: reached.map((i) => times.functions[i].functionId),
    selfMs: Float64Array.from(reached, (i) => times.selfMs[i]),
    totalMs: Float64Array.from(reached, (i) => times.totalMs[i]),
  };
  // Stacks of the trace that are one stack of the store (frames of one function at two lines) give one row.
  const usedStackRows = new Set<StackRow>();
  for (const index of times.usedStacks) usedStackRows.add(stacks[index]);
  const stackSampleCounts = new Map<string, number>();
  stackSamples.forEach((count, index) => {
    if (count > 0) stackSampleCounts.set(stacks[index].stackId, (stackSampleCounts.get(stacks[index].stackId) ?? 0) + count);
  });
  const stackTimes: StackTimes = {
    stackIds: [...stackSampleCounts.keys()],
    samples: Uint32Array.from(stackSampleCounts.values()),
    ms: Float64Array.from(stackSampleCounts.values(), (count) => count * interval),
  };

  return {
    trace: { traceId, ...labels, meta, intervalMs: interval, samples: trace.samples.length, busySamples, idleSamples, busyMs: busySamples * interval, idleMs: idleSamples * interval },
    functions: reached.map((i) => times.functions[i]),
    stacks: [...usedStackRows],
    functionTimes,
    stackTimes,
    raw: { traceId, day: labels.day, raw: rawText },
  };
}
