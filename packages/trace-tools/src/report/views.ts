/**
 * `jsprof report`'s views of a trace, as text or as JSON: the hottest functions, and the call trees
 * top-down and bottom-up. Shares are of the busy samples (those taken while JavaScript ran).
 */
import type { ProfilerTrace } from '@jsprof/runtime';
import { summarize } from '../analyze';
import type { TraceDocument } from '../validate';
import { bottomUpTree, topDownTree } from './call-tree';
import { FrameInfo, displayName, frameInfo } from './frames';
import { columns, formatHeader, formatReport, hottestFunctions, percent } from './functions';
import { estimateInterval } from './interval';
import { ShownNode, TreeLimits, pruneTree } from './prune';
import { printable } from './text-safety';
import { MAX_INDENT_DEPTH, mapTree, walkTree } from './tree-walk';

export const VIEWS = ['functions', 'top-down', 'bottom-up'] as const;
export type ReportView = (typeof VIEWS)[number];

export interface ViewOptions {
  view: ReportView;
  /** Functions: rows listed (default 15). Trees: children shown under each node (default 10). */
  top?: number;
  /** Trees: nodes under this fraction of the busy samples are hidden (default 0.005). */
  minShare?: number;
}

export const DEFAULT_TOP_FUNCTIONS = 15;
export const DEFAULT_TOP_CHILDREN = 10;
export const DEFAULT_MIN_SHARE = 0.005;

function treeOf(trace: ProfilerTrace, options: ViewOptions): ShownNode {
  const tree = options.view === 'bottom-up' ? bottomUpTree(trace) : topDownTree(trace);
  const limits: TreeLimits = { maxChildren: options.top ?? DEFAULT_TOP_CHILDREN, minShare: options.minShare ?? DEFAULT_MIN_SHARE };
  return pruneTree(tree, tree.total, limits);
}

/**
 * One row per node, indented by depth (deeper than MAX_INDENT_DEPTH, at that depth with the depth
 * written out: a recursion thousands deep would print mostly spaces); bottom-up, only the roots
 * have self time, so callers leave it blank.
 */
function treeLines(trace: ProfilerTrace, root: ShownNode, busy: number, bottomUp: boolean, rows: string[][]): void {
  const indent = (depth: number) => (depth <= MAX_INDENT_DEPTH ? '  '.repeat(depth) : `${'  '.repeat(MAX_INDENT_DEPTH)}[${depth}] `);
  walkTree(
    root,
    (node) => node.children,
    (node, depth) => {
      const f = frameInfo(trace, node.frameId);
      const self = bottomUp && depth > 1 ? '' : percent(node.self, busy);
      rows.push([percent(node.total, busy), self, printable(`${indent(depth - 1)}${displayName(f.name)}  ${f.location}`)]);
    },
    (node, depth) => {
      if (node.hidden) rows.push([percent(node.hidden.total, busy), '', `${indent(depth)}… ${node.hidden.nodes} more`]);
    },
  );
}

function formatTree(trace: ProfilerTrace, options: ViewOptions, intervalMs: number | null): string {
  const tree = treeOf(trace, options);
  const header = formatHeader(trace.samples.length, tree.total, intervalMs);
  if (!tree.total) return header + '\n';
  const bottomUp = options.view === 'bottom-up';
  const rows = [['total', 'self', bottomUp ? 'function, then its callers' : 'function, then its callees']];
  treeLines(trace, tree, tree.total, bottomUp, rows);
  return [header, '', ...columns(rows, 2)].join('\n') + '\n';
}

/** The view as text, as `jsprof report` prints it. */
export function formatView(trace: ProfilerTrace, options: ViewOptions): string {
  const intervalMs = estimateInterval(trace);
  if (options.view === 'functions') return formatReport(trace, options.top ?? DEFAULT_TOP_FUNCTIONS, intervalMs);
  return formatTree(trace, options, intervalMs);
}

type JsonNode = Partial<FrameInfo> & { total: number; self: number; children: JsonNode[]; hidden?: ShownNode['hidden'] };

function treeJson(trace: ProfilerTrace, root: ShownNode): JsonNode {
  return mapTree(
    root,
    (node) => node.children,
    (node, children: JsonNode[]) => {
      const frame = node.frameId < 0 ? {} : frameInfo(trace, node.frameId);
      const json: JsonNode = { ...frame, total: node.total, self: node.self, children };
      if (node.hidden) json.hidden = node.hidden;
      return json;
    },
  );
}

/** The view as data (the shape `jsprof report --help` documents); counts are samples. */
export function viewJson(document: TraceDocument, options: ViewOptions): object {
  const { trace, meta } = document;
  const summary = summarize(trace);
  const head = { view: options.view, samples: summary.samples, busy: summary.busy, idle: summary.samples - summary.busy, intervalMs: estimateInterval(trace), meta };
  if (options.view === 'functions') {
    const functions = hottestFunctions(summary.functions, options.top ?? DEFAULT_TOP_FUNCTIONS).map((f) => ({
      ...frameInfo(trace, f.frameId),
      self: f.self,
      total: f.total,
    }));
    return { ...head, functions };
  }
  return { ...head, tree: treeJson(trace, treeOf(trace, options)) };
}
