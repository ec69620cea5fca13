/** The hottest functions by self and total time: the table `jsprof run` and `jsprof report` print. */
import type { ProfilerTrace } from '@jsprof/runtime';
import { FunctionTime, summarize } from '../analyze';
import { displayLocation, displayName } from './frames';
import { printable } from './text-safety';

export function percent(part: number, whole: number): string {
  return whole ? `${((100 * part) / whole).toFixed(1)}%` : '-';
}

/** Milliseconds as people read an interval: 10, 16.7. */
export function formatInterval(ms: number): string {
  return String(Number(ms.toFixed(1)));
}

/** The first line of every text report: samples, interval, busy and idle. */
export function formatHeader(samples: number, busy: number, intervalMs: number | null): string {
  const every = intervalMs === null ? '' : ` every ${formatInterval(intervalMs)} ms`;
  return `${samples} sample${samples === 1 ? '' : 's'}${every}: ${busy} while JavaScript ran, ${samples - busy} idle.`;
}

/** Functions that ran, by self time then total time, at most `top` of them. */
export function hottestFunctions(functions: FunctionTime[], top: number): FunctionTime[] {
  return functions
    .filter((f) => f.total > 0)
    .sort((a, b) => b.self - a.self || b.total - a.total)
    .slice(0, top);
}

/** Lays out rows as columns: the first `rightAligned` columns padded on the left, the others on the right. */
export function columns(rows: string[][], rightAligned: number): string[] {
  // A loop, not Math.max(...lengths): a tree of a deep trace has more rows than a call takes arguments.
  const widths = rows[0].map((_, i) => rows.reduce((width, r) => Math.max(width, r[i].length), 0));
  return rows.map((r) => r.map((c, i) => (i < rightAligned ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd());
}

/** The report `jsprof run` prints: the header, then the hottest functions with their shares of busy samples. */
export function formatReport(trace: ProfilerTrace, top = 15, intervalMs: number | null = 10): string {
  const summary = summarize(trace);
  const lines = [formatHeader(summary.samples, summary.busy, intervalMs)];
  if (summary.busy) {
    const rows = hottestFunctions(summary.functions, top).map((f) => [
      percent(f.self, summary.busy),
      percent(f.total, summary.busy),
      printable(displayName(f.name)),
      printable(displayLocation(f.resource, f.line, f.column)),
    ]);
    lines.push('', ...columns([['self', 'total', 'function', 'location'], ...rows], 2));
  }
  return lines.join('\n') + '\n';
}
