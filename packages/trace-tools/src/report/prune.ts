/** The part of a call tree worth reading: the largest children of each node, none under a small share. */
import type { CallTreeNode } from './call-tree';

export interface TreeLimits {
  /** Most children shown under each node (and most roots). */
  maxChildren: number;
  /** Nodes whose total is under this fraction of the busy samples are hidden. */
  minShare: number;
}

export interface ShownNode {
  frameId: number;
  total: number;
  self: number;
  children: ShownNode[];
  /** Children left out, and the samples under them. */
  hidden?: { nodes: number; total: number };
}

export function pruneTree(node: CallTreeNode, busy: number, limits: TreeLimits): ShownNode {
  const kept = node.children.filter((c) => c.total > 0 && c.total >= limits.minShare * busy).slice(0, limits.maxChildren);
  const shown: ShownNode = { frameId: node.frameId, total: node.total, self: node.self, children: kept.map((c) => pruneTree(c, busy, limits)) };
  const left = node.children.slice(kept.length);
  if (left.length) shown.hidden = { nodes: left.length, total: left.reduce((sum, c) => sum + c.total, 0) };
  return shown;
}
