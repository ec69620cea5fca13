/** The text report `jsprof run` prints: the hottest functions by self time. */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProfilerTrace } from '@jsprof/runtime';
import { summarize } from '@jsprof/trace-tools';

export function displayLocation(resource: string | null, line: number | null, cwd = process.cwd()): string {
  if (!resource) return '(native)';
  let where = resource;
  if (resource.startsWith('file:')) {
    const file = fileURLToPath(resource);
    const relative = path.relative(cwd, file);
    where = relative.startsWith('..') ? file : relative;
  }
  return line == null ? where : `${where}:${line}`;
}

function percent(part: number, whole: number): string {
  return whole ? `${((100 * part) / whole).toFixed(1)}%` : '-';
}

export function formatReport(trace: ProfilerTrace, top = 15, interval = 10): string {
  const summary = summarize(trace);
  const rows = summary.functions
    .filter((f) => f.total > 0)
    .sort((a, b) => b.self - a.self || b.total - a.total)
    .slice(0, top);
  const lines: string[] = [];
  lines.push(
    `${summary.samples} samples every ${interval} ms: ${summary.busy} while JavaScript ran, ${summary.samples - summary.busy} idle.`,
  );
  if (!summary.busy) return lines.join('\n') + '\n';
  lines.push('');
  const header = ['self', 'total', 'function', 'location'];
  const table = rows.map((f) => [percent(f.self, summary.busy), percent(f.total, summary.busy), f.name || '(anonymous)', displayLocation(f.resource, f.line)]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
  const format = (r: string[]) => r.map((c, i) => (i < 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  lines.push(format(header));
  for (const r of table) lines.push(format(r));
  return lines.join('\n') + '\n';
}
