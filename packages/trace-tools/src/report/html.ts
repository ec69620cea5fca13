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

function pageData(document: TraceDocument, title: string) {
  const trace: ProfilerTrace = document.trace;
  const topDown = topDownTree(trace);
  return {
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

/** The report page for a trace; `title` names it (the trace file, say). */
export function htmlReport(document: TraceDocument, title: string): string {
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
<script type="application/json" id="jsprof-data">${jsonForScript(pageData(document, title))}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
