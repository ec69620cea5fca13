/**
 * The queries users ask for, built on any store's aggregates: top functions (the numbers of
 * `jsprof aggregate`, with functions identified across releases), a merged flame graph, and the
 * difference between two sets of traces (two releases) per function.
 */
import { NO_GROUP } from '@jsprof/trace-tools';
import type { FunctionRow } from './identity';
import type { Filter, FunctionTotalsRow, GroupBy, Store, ViewCountsRow } from './store';

export interface TopFunction {
  functionId: string;
  name: string;
  file: string;
  selfMs: number;
  totalMs: number;
  /** Shares (0 to 1) of the view's busy time. */
  self: number;
  total: number;
  /** Traces in which it ran. */
  traces: number;
}

export interface TopView extends Omit<ViewCountsRow, 'group'> {
  name: string;
  /** By self time, then total time, largest first. */
  functions: TopFunction[];
}

export interface TopResult {
  groupBy: GroupBy;
  filter: Filter;
  all: TopView;
  /** One view per value of `groupBy` ('(none)' for traces without it), by busy time, largest first. */
  groups: TopView[];
}

const EMPTY_COUNTS = { traces: 0, samples: 0, busySamples: 0, busyMs: 0, idleSamples: 0, idleMs: 0 };
const groupName = (value: string) => (value === '' ? NO_GROUP : value);

function views(counts: ViewCountsRow[], totals: FunctionTotalsRow[], limit: number): TopView[] {
  const byGroup = new Map<string, TopView>();
  for (const { group, ...rest } of counts) byGroup.set(group, { name: groupName(group), ...rest, functions: [] });
  for (const row of totals) {
    const view = byGroup.get(row.group);
    if (!view) continue;
    const { functionId, name, file, selfMs, totalMs, traces } = row;
    view.functions.push({ functionId, name, file, selfMs, totalMs, self: selfMs / view.busyMs, total: totalMs / view.busyMs, traces });
  }
  for (const view of byGroup.values()) {
    view.functions.sort((a, b) => b.selfMs - a.selfMs || b.totalMs - a.totalMs || (a.functionId < b.functionId ? -1 : 1));
    view.functions.length = Math.min(view.functions.length, limit);
  }
  return [...byGroup.values()].sort((a, b) => b.busyMs - a.busyMs || b.traces - a.traces);
}

/** Functions by self and total time over the traces of `filter`, and per value of `groupBy`. */
export async function topFunctions(store: Store, options: { filter?: Filter; groupBy?: GroupBy; limit?: number } = {}): Promise<TopResult> {
  const filter = options.filter ?? {};
  const groupBy = options.groupBy ?? null;
  const limit = options.limit ?? Infinity;
  const [allCounts, allTotals] = await Promise.all([store.viewCounts(filter, null), store.functionTotals(filter, null)]);
  const all = views(allCounts, allTotals, limit)[0] ?? { name: 'all', ...EMPTY_COUNTS, functions: [] };
  let groups: TopView[] = [];
  if (groupBy !== null) {
    const [counts, totals] = await Promise.all([store.viewCounts(filter, groupBy), store.functionTotals(filter, groupBy)]);
    groups = views(counts, totals, limit);
  }
  return { groupBy, filter, all, groups };
}

export interface FlameNode {
  /** '' at the root, which stands for all busy time. */
  functionId: string;
  totalMs: number;
  selfMs: number;
  /** By total time, largest first. */
  children: FlameNode[];
}

export interface FlameGraph {
  filter: Filter;
  traces: number;
  busyMs: number;
  root: FlameNode;
  functions: Record<string, { name: string; file: string }>;
}

/** Every stack of the traces of `filter` merged into one call tree, times in ms. */
export async function flameGraph(store: Store, filter: Filter = {}): Promise<FlameGraph> {
  const [[counts], stacks] = await Promise.all([store.viewCounts(filter, null), store.stackTotals(filter)]);
  const root: FlameNode = { functionId: '', totalMs: 0, selfMs: 0, children: [] };
  const childMaps = new Map<FlameNode, Map<string, FlameNode>>();
  const childOf = (parent: FlameNode, functionId: string) => {
    let children = childMaps.get(parent);
    if (!children) childMaps.set(parent, (children = new Map()));
    let node = children.get(functionId);
    if (!node) {
      children.set(functionId, (node = { functionId, totalMs: 0, selfMs: 0, children: [] }));
      parent.children.push(node);
    }
    return node;
  };
  const ids = new Set<string>();
  for (const stack of stacks) {
    let node = root;
    root.totalMs += stack.ms;
    for (const id of stack.functionIds) {
      ids.add(id);
      node = childOf(node, id);
      node.totalMs += stack.ms;
    }
    node.selfMs += stack.ms;
  }
  const work = [root];
  while (work.length) {
    const node = work.pop()!;
    node.children.sort((a, b) => b.totalMs - a.totalMs || (a.functionId < b.functionId ? -1 : 1));
    work.push(...node.children);
  }
  const functions: FlameGraph['functions'] = {};
  for (const f of await store.functions([...ids])) functions[f.functionId] = { name: f.name, file: f.file };
  return { filter, traces: counts?.traces ?? 0, busyMs: counts?.busyMs ?? 0, root, functions };
}

/** A function's time in one set of traces. */
export interface DiffSide {
  /** Mean ms per trace (traces where it did not run count as 0), and the spread between traces. */
  selfMsPerTrace: number;
  totalMsPerTrace: number;
  selfMsStdDev: number;
  totalMsStdDev: number;
  /** Shares (0 to 1) of the side's busy time. */
  self: number;
  total: number;
}

export interface DiffRow extends FunctionRow {
  a: DiffSide;
  b: DiffSide;
  /** b − a, ms per trace. */
  selfMsDelta: number;
  totalMsDelta: number;
  /** The standard error of `selfMsDelta` (Welch): the noise between traces. */
  selfMsNoise: number;
  totalMsNoise: number;
  /** Whether |selfMsDelta| (or |totalMsDelta|) is more than NOISE_FACTOR times its noise. */
  selfChanged: boolean;
  totalChanged: boolean;
}

export interface DiffResult {
  a: { filter: Filter; traces: number; busyMsPerTrace: number };
  b: { filter: Filter; traces: number; busyMsPerTrace: number };
  noiseFactor: number;
  /** By |selfMsDelta|, largest first. */
  functions: DiffRow[];
}

/** How many standard errors a change must exceed to count as larger than the noise between traces. */
export const NOISE_FACTOR = 3;

interface SideTotals {
  counts: ViewCountsRow;
  functions: Map<string, FunctionTotalsRow>;
}

async function sideTotals(store: Store, filter: Filter): Promise<SideTotals> {
  const [[counts], totals] = await Promise.all([store.viewCounts(filter, null), store.functionTotals(filter, null)]);
  return { counts: counts ?? { group: 'all', ...EMPTY_COUNTS }, functions: new Map(totals.map((t) => [t.functionId, t])) };
}

/** Mean and sample standard deviation over n traces, from the sum and the sum of squares. */
function spread(sum: number, squares: number, n: number): { mean: number; stdDev: number } {
  if (n === 0) return { mean: 0, stdDev: 0 };
  const mean = sum / n;
  const variance = n > 1 ? Math.max(0, (squares - n * mean * mean) / (n - 1)) : 0;
  return { mean, stdDev: Math.sqrt(variance) };
}

function side(totals: SideTotals, functionId: string): DiffSide {
  const row = totals.functions.get(functionId);
  const n = totals.counts.traces;
  const self = spread(row?.selfMs ?? 0, row?.selfMsSquares ?? 0, n);
  const total = spread(row?.totalMs ?? 0, row?.totalMsSquares ?? 0, n);
  const busy = totals.counts.busyMs;
  return {
    selfMsPerTrace: self.mean,
    totalMsPerTrace: total.mean,
    selfMsStdDev: self.stdDev,
    totalMsStdDev: total.stdDev,
    self: busy ? (row?.selfMs ?? 0) / busy : 0,
    total: busy ? (row?.totalMs ?? 0) / busy : 0,
  };
}

const noise = (stdDevA: number, nA: number, stdDevB: number, nB: number) => Math.sqrt((nA ? stdDevA ** 2 / nA : 0) + (nB ? stdDevB ** 2 / nB : 0));

/** How each function's time per trace changed from the traces of `a` to those of `b`. */
export async function diffFunctions(store: Store, a: Filter, b: Filter, limit = Infinity): Promise<DiffResult> {
  const [totalsA, totalsB] = await Promise.all([sideTotals(store, a), sideTotals(store, b)]);
  const nA = totalsA.counts.traces;
  const nB = totalsB.counts.traces;
  const rows: DiffRow[] = [];
  for (const functionId of new Set([...totalsA.functions.keys(), ...totalsB.functions.keys()])) {
    const { name, file } = (totalsA.functions.get(functionId) ?? totalsB.functions.get(functionId))!;
    const sideA = side(totalsA, functionId);
    const sideB = side(totalsB, functionId);
    const selfMsDelta = sideB.selfMsPerTrace - sideA.selfMsPerTrace;
    const totalMsDelta = sideB.totalMsPerTrace - sideA.totalMsPerTrace;
    const selfMsNoise = noise(sideA.selfMsStdDev, nA, sideB.selfMsStdDev, nB);
    const totalMsNoise = noise(sideA.totalMsStdDev, nA, sideB.totalMsStdDev, nB);
    const enough = nA > 1 && nB > 1;
    rows.push({
      functionId,
      name,
      file,
      a: sideA,
      b: sideB,
      selfMsDelta,
      totalMsDelta,
      selfMsNoise,
      totalMsNoise,
      selfChanged: enough && Math.abs(selfMsDelta) > NOISE_FACTOR * selfMsNoise,
      totalChanged: enough && Math.abs(totalMsDelta) > NOISE_FACTOR * totalMsNoise,
    });
  }
  rows.sort((x, y) => Math.abs(y.selfMsDelta) - Math.abs(x.selfMsDelta) || Math.abs(y.totalMsDelta) - Math.abs(x.totalMsDelta) || (x.functionId < y.functionId ? -1 : 1));
  rows.length = Math.min(rows.length, limit);
  const perTrace = (t: SideTotals) => (t.counts.traces ? t.counts.busyMs / t.counts.traces : 0);
  return {
    a: { filter: a, traces: nA, busyMsPerTrace: perTrace(totalsA) },
    b: { filter: b, traces: nB, busyMsPerTrace: perTrace(totalsB) },
    noiseFactor: NOISE_FACTOR,
    functions: rows,
  };
}
