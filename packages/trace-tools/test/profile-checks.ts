/**
 * What Chrome DevTools' CPUProfileDataModel and speedscope's importer rely on in the files
 * `jsprof convert` writes, checked structurally; and self/total shares recomputed from a
 * .cpuprofile, to compare with `summarize`.
 */
import * as fs from 'node:fs';
import type { CpuProfile, CpuProfileNode } from '../src/convert/cpuprofile';

export function expectCpuProfileInvariants(profile: CpuProfile): void {
  const ids = profile.nodes.map((n) => n.id);
  expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  const parents = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) {
      expect(ids).toContain(child);
      expect(parents.has(child)).toBe(false);
      parents.set(child, node.id);
    }
  }
  const roots = profile.nodes.filter((n) => !parents.has(n.id));
  expect(roots.map((n) => n.callFrame)).toEqual([{ functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }]);
  for (const { callFrame } of profile.nodes) {
    expect(typeof callFrame.functionName).toBe('string');
    expect(callFrame.scriptId).toMatch(/^\d+$/);
    expect(callFrame.lineNumber).toBeGreaterThanOrEqual(-1);
    expect(callFrame.columnNumber).toBeGreaterThanOrEqual(-1);
    if (callFrame.url === '') expect([callFrame.scriptId, callFrame.lineNumber, callFrame.columnNumber]).toEqual(['0', -1, -1]);
  }
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  for (const node of profile.nodes) expect(node.hitCount).toBe(hits.get(node.id) ?? 0);
  expect(profile.samples.every((id) => ids.includes(id))).toBe(true);
  expect(profile.timeDeltas).toHaveLength(profile.samples.length);
  expect(profile.timeDeltas.every((d) => Number.isInteger(d) && d >= 0)).toBe(true);
  expect(profile.startTime).toBeLessThanOrEqual(profile.endTime);
  expect(profile.startTime + profile.timeDeltas.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(profile.endTime);
}

/** A function as both formats can name it: name, url and 1-based line and column (0 when unknown). */
export const functionKey = (name: string, url: string, line: number, column: number) => `${name} ${url}:${line}:${column}`;

export interface Shares {
  self: Map<string, number>;
  total: Map<string, number>;
}

/**
 * Shares of the non-idle time per function from a call tree: self from the nodes' own time, total
 * from each node not inside another node of the same function (recursion counts once).
 */
export function treeShares<N>(root: N, children: (n: N) => N[], key: (n: N) => string, selfOf: (n: N) => number): Shares {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let busy = 0;
  const walk = (node: N, above: Set<string>): number => {
    const k = key(node);
    let sum = selfOf(node);
    if (k !== IDLE) {
      busy += sum;
      self.set(k, (self.get(k) ?? 0) + sum);
    }
    const inside = new Set(above).add(k);
    for (const child of children(node)) sum += walk(child, inside);
    if (!above.has(k) && k !== IDLE) total.set(k, (total.get(k) ?? 0) + sum);
    return sum;
  };
  for (const child of children(root)) walk(child, new Set());
  for (const map of [self, total]) for (const [k, v] of map) map.set(k, v / busy);
  return { self, total };
}

const IDLE = functionKey('(idle)', '', 0, 0);

export function cpuProfileShares(profile: CpuProfile): Shares {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  return treeShares<CpuProfileNode>(
    profile.nodes[0],
    (n) => (n.children ?? []).map((id) => byId.get(id)!),
    ({ callFrame: c }) => functionKey(c.functionName, c.url, c.lineNumber + 1, c.columnNumber + 1),
    (n) => n.hitCount,
  );
}

/** Where `value` breaks a JSON schema that uses only what speedscope's uses of JSON Schema. */
export function schemaProblems(value: unknown, schemaFile: string): string[] {
  const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
  return problemsAt(value, schema, schema, '$');
}

function problemsAt(value: any, rule: any, schema: any, at: string): string[] {
  if (rule.$ref) return problemsAt(value, schema.definitions[rule.$ref.replace('#/definitions/', '')], schema, at);
  if (rule.anyOf) {
    const each = rule.anyOf.map((r: any) => problemsAt(value, r, schema, at));
    return each.some((p: string[]) => p.length === 0) ? [] : [`${at} matches none of anyOf: ${each.flat().join('; ')}`];
  }
  const known = new Set(['$schema', 'definitions', 'title', 'type', 'properties', 'required', 'items', 'const', 'enum']);
  const unknown = Object.keys(rule).filter((k) => !known.has(k));
  if (unknown.length) return [`${at}: the schema uses ${unknown.join(', ')}, which this check does not know`];
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  if (rule.type && rule.type !== type) return [`${at} is ${type}, not ${rule.type}`];
  if ('const' in rule && value !== rule.const) return [`${at} is ${JSON.stringify(value)}, not ${JSON.stringify(rule.const)}`];
  if (rule.enum && !rule.enum.includes(value)) return [`${at} is ${JSON.stringify(value)}, not one of ${rule.enum.join(', ')}`];
  const problems: string[] = [];
  for (const key of rule.required ?? []) if (!(key in value)) problems.push(`${at}.${key} is missing`);
  for (const [key, sub] of Object.entries(rule.properties ?? {})) if (key in value) problems.push(...problemsAt(value[key], sub, schema, `${at}.${key}`));
  if (rule.items) value.forEach((item: unknown, i: number) => problems.push(...problemsAt(item, rule.items, schema, `${at}[${i}]`)));
  return problems;
}
