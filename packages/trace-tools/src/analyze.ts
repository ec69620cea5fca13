/** Self and total time per function of a trace, as counts of samples. */
import type { ProfilerTrace } from '@jsprof/runtime';

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
  // Frames on each stack, computed once per stack (stacks are parent-first).
  const framesOf: number[][] = [];
  trace.stacks.forEach((s, i) => {
    const parent = s.parentId === undefined ? [] : framesOf[s.parentId];
    framesOf[i] = parent.includes(s.frameId) ? parent : [...parent, s.frameId];
  });
  let busy = 0;
  for (const sample of trace.samples) {
    if (sample.stackId === undefined) continue;
    busy++;
    functions[trace.stacks[sample.stackId].frameId].self++;
    for (const f of framesOf[sample.stackId]) functions[f].total++;
  }
  return { samples: trace.samples.length, busy, functions };
}
