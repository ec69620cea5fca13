/**
 * V8's CPU profiles read as traces: `node --cpu-prof` output goes through `report`, `convert` and
 * `aggregate` as a jsprof trace does, and a malformed one is refused with a message.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseTraceText } from '../src/read';
import { summarize } from '../src/analyze';
import { toCpuProfile } from '../src/convert/cpuprofile';
import { TraceError } from '../src/validate';

const frame = (functionName: string, url = '', lineNumber = -1, columnNumber = -1) => ({ functionName, scriptId: '0', url, lineNumber, columnNumber });

/** (root) → main → render, and (program), (idle), (garbage collector) beside main; times in µs. */
const PROFILE = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 4, 5, 6] },
    { id: 2, callFrame: frame('main', 'file:///app.js', 0, 9), children: [3] },
    { id: 3, callFrame: frame('render', 'file:///app.js', 19, 4) },
    { id: 4, callFrame: frame('(program)') },
    { id: 5, callFrame: frame('(idle)') },
    { id: 6, callFrame: frame('(garbage collector)') },
  ],
  startTime: 1_000_000,
  endTime: 1_060_000,
  samples: [3, 3, 2, 5, 6, 4],
  timeDeltas: [10_000, 10_000, 10_000, 10_000, -50, 10_000],
};

test('call paths become stacks parents first, positions 1-based, idle nodes idle samples, times in ms', () => {
  const { trace, meta } = parseTraceText(JSON.stringify(PROFILE));
  expect(meta).toEqual({});
  expect(trace.resources).toEqual(['file:///app.js']);
  // Breadth first from the root: the root's children, then theirs.
  expect(trace.frames).toEqual([
    { name: 'main', resourceId: 0, line: 1, column: 10 },
    { name: '(garbage collector)' },
    { name: 'render', resourceId: 0, line: 20, column: 5 },
  ]);
  expect(trace.stacks).toEqual([{ frameId: 0 }, { frameId: 1 }, { frameId: 2, parentId: 0 }]);
  // The sample V8 recorded 50 µs early is kept in order.
  expect(trace.samples).toEqual([
    { timestamp: 1010, stackId: 2 },
    { timestamp: 1020, stackId: 2 },
    { timestamp: 1030, stackId: 0 },
    { timestamp: 1040 },
    { timestamp: 1040, stackId: 1 },
    { timestamp: 1049.95 },
  ]);
  const summary = summarize(trace);
  expect(summary.busy).toBe(4);
});

test('a profile whose times step back further than V8 reorders samples is refused, not read with every later sample at one instant', () => {
  const broken = { ...PROFILE, timeDeltas: [10_000, 10_000, -1_000_000_000, 10_000, 10_000, 10_000] };
  expect(() => parseTraceText(JSON.stringify(broken))).toThrow(new TraceError('timeDeltas[2] steps back 1000000 ms, more than a profile\'s samples are reordered (1000 ms at most)'));
});

test("a real node --cpu-prof profile reads with the program's functions, and survives a round trip through jsprof convert's format", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-cpuprofile-'));
  const program = path.join(dir, 'busy.js');
  fs.writeFileSync(program, 'function spin(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1); return x; }\nspin(200);\n');
  const run = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, program], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  const file = fs.readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!;
  const { trace } = parseTraceText(fs.readFileSync(path.join(dir, file), 'utf8'));
  const summary = summarize(trace);
  const spin = summary.functions.find((f) => f.name === 'spin')!;
  expect(spin).toMatchObject({ line: 1, column: 14 });
  expect(spin.total / summary.busy).toBeGreaterThan(0.5);
  // jsprof's own .cpuprofile output reads back to the same functions.
  const again = parseTraceText(JSON.stringify(toCpuProfile(trace))).trace;
  expect(summarize(again).functions.find((f) => f.name === 'spin')!.total).toBe(spin.total);
});

test.each([
  [{ ...PROFILE, timeDeltas: [1] }, /6 samples but 1 timeDeltas/],
  [{ ...PROFILE, samples: [3, 3, 2, 5, 6, 99] }, /samples\[5\] 99 is no node/],
  [{ ...PROFILE, nodes: [...PROFILE.nodes, { id: 2, callFrame: frame('x') }] }, /nodes\[6\]\.id 2 is used twice/],
  [{ ...PROFILE, nodes: [{ id: 1, callFrame: frame('a'), children: [2] }, { id: 2, callFrame: frame('b'), children: [1] }], samples: [], timeDeltas: [] }, /two parents|cycle/],
  [{ ...PROFILE, nodes: [{ id: 1, callFrame: frame('a'), children: [7] }] }, /child 7 that is no node/],
  [{ ...PROFILE, timeDeltas: [1, 2, 3, 'x', 5, 6] }, /timeDeltas\[3\] is "x", not a number/],
])('a malformed profile is refused with a message (%#)', (profile, message) => {
  expect(() => parseTraceText(JSON.stringify(profile))).toThrow(TraceError);
  expect(() => parseTraceText(JSON.stringify(profile))).toThrow(message);
});
