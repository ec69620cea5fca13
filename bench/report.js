'use strict';
/** Text formatting of the bench's tables. */
const { median } = require('./overhead');

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

/** Columns titled `titles`: the first left-aligned, the others right-aligned (numbers). */
function columnsOf(titles) {
  return titles.map((title, i) => ({ title, align: i === 0 ? 'l' : 'r' }));
}

const geomean = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);

/**
 * A cold-start table's rows (bench/cold.js, bench/cold-browser.js): per library, the plain way's
 * median time and each of `ways` against it, then `extra(name)` cells; then the geometric mean and
 * the worst ratio of each way.
 */
function coldRows(names, times, ways, extra = () => []) {
  const ratios = Object.fromEntries(ways.map((w) => [w, []]));
  const rows = names.map((name) => {
    const plain = median(times[name].plain);
    const cells = ways.map((w) => {
      const ratio = median(times[name][w]) / plain;
      ratios[w].push(ratio);
      return pct(ratio - 1);
    });
    return [name, `${plain.toFixed(0)} ms`, ...cells, ...extra(name)];
  });
  const blanks = names.length ? extra(names[0]).map(() => '') : [];
  rows.push(['geometric mean', '', ...ways.map((w) => pct(geomean(ratios[w]) - 1)), ...blanks]);
  rows.push(['worst', '', ...ways.map((w) => pct(Math.max(...ratios[w]) - 1)), ...blanks]);
  return rows;
}

module.exports = { pct, points, coverage, gap, table, columnsOf, coldRows };
