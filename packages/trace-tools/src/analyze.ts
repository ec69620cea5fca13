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
  // Samples on each stack, then under it (its own and its descendants': stacks are listed parents first).
  const { stacks } = trace;
  const under = new Float64Array(stacks.length);
  let busy = 0;
  for (const sample of trace.samples) {
    if (sample.stackId === undefined) continue;
    busy++;
    under[sample.stackId]++;
    functions[stacks[sample.stackId].frameId].self++;
  }
  const children: number[][] = [];
  const roots: number[] = [];
  for (let i = stacks.length - 1; i >= 0; i--) {
    const parent = stacks[i].parentId;
    if (under[i] === 0) continue; // no sample at it or under it
    if (parent === undefined) roots.push(i);
    else {
      under[parent] += under[i];
      (children[parent] ??= []).push(i);
    }
  }
  // A function's total is the samples under its outermost call on each path: recursion counts a sample once.
  const onPath = new Uint32Array(trace.frames.length);
  walkTree(
    -1,
    (stackId) => (stackId === -1 ? roots : (children[stackId] ?? [])),
    (stackId) => {
      const frameId = stacks[stackId].frameId;
      if (onPath[frameId]++ === 0) functions[frameId].total += under[stackId];
    },
    (stackId) => {
      if (stackId !== -1) onPath[stacks[stackId].frameId]--;
    },
  );
  return { samples: trace.samples.length, busy, functions };
}
