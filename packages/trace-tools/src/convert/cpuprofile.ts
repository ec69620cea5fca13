/**
 * A trace as V8's CPU profile (`.cpuprofile`): the format `node --cpu-prof` writes and Chrome
 * DevTools loads (Performance panel → Load profile). It is shaped as V8 shapes it: a `(root)` node,
 * one node per distinct call path, idle samples on an `(idle)` node under the root, built-ins with
 * an empty url, 0-based positions, times in microseconds. `positionTicks` (the lines self time was
 * spent on) are left out: a trace knows only where each function starts.
 */
import type { ProfilerFrame, ProfilerTrace } from '@jsprof/runtime';
import { sampleInterval } from './interval';

export interface CpuProfileCallFrame {
  functionName: string;
  /** A number as a string, one per script; "0" for none. */
  scriptId: string;
  url: string;
  /** 0-based; -1 when unknown. */
  lineNumber: number;
  /** 0-based; -1 when unknown. */
  columnNumber: number;
}

export interface CpuProfileNode {
  id: number;
  callFrame: CpuProfileCallFrame;
  /** Samples whose innermost node this is. */
  hitCount: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  /** Microseconds, on the trace's clock (performance.now() × 1000). */
  startTime: number;
  endTime: number;
  /** The node id of each sample. */
  samples: number[];
  /** Microseconds from the previous sample (the first: from startTime). */
  timeDeltas: number[];
}

const NO_SCRIPT = '0';

function specialFrame(functionName: string): CpuProfileCallFrame {
  return { functionName, scriptId: NO_SCRIPT, url: '', lineNumber: -1, columnNumber: -1 };
}

function callFrameOf(frame: ProfilerFrame, resources: string[]): CpuProfileCallFrame {
  if (frame.resourceId === undefined) return specialFrame(frame.name);
  return {
    functionName: frame.name,
    scriptId: String(frame.resourceId + 1),
    url: resources[frame.resourceId],
    lineNumber: (frame.line ?? 0) - 1,
    columnNumber: (frame.column ?? 0) - 1,
  };
}

/**
 * Converts a trace. The profile starts at the first sample and ends one sampling interval (the
 * median gap between samples; 10 ms when there are no two samples apart) after the last, so every
 * sample lasts until the next one, and the last one an interval.
 */
export function toCpuProfile(trace: ProfilerTrace): CpuProfile {
  const nodes: CpuProfileNode[] = [];
  const addNode = (callFrame: CpuProfileCallFrame, parent?: CpuProfileNode): CpuProfileNode => {
    const node: CpuProfileNode = { id: nodes.length + 1, callFrame, hitCount: 0 };
    nodes.push(node);
    if (parent) (parent.children ??= []).push(node.id);
    return node;
  };
  const root = addNode(specialFrame('(root)'));
  const callFrames = trace.frames.map((frame) => callFrameOf(frame, trace.resources));

  const childNodes = new Map<string, CpuProfileNode>();
  const childNode = (parent: CpuProfileNode, frameId: number): CpuProfileNode => {
    const key = `${parent.id}:${frameId}`;
    let node = childNodes.get(key);
    if (!node) {
      node = addNode(callFrames[frameId], parent);
      childNodes.set(key, node);
    }
    return node;
  };
  // Nodes are made only for the stacks samples reach, walking up to the nearest stack that has one.
  const stackNodes: CpuProfileNode[] = [];
  const nodeOfStack = (stackId: number): CpuProfileNode => {
    const missing: number[] = [];
    let s: number | undefined = stackId;
    while (s !== undefined && !stackNodes[s]) {
      missing.push(s);
      s = trace.stacks[s].parentId;
    }
    let node = s === undefined ? root : stackNodes[s];
    for (let i = missing.length - 1; i >= 0; i--) {
      node = childNode(node, trace.stacks[missing[i]].frameId);
      stackNodes[missing[i]] = node;
    }
    return node;
  };

  let idle: CpuProfileNode | undefined;
  const samples = trace.samples.map((sample) => {
    const node = sample.stackId === undefined ? (idle ??= addNode(specialFrame('(idle)'), root)) : nodeOfStack(sample.stackId);
    node.hitCount++;
    return node.id;
  });

  // Never back in time (Chromium's coarsened timestamps can step back by microseconds): deltas ≥ 0.
  let latest = -Infinity;
  const micros = trace.samples.map((sample) => (latest = Math.max(latest, Math.round(sample.timestamp * 1000))));
  const startTime = micros.length ? micros[0] : 0;
  const lastTime = micros.length ? micros[micros.length - 1] : startTime;
  return {
    nodes,
    startTime,
    endTime: micros.length ? lastTime + Math.round(sampleInterval(trace) * 1000) : startTime,
    samples,
    timeDeltas: micros.map((t, i) => t - (i ? micros[i - 1] : startTime)),
  };
}
