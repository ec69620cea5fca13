/** Self and total time per function of a trace, as counts of samples. */
import type { ProfilerTrace } from '@jsprof/runtime';
import { walkTree } from './report/tree-walk';

export interface FunctionTime {
  frameId: number;
  name: string;
  resource: string | null;
  line: number | null;
  column: number | null;
  /** Samples whose innermost frame is this function. */
  self: number;
  /** Samples with this function anywhere on the stack (counted once per sample). */
  total: number;
}

export interface TraceSummary {
  samples: number;
  /** Samples taken while JavaScript ran (with a stack). */
  busy: number;
  functions: FunctionTime[];
}

/** How many samples each stack has, and how many samples have one at all. */
export function samplesPerStack(trace: ProfilerTrace): { samplesOfStack: Float64Array; busy: number } {
  const samplesOfStack = new Float64Array(trace.stacks.length);
  let busy = 0;
  for (const { stackId } of trace.samples) {
    if (stackId === undefined) continue;
    samplesOfStack[stackId]++;
    busy++;
  }
  return { samplesOfStack, busy };
}

/** The samples at each stack or under it (stacks are listed parents first: one backward pass adds children up). */
export function samplesUnder(trace: ProfilerTrace, samplesOfStack: Float64Array): Float64Array {
  const under = Float64Array.from(samplesOfStack);
  for (let i = trace.stacks.length - 1; i >= 0; i--) {
    const parent = trace.stacks[i].parentId;
    if (parent !== undefined) under[parent] += under[i];
  }
  return under;
}

/**
 * Each function's total, counted once per sample however deeply it recurses, in one walk of the
 * stacks (not one walk up from every stack, which a trace thousands of frames deep makes quadratic):
 * `count(fn, samples)` for each stack whose function (`functionOf[frameId]`, below `functionCount`;
 * frames may share one) is not already on the path above it, with the samples at or under it.
 */
export function countOutermostCalls(trace: ProfilerTrace, samplesOfStack: Float64Array, functionOf: ArrayLike<number>, functionCount: number, count: (fn: number, samples: number) => void): void {
  const { stacks } = trace;
  const under = samplesUnder(trace, samplesOfStack);
  const children: number[][] = [];
  const roots: number[] = [];
  for (let i = stacks.length - 1; i >= 0; i--) {
    if (under[i] === 0) continue; // no sample at it or under it
    const parent = stacks[i].parentId;
    if (parent === undefined) roots.push(i);
    else (children[parent] ??= []).push(i);
  }
  const onPath = new Uint32Array(functionCount);
  walkTree(
    -1,
    (stackId) => (stackId === -1 ? roots : (children[stackId] ?? [])),
    (stackId) => {
      const fn = functionOf[stacks[stackId].frameId];
      if (onPath[fn]++ === 0) count(fn, under[stackId]);
    },
    (stackId) => {
      if (stackId !== -1) onPath[functionOf[stacks[stackId].frameId]]--;
    },
  );
}

export function summarize(trace: ProfilerTrace): TraceSummary {
  const functions: FunctionTime[] = trace.frames.map((f, frameId) => ({
    frameId,
    name: f.name,
    resource: f.resourceId === undefined ? null : trace.resources[f.resourceId],
    line: f.line ?? null,
    column: f.column ?? null,
    self: 0,
    total: 0,
  }));
  const { samplesOfStack, busy } = samplesPerStack(trace);
  samplesOfStack.forEach((samples, stackId) => {
    functions[trace.stacks[stackId].frameId].self += samples;
  });
  const frameIds = trace.frames.map((_, frameId) => frameId);
  countOutermostCalls(trace, samplesOfStack, frameIds, trace.frames.length, (frameId, samples) => {
    functions[frameId].total += samples;
  });
  return { samples: trace.samples.length, busy, functions };
}
