/**
 * `jsprof report --html`: one self-contained HTML file (a flame graph, both call trees) that works
 * offline. The trace's strings are untrusted: they travel as JSON in a non-executed script element,
 * with `<`, `>` and `&` escaped so that nothing in them can close it, and a Content-Security-Policy
 * lets only the report's own script run.
 */
import { createHash } from 'node:crypto';
import type { ProfilerTrace } from '@jsprof/runtime';
import type { TraceDocument } from '../validate';
import { CallTreeNode, bottomUpTree, topDownTree } from './call-tree';
import { frameInfo } from './frames';
import { BODY, SCRIPT, STYLE } from './html-page';
import { estimateInterval } from './interval';
import { printable } from './text-safety';
import { mapTree, stringifyDeep } from './tree-walk';

/** A call tree node as the page reads it: [frameId, total, self, children]. */
type CompactNode = [number, number, number, CompactNode[]];

function compact(root: CallTreeNode): CompactNode {
  return mapTree(root, (node) => node.children, (node, children: CompactNode[]) => [node.frameId, node.total, node.self, children]);
}

/**
 * A page that compares: the document is the current side (B), drawn as a differential flame graph
 * whose boxes are coloured by how their time per trace changed from the baseline (A), with a table
 * of functions. Both traces name the same frames, by the same index.
 */
export interface Comparison {
  /** How the two sides are called ("release 2026.11.1"). */
  baselineName: string;
  currentName: string;
  /** The baseline's samples over the document's frames. */
  baselineTrace: ProfilerTrace;
  /** Milliseconds per trace one sample stands for, in the baseline and in the document. */
  baselineMsPerSample: number;
  msPerSample: number;
  /** The function table, largest change first: ms per trace in A and B, the change, its noise. */
  functions: { name: string; file: string; a: number; b: number; change: number; noise: number; changed: boolean }[];
}

function comparisonData(comparison: Comparison) {
  return {
    baselineName: printable(comparison.baselineName),
    currentName: printable(comparison.currentName),
    baseline: compact(topDownTree(comparison.baselineTrace)),
    baselineMsPerSample: comparison.baselineMsPerSample,
    msPerSample: comparison.msPerSample,
    functions: comparison.functions.map((f) => [printable(f.name || '(anonymous)'), printable(f.file || '(built-in)'), f.a, f.b, f.change, f.noise, f.changed]),
  };
}

function pageData(document: TraceDocument, title: string, comparison?: Comparison) {
  const trace: ProfilerTrace = document.trace;
  const topDown = topDownTree(trace);
  return {
    compare: comparison ? comparisonData(comparison) : null,
    title: printable(title),
    samples: trace.samples.length,
    busy: topDown.total,
    idle: trace.samples.length - topDown.total,
    intervalMs: estimateInterval(trace),
    meta: Object.fromEntries(Object.entries(document.meta).map(([key, value]) => [printable(key), typeof value === 'string' ? printable(value) : value])),
    frames: trace.frames.map((_, i) => {
      const f = frameInfo(trace, i);
      return [printable(f.name), printable(f.location)];
    }),
    topDown: compact(topDown),
    bottomUp: compact(bottomUpTree(trace)),
  };
}

/** JSON that can sit inside a script element: nothing in it can end the element or open a comment. */
export function jsonForScript(value: unknown): string {
  return stringifyDeep(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The report page for a trace; `title` names it (the trace file, say). With a comparison, the page compares it with a baseline. */
export function htmlReport(document: TraceDocument, title: string, comparison?: Comparison): string {
  const scriptHash = createHash('sha256').update(SCRIPT).digest('base64');
  const policy = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>jsprof report: ${escapeHtml(printable(title))}</title>
<style>${STYLE}</style>
</head>
<body>
${BODY}
<script type="application/json" id="jsprof-data">${jsonForScript(pageData(document, title, comparison))}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
