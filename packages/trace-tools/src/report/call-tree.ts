/**
 * Call trees as WebKit's Web Inspector shows them. Top-down starts from the outermost frames; a
 * node's total counts the samples taken anywhere under it, its self those taken in it. Bottom-up
 * (inverted) starts from the functions where time was spent, merged by function, and expands to their
 * callers; a node's total counts the samples of its root function that came through that chain of
 * callers, and only the roots have self time (equal to their total).
 *
 * Every node counts a sample at most once, so recursion never counts a sample twice: a recursive
 * function appears once per level, each level counting the samples under it.
 */
import type { ProfilerTrace } from '@jsprof/runtime';
import { mapTree } from './tree-walk';

export interface CallTreeNode {
  /** Index into the trace's frames; -1 at the root, which stands for every busy sample. */
  frameId: number;
  total: number;
  self: number;
  /** By total, largest first. */
  children: CallTreeNode[];
}

interface GrowingNode {
  frameId: number;
  total: number;
  self: number;
  children: Map<number, GrowingNode>;
}

function growingNode(frameId: number): GrowingNode {
  return { frameId, total: 0, self: 0, children: new Map() };
}

function child(parent: GrowingNode, frameId: number): GrowingNode {
  let node = parent.children.get(frameId);
  if (!node) parent.children.set(frameId, (node = growingNode(frameId)));
  return node;
}

function finish(root: GrowingNode): CallTreeNode {
  return mapTree(
    root,
    (node) => [...node.children.values()],
    (node, children: CallTreeNode[]) => ({ frameId: node.frameId, total: node.total, self: node.self, children: children.sort((a, b) => b.total - a.total || a.frameId - b.frameId) }),
  );
}

/** How many samples each stack has, and how many samples have one at all. */
function samplesPerStack(trace: ProfilerTrace): { counts: Map<number, number>; busy: number } {
  const counts = new Map<number, number>();
  let busy = 0;
  for (const { stackId } of trace.samples) {
    if (stackId === undefined) continue;
    counts.set(stackId, (counts.get(stackId) ?? 0) + 1);
    busy++;
  }
  return { counts, busy };
}

/** The frames of a stack, innermost first. */
function framesOf(trace: ProfilerTrace, stackId: number): number[] {
  const frames: number[] = [];
  for (let id: number | undefined = stackId; id !== undefined; id = trace.stacks[id].parentId) frames.push(trace.stacks[id].frameId);
  return frames;
}

function build(trace: ProfilerTrace, outermostFirst: boolean): CallTreeNode {
  const root = growingNode(-1);
  const { counts, busy } = samplesPerStack(trace);
  root.total = busy;
  for (const [stackId, count] of counts) {
    const frames = framesOf(trace, stackId);
    if (outermostFirst) frames.reverse();
    let node = root;
    for (const frameId of frames) {
      node = child(node, frameId);
      node.total += count;
    }
    // The innermost frame is where the time was spent: the path's last node top-down, its first bottom-up.
    (outermostFirst ? node : root.children.get(frames[0])!).self += count;
  }
  return finish(root);
}

export function topDownTree(trace: ProfilerTrace): CallTreeNode {
  return build(trace, true);
}

export function bottomUpTree(trace: ProfilerTrace): CallTreeNode {
  return build(trace, false);
}
