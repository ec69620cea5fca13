/**
 * Merges traces, one at a time, into time per function across all of them (and per group of a
 * `meta` key). What it keeps grows with the number of distinct functions and groups, both capped,
 * never with the number of traces.
 *
 * Each sample stands for its trace's sampling interval, the median gap between its samples: the
 * median ignores the long gaps of a page that was hidden, and a trace thinned to every other sample
 * (as `sendTrace` does to fit its size limit) gets twice the interval, so its samples still add up
 * to the time it covered. Times are in milliseconds; a share is a share of the time JavaScript ran,
 * summed over the traces.
 */
import type { ProfilerFrame, ProfilerTrace } from '@jsprof/runtime';
import type { TraceDocument, TraceMeta } from '../validate';
import { sampleInterval } from '../convert/interval';
import { countOutermostCalls, samplesPerStack } from '../analyze';

export interface AggregateOptions {
  /** A key of the traces' `meta` (page, release…): one view per value of it. */
  groupBy?: string;
  /** Most distinct functions kept; functions first seen after that are counted as one, OTHER_FUNCTIONS. */
  maxFunctions?: number;
  /** Most groups kept; values first seen after that are counted as one group, OTHER_GROUPS. */
  maxGroups?: number;
}

export const DEFAULT_MAX_FUNCTIONS = 100_000;
export const DEFAULT_MAX_GROUPS = 100;
/** The group of traces whose `meta` lacks the `groupBy` key. */
export const NO_GROUP = '(none)';
export const OTHER_GROUPS = '(other groups)';
export const OTHER_FUNCTIONS = '(other functions)';

/** A function is its name, resource, line and column (the same function in two traces). */
export interface FunctionId {
  name: string;
  resource: string | null;
  line: number | null;
  column: number | null;
}

export interface AggregateFunction extends FunctionId {
  /** Time with this function innermost on the stack. */
  selfMs: number;
  /** Time with this function anywhere on the stack (once per sample, however often it recurses). */
  totalMs: number;
  /** `selfMs` and `totalMs` as shares (0 to 1) of the group's `busyMs`. */
  self: number;
  total: number;
  /** How many of the group's traces have it on a stack at least once. */
  traces: number;
}

export interface AggregateCounts {
  traces: number;
  samples: number;
  /** Samples with a stack (JavaScript ran), and the time they stand for. */
  busySamples: number;
  busyMs: number;
  /** Samples without a stack (no JavaScript ran), and the time they stand for. */
  idleSamples: number;
  idleMs: number;
}

export interface AggregateView extends AggregateCounts {
  name: string;
  /** Functions that ran in the group, by self time then total time, largest first. */
  functions: AggregateFunction[];
}

export interface AggregateResult {
  groupBy: string | null;
  /** Traces refused as unreadable or invalid; they are counted nowhere else. */
  rejected: number;
  /** Every accepted trace together. */
  all: AggregateView;
  /** One view per value of `groupBy`, by busy time, largest first; empty without `groupBy`. */
  groups: AggregateView[];
  maxFunctions: number;
  /** Whether more than `maxFunctions` distinct functions were seen (the rest are in OTHER_FUNCTIONS). */
  functionsCapped: boolean;
  maxGroups: number;
  /** Whether more than `maxGroups` groups were seen (the rest are in OTHER_GROUPS). */
  groupsCapped: boolean;
}

function grown(array: Float64Array, length: number): Float64Array {
  if (array.length >= length) return array;
  const bigger = new Float64Array(Math.max(length, array.length * 2, 64));
  bigger.set(array);
  return bigger;
}

/** Counts and per-function times of one group, indexed by function. */
class Tally {
  counts: AggregateCounts = { traces: 0, samples: 0, busySamples: 0, busyMs: 0, idleSamples: 0, idleMs: 0 };
  selfMs: Float64Array = new Float64Array(0);
  totalMs: Float64Array = new Float64Array(0);
  traces: Float64Array = new Float64Array(0);

  fit(functions: number): void {
    this.selfMs = grown(this.selfMs, functions);
    this.totalMs = grown(this.totalMs, functions);
    this.traces = grown(this.traces, functions);
  }

  addTally(other: Tally): void {
    for (const key of Object.keys(this.counts) as (keyof AggregateCounts)[]) this.counts[key] += other.counts[key];
    this.fit(other.selfMs.length);
    for (let f = 0; f < other.selfMs.length; f++) {
      this.selfMs[f] += other.selfMs[f];
      this.totalMs[f] += other.totalMs[f];
      this.traces[f] += other.traces[f];
    }
  }

  view(name: string, functions: FunctionId[]): AggregateView {
    const { busyMs } = this.counts;
    const rows: AggregateFunction[] = [];
    const known = Math.min(functions.length, this.totalMs.length);
    for (let f = 0; f < known; f++) {
      const totalMs = this.totalMs[f];
      if (totalMs === 0) continue;
      const selfMs = this.selfMs[f];
      const { name: functionName, resource, line, column } = functions[f];
      // A literal, not a spread: a spread's copies are slow objects, and there can be 100,000 of them.
      rows.push({ name: functionName, resource, line, column, selfMs, totalMs, self: selfMs / busyMs, total: totalMs / busyMs, traces: this.traces[f] });
    }
    rows.sort((a, b) => b.selfMs - a.selfMs || b.totalMs - a.totalMs);
    return { name, ...this.counts, functions: rows };
  }
}

export class Aggregator {
  private readonly groupBy: string | null;
  private readonly maxFunctions: number;
  private readonly maxGroups: number;
  private readonly functions: FunctionId[] = [];
  private readonly functionByKey = new Map<string, number>();
  private otherFunctions: number | null = null;
  private readonly groups = new Map<string, Tally>();
  private groupsCapped = false;
  private rejected = 0;
  // Marks that count a function once per trace: the trace that last saw it.
  private lastTrace: Float64Array = new Float64Array(0);
  private traceCount = 0;

  constructor(options: AggregateOptions = {}) {
    this.groupBy = options.groupBy ?? null;
    this.maxFunctions = options.maxFunctions ?? DEFAULT_MAX_FUNCTIONS;
    this.maxGroups = options.maxGroups ?? DEFAULT_MAX_GROUPS;
  }

  /** Counts one trace that could not be read. */
  reject(): void {
    this.rejected++;
  }

  add(document: TraceDocument): void {
    const { trace } = document;
    const tally = this.tallyFor(document.meta);
    const functionOf = trace.frames.map((frame) => this.functionIndex(frame, trace.resources));
    tally.fit(this.functions.length);
    this.lastTrace = grown(this.lastTrace, this.functions.length);
    const traceMark = ++this.traceCount;

    const interval = sampleInterval(trace);
    const { samplesOfStack, busy } = samplesPerStack(trace);
    const idle = trace.samples.length - busy;
    const counts = tally.counts;
    counts.traces++;
    counts.samples += trace.samples.length;
    counts.busySamples += busy;
    counts.busyMs += busy * interval;
    counts.idleSamples += idle;
    counts.idleMs += idle * interval;

    samplesOfStack.forEach((samples, stackId) => {
      tally.selfMs[functionOf[trace.stacks[stackId].frameId]] += samples * interval;
    });
    countOutermostCalls(trace, samplesOfStack, functionOf, this.functions.length, (f, samples) => {
      tally.totalMs[f] += samples * interval;
      if (this.lastTrace[f] !== traceMark) {
        this.lastTrace[f] = traceMark;
        tally.traces[f]++;
      }
    });
  }

  result(): AggregateResult {
    const all = new Tally();
    for (const tally of this.groups.values()) all.addTally(tally);
    const groups = this.groupBy === null ? [] : [...this.groups].map(([name, tally]) => tally.view(name, this.functions));
    groups.sort((a, b) => b.busyMs - a.busyMs || b.traces - a.traces);
    return {
      groupBy: this.groupBy,
      rejected: this.rejected,
      all: all.view('all', this.functions),
      groups,
      maxFunctions: this.maxFunctions,
      functionsCapped: this.otherFunctions !== null,
      maxGroups: this.maxGroups,
      groupsCapped: this.groupsCapped,
    };
  }

  private tallyFor(meta: TraceMeta): Tally {
    // The trace's own key only: `constructor` or `toString` would find Object's.
    const own = this.groupBy !== null && Object.prototype.hasOwnProperty.call(meta, this.groupBy);
    let name = this.groupBy === null ? 'all' : own ? String(meta[this.groupBy!]) : NO_GROUP;
    if (!this.groups.has(name) && this.groups.size >= this.maxGroups) {
      this.groupsCapped = true;
      name = OTHER_GROUPS;
    }
    let tally = this.groups.get(name);
    if (!tally) this.groups.set(name, (tally = new Tally()));
    return tally;
  }

  private functionIndex(frame: ProfilerFrame, resources: ProfilerTrace['resources']): number {
    const id: FunctionId = {
      name: frame.name,
      resource: frame.resourceId === undefined ? null : resources[frame.resourceId],
      line: frame.line ?? null,
      column: frame.column ?? null,
    };
    const key = JSON.stringify([id.name, id.resource, id.line, id.column]);
    const known = this.functionByKey.get(key);
    if (known !== undefined) return known;
    if (this.functions.length >= this.maxFunctions) return this.otherFunctionsIndex();
    this.functionByKey.set(key, this.functions.length);
    return this.functions.push(id) - 1;
  }

  private otherFunctionsIndex(): number {
    if (this.otherFunctions === null) {
      this.otherFunctions = this.functions.push({ name: OTHER_FUNCTIONS, resource: null, line: null, column: null }) - 1;
    }
    return this.otherFunctions;
  }
}
