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
import { samplesPerStack, samplesUnder } from '../analyze';
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

/** The frames of a stack, innermost first. */
function framesOf(trace: ProfilerTrace, stackId: number): number[] {
  const frames: number[] = [];
  for (let id: number | undefined = stackId; id !== undefined; id = trace.stacks[id].parentId) frames.push(trace.stacks[id].frameId);
  return frames;
}

export function topDownTree(trace: ProfilerTrace): CallTreeNode {
  const root = growingNode(-1);
  const { samplesOfStack, busy } = samplesPerStack(trace);
  root.total = busy;
  // Each stack is its parent's node's child (parents come first): a node's total is the samples under its stacks.
  const under = samplesUnder(trace, samplesOfStack);
  const nodeOfStack: GrowingNode[] = [];
  trace.stacks.forEach((stack, stackId) => {
    if (under[stackId] === 0) return;
    const node = child(stack.parentId === undefined ? root : nodeOfStack[stack.parentId], stack.frameId);
    node.total += under[stackId];
    node.self += samplesOfStack[stackId];
    nodeOfStack[stackId] = node;
  });
  return finish(root);
}

export function bottomUpTree(trace: ProfilerTrace): CallTreeNode {
  const root = growingNode(-1);
  const { samplesOfStack, busy } = samplesPerStack(trace);
  root.total = busy;
  samplesOfStack.forEach((count, stackId) => {
    if (count === 0) return;
    // From where the time was spent (merged by function) out to its callers.
    let node = root;
    for (const frameId of framesOf(trace, stackId)) {
      node = child(node, frameId);
      node.total += count;
    }
    root.children.get(trace.stacks[stackId].frameId)!.self += count;
  });
  return finish(root);
}
