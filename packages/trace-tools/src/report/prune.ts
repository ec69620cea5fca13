/** The part of a call tree worth reading: the largest children of each node, none under a small share. */
import type { CallTreeNode } from './call-tree';
import { mapTree } from './tree-walk';

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

export function pruneTree(root: CallTreeNode, busy: number, limits: TreeLimits): ShownNode {
  // Children are sorted by total, so those kept are a prefix.
  const kept = (node: CallTreeNode) => node.children.filter((c) => c.total > 0 && c.total >= limits.minShare * busy).slice(0, limits.maxChildren);
  return mapTree(root, kept, (node, children: ShownNode[]) => {
    const shown: ShownNode = { frameId: node.frameId, total: node.total, self: node.self, children };
    const left = node.children.slice(children.length);
    if (left.length) shown.hidden = { nodes: left.length, total: left.reduce((sum, c) => sum + c.total, 0) };
    return shown;
  });
}
