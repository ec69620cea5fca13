/**
 * V8's CPU profile (what `node --cpu-prof` and Chrome DevTools write) as a JS Self-Profiling trace,
 * so that every command reads both: a node per call path becomes a stack (parents first), its call
 * frame a frame (1-based positions; built-ins, with no url, carry only their name), each sample a
 * sample at its time in ms. Samples on `(root)`, `(program)` and `(idle)` are idle, as a trace
 * has them; `(garbage collector)` keeps its own frame. Checked as strictly as a trace.
 */
import type { ProfilerTrace } from '@jsprof/runtime';
import { TraceError, TraceLimits, describe as describeValue } from '../validate';

/** How far (µs) a sample of a CPU profile may fall behind the latest before it. */
const MAX_STEP_BACK_US = 1_000_000;

/** Whether a parsed JSON value is shaped as a CPU profile rather than a trace. */
export function isCpuProfile(value: unknown): boolean {
  const v = value as Record<string, unknown> | null;
  return !!v && typeof v === 'object' && Array.isArray(v.nodes) && Array.isArray(v.samples) && !('frames' in v);
}

const IDLE = new Set(['(root)', '(program)', '(idle)']);
const DEFAULT_MAX_ENTRIES = 10_000_000;

function describe(value: unknown): string {
  return value === undefined ? 'missing' : describeValue(value);
}

export function fromCpuProfile(value: unknown, limits: TraceLimits = {}): ProfilerTrace {
  const profile = value as { nodes: any[]; samples: unknown[]; timeDeltas?: unknown[]; startTime?: unknown };
  const max = limits.maxEntries ?? DEFAULT_MAX_ENTRIES;
  for (const key of ['nodes', 'samples', 'timeDeltas'] as const) {
    if ((profile[key]?.length ?? 0) > max) throw new TraceError(`the profile's ${key} has more than ${max} entries`);
  }
  const deltas = profile.timeDeltas ?? [];
  if (deltas.length !== profile.samples.length) throw new TraceError(`the profile has ${profile.samples.length} samples but ${deltas.length} timeDeltas`);
  const start = profile.startTime ?? 0;
  if (typeof start !== 'number' || !Number.isFinite(start)) throw new TraceError(`the profile's startTime is ${describe(start)}, not a number`);

  const byId = new Map<number, any>();
  profile.nodes.forEach((node, i) => {
    if (!node || typeof node !== 'object' || !Number.isInteger(node.id)) throw new TraceError(`nodes[${i}].id is ${describe(node?.id)}, not a whole number`);
    if (byId.has(node.id)) throw new TraceError(`nodes[${i}].id ${node.id} is used twice`);
    const frame = node.callFrame;
    if (!frame || typeof frame !== 'object' || typeof frame.functionName !== 'string') throw new TraceError(`nodes[${i}].callFrame.functionName is missing`);
    byId.set(node.id, node);
  });
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of Array.isArray(node.children) ? node.children : []) {
      if (!byId.has(child)) throw new TraceError(`node ${node.id} has a child ${describe(child)} that is no node`);
      if (parentOf.has(child)) throw new TraceError(`node ${child} has two parents`);
      parentOf.set(child, node.id);
    }
  }

  const resources: string[] = [];
  const resourceIds = new Map<string, number>();
  const frames: ProfilerTrace['frames'] = [];
  const frameIds = new Map<string, number>();
  const frameOf = (callFrame: any): number => {
    const url: string = typeof callFrame.url === 'string' ? callFrame.url : '';
    const line = Number.isInteger(callFrame.lineNumber) && callFrame.lineNumber >= 0 ? callFrame.lineNumber + 1 : undefined;
    const column = Number.isInteger(callFrame.columnNumber) && callFrame.columnNumber >= 0 ? callFrame.columnNumber + 1 : undefined;
    const key = JSON.stringify([callFrame.functionName, url, line, column]);
    let id = frameIds.get(key);
    if (id === undefined) {
      const frame: ProfilerTrace['frames'][number] = { name: callFrame.functionName };
      if (url) {
        let resourceId = resourceIds.get(url);
        if (resourceId === undefined) resourceIds.set(url, (resourceId = resources.push(url) - 1));
        Object.assign(frame, { resourceId, line, column });
      }
      frameIds.set(key, (id = frames.push(frame) - 1));
    }
    return id;
  };

  // Stacks parents first: from the roots down, without recursion (a profile may be thousands of calls deep).
  const stacks: ProfilerTrace['stacks'] = [];
  const stackOf = new Map<number, number | undefined>();
  const stackIds = new Map<string, number>();
  const queue = profile.nodes.filter((node) => !parentOf.has(node.id)).map((node) => node.id as number);
  for (let q = 0; q < queue.length; q++) {
    const node = byId.get(queue[q]);
    const parentStack = parentOf.has(node.id) ? stackOf.get(parentOf.get(node.id)!) : undefined;
    let stack = parentStack;
    if (!IDLE.has(node.callFrame.functionName) || node.callFrame.url) {
      const frameId = frameOf(node.callFrame);
      const key = `${frameId}:${parentStack ?? ''}`;
      stack = stackIds.get(key);
      if (stack === undefined) {
        stacks.push(parentStack === undefined ? { frameId } : { frameId, parentId: parentStack });
        stackIds.set(key, (stack = stacks.length - 1));
      }
    }
    stackOf.set(node.id, stack);
    for (const child of Array.isArray(node.children) ? node.children : []) queue.push(child);
  }
  if (stackOf.size !== byId.size) throw new TraceError('the profile\'s nodes do not form a tree (a cycle)');

  // V8 records a few samples out of order (negative deltas): each is kept at the latest time so far, as DevTools keeps them in order.
  let time = start;
  let latest = start;
  const samples = profile.samples.map((id, i) => {
    const delta = deltas[i];
    if (typeof delta !== 'number' || !Number.isFinite(delta)) throw new TraceError(`timeDeltas[${i}] is ${describe(delta)}, not a number`);
    if (!byId.has(id as number)) throw new TraceError(`samples[${i}] ${describe(id)} is no node`);
    time += delta;
    // V8's reordering is of a few ms; a profile stepping back further has broken times, and every sample after it would land on one instant.
    if (latest - time > MAX_STEP_BACK_US) throw new TraceError(`timeDeltas[${i}] steps back ${((latest - time) / 1000).toFixed(0)} ms, more than a profile's samples are reordered (${MAX_STEP_BACK_US / 1000} ms at most)`);
    latest = Math.max(latest, time);
    const stackId = stackOf.get(id as number);
    return stackId === undefined ? { timestamp: latest / 1000 } : { timestamp: latest / 1000, stackId };
  });
  return { resources, frames, stacks, samples };
}
