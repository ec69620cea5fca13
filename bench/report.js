'use strict';
/** Text formatting of the bench's table. */

function pct(ratio) {
  if (ratio == null || !Number.isFinite(ratio)) return '-';
  const p = ratio * 100;
  return `${p >= 0 ? '+' : ''}${p.toFixed(1)}%`;
}

function points(fraction) {
  return (fraction * 100).toFixed(1);
}

function coverage(c) {
  if (!c || !c.due) return '-';
  return `${Math.round((100 * c.taken) / c.due)}% (${Math.round((100 * c.onTime) / c.due)}%)`;
}

function gap(g, width = 34) {
  if (!g || !g.fn) return '-';
  const fn = g.fn.length > width ? `${g.fn.slice(0, width - 1)}…` : g.fn;
  return `${points(g.gap)} ${fn}`;
}

/** A plain-text table: `columns` = [{title, align: 'l'|'r'}], `rows` = arrays of strings ('—' rows are rules). */
function table(columns, rows) {
  const widths = columns.map((c, i) => Math.max(c.title.length, ...rows.filter(Array.isArray).map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells.map((cell, i) => (columns[i].align === 'r' ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i]))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(columns.map((c) => c.title)), rule, ...rows.map((r) => (Array.isArray(r) ? line(r) : rule))].join('\n');
}

module.exports = { pct, points, coverage, gap, table };
