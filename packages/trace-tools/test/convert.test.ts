import * as path from 'node:path';
import type { ProfilerTrace } from '@jsprof/runtime';
import { summarize } from '../src/analyze';
import { toCpuProfile } from '../src/convert/cpuprofile';
import { toSpeedscope } from '../src/convert/speedscope';
import { jsonChunks } from '../src/convert/json-chunks';
import { cpuProfileShares, expectCpuProfileInvariants, functionKey, schemaProblems } from './profile-checks';

const SPEEDSCOPE_SCHEMA_FILE = path.join(path.dirname(require.resolve('speedscope/package.json')), 'dist/release/file-format-schema.json');

/** Recursion, a built-in, an anonymous function, two scripts, idle samples, a duplicate and an unused stack. */
function sampleTrace(): ProfilerTrace {
  return {
    resources: ['https://example.com/app.js', 'https://example.com/lib.js'],
    frames: [
      { name: 'main', resourceId: 0, line: 1, column: 1 },
      { name: 'fib', resourceId: 0, line: 10, column: 13 },
      { name: '', resourceId: 1, line: 3, column: 20 },
      { name: 'map' },
    ],
    stacks: [
      { frameId: 0 },
      { frameId: 1, parentId: 0 },
      { frameId: 1, parentId: 1 },
      { frameId: 3, parentId: 0 },
      { frameId: 2, parentId: 3 },
      { frameId: 1, parentId: 0 },
      { frameId: 2 },
    ],
    samples: [
      { timestamp: 100, stackId: 1 },
      { timestamp: 110, stackId: 2 },
      { timestamp: 120 },
      { timestamp: 130, stackId: 4 },
      { timestamp: 140.0004, stackId: 5 },
      { timestamp: 150, stackId: 0 },
      { timestamp: 160 },
    ],
  };
}

/** A trace of one function sampled at these times, idle where the timestamp is negated. */
function sampledAt(...times: number[]): ProfilerTrace {
  return {
    resources: ['https://example.com/app.js'],
    frames: [{ name: 'main', resourceId: 0, line: 1, column: 1 }],
    stacks: [{ frameId: 0 }],
    samples: times.map((t) => (t < 0 ? { timestamp: -t } : { timestamp: t, stackId: 0 })),
  };
}

describe('toCpuProfile', () => {
  const profile = toCpuProfile(sampleTrace());
  const node = (id: number) => profile.nodes.find((n) => n.id === id)!;
  const callPath = (id: number): string[] => {
    const parent = profile.nodes.find((n) => n.children?.includes(id));
    return parent ? [...callPath(parent.id), node(id).callFrame.functionName] : [];
  };

  it('keeps what DevTools relies on', () => {
    expectCpuProfileInvariants(profile);
  });

  it('has a node per distinct call path that samples reach, and (idle) under the root', () => {
    expect(profile.samples.map(callPath)).toEqual([
      ['main', 'fib'],
      ['main', 'fib', 'fib'],
      ['(idle)'],
      ['main', 'map', ''],
      ['main', 'fib'],
      ['main'],
      ['(idle)'],
    ]);
    expect(profile.nodes).toHaveLength(7);
    expect(profile.nodes[0].callFrame.functionName).toBe('(root)');
  });

  it('places frames as V8 does: 0-based, one scriptId per script, built-ins without a script', () => {
    const callFrames = profile.nodes.map((n) => n.callFrame);
    expect(callFrames).toContainEqual({ functionName: 'fib', scriptId: '1', url: 'https://example.com/app.js', lineNumber: 9, columnNumber: 12 });
    expect(callFrames).toContainEqual({ functionName: '', scriptId: '2', url: 'https://example.com/lib.js', lineNumber: 2, columnNumber: 19 });
    expect(callFrames).toContainEqual({ functionName: 'map', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 });
    expect(callFrames).toContainEqual({ functionName: '(idle)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 });
  });

  it('times samples in whole microseconds from the first, ending one interval after the last', () => {
    expect(profile.startTime).toBe(100_000);
    expect(profile.timeDeltas).toEqual([0, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
    expect(profile.endTime).toBe(170_000);
  });

  it("never goes back in time: a timestamp a few microseconds behind the one before (Chromium's coarsening) has a delta of 0", () => {
    expect(toCpuProfile(sampledAt(10, 9.995, 20)).timeDeltas).toEqual([0, 0, 10_000]);
  });

  it('ends one median gap after the last sample, or 10 ms when no two samples are apart', () => {
    expect(toCpuProfile(sampledAt(0, 20, 40, 60, 100))).toMatchObject({ startTime: 0, endTime: 120_000, timeDeltas: [0, 20_000, 20_000, 20_000, 40_000] });
    expect(toCpuProfile(sampledAt(5))).toMatchObject({ startTime: 5000, endTime: 15_000, timeDeltas: [0] });
  });

  it('gives the same self and total shares as summarize', () => {
    const shares = cpuProfileShares(profile);
    const summary = summarize(sampleTrace());
    for (const f of summary.functions) {
      const key = functionKey(f.name, f.resource ?? '', f.line ?? 0, f.column ?? 0);
      expect([key, shares.self.get(key) ?? 0, shares.total.get(key)]).toEqual([key, f.self / summary.busy, f.total / summary.busy]);
    }
  });

  it('converts an empty trace to a profile with only the root', () => {
    const empty = toCpuProfile({ resources: [], frames: [], stacks: [], samples: [] });
    expectCpuProfileInvariants(empty);
    expect(empty).toMatchObject({ nodes: [{ id: 1, hitCount: 0 }], samples: [], timeDeltas: [], startTime: 0, endTime: 0 });
  });
});

describe('toSpeedscope', () => {
  const file = toSpeedscope(sampleTrace(), { name: 'trace.json', exporter: 'jsprof 0.1.0' });
  const [profile] = file.profiles;

  it('matches speedscope\'s file format schema', () => {
    expect(schemaProblems(file, SPEEDSCOPE_SCHEMA_FILE)).toEqual([]);
    const broken = JSON.parse(JSON.stringify({ ...file, profiles: [{ ...profile, weights: undefined, unit: 'hours' }] }));
    const [problem] = schemaProblems(broken, SPEEDSCOPE_SCHEMA_FILE);
    expect(problem).toContain('$.profiles[0].weights is missing');
    expect(problem).toContain('$.profiles[0].unit is "hours", not one of');
    expect(file.profiles).toHaveLength(1);
    expect(file).toMatchObject({ name: 'trace.json', exporter: 'jsprof 0.1.0', activeProfileIndex: 0 });
  });

  it('shares frames, 1-based, anonymous ones named as speedscope names them, and an (idle) frame', () => {
    expect(file.shared.frames).toEqual([
      { name: 'main', file: 'https://example.com/app.js', line: 1, col: 1 },
      { name: 'fib', file: 'https://example.com/app.js', line: 10, col: 13 },
      { name: '(anonymous lib.js:3)', file: 'https://example.com/lib.js', line: 3, col: 20 },
      { name: 'map' },
      { name: '(idle)' },
    ]);
  });

  it('lists each sample\'s frames outermost first, each weighing one interval in milliseconds', () => {
    expect(profile.samples).toEqual([[0, 1], [0, 1, 1], [4], [0, 3, 2], [0, 1], [0], [4]]);
    expect(profile.weights).toEqual([10, 10, 10, 10, 10, 10, 10]);
    expect(profile).toMatchObject({ type: 'sampled', name: 'trace.json', unit: 'milliseconds', startValue: 100, endValue: 170 });
  });

  it('weighs samples by the median gap between them, or 10 ms when no two samples are apart', () => {
    expect(toSpeedscope(sampledAt(0, 20, -40, 60, 100), { name: 'x' }).profiles[0]).toMatchObject({ weights: [20, 20, 20, 20, 20], startValue: 0, endValue: 100 });
    expect(toSpeedscope(sampledAt(0, 10, 30, 40, 60), { name: 'x' }).profiles[0].weights).toEqual([15, 15, 15, 15, 15]);
    expect(toSpeedscope(sampledAt(5), { name: 'x' }).profiles[0]).toMatchObject({ weights: [10], startValue: 5, endValue: 15 });
  });

  it('names an anonymous function without a line after its file alone', () => {
    const trace: ProfilerTrace = { resources: ['https://example.com/app.js?v=2'], frames: [{ name: '', resourceId: 0 }], stacks: [{ frameId: 0 }], samples: [{ timestamp: 0, stackId: 0 }] };
    expect(toSpeedscope(trace, { name: 'x' }).shared.frames).toEqual([{ name: '(anonymous app.js?v=2)', file: 'https://example.com/app.js?v=2' }]);
  });

  it('leaves out the exporter when none is given', () => {
    expect(toSpeedscope(sampleTrace(), { name: 'x' })).not.toHaveProperty('exporter');
  });
});

describe('jsonChunks', () => {
  it('writes what JSON.stringify writes, in pieces of about the size asked', () => {
    const file = toSpeedscope(sampleTrace(), { name: 'x', exporter: 'jsprof' });
    const values = [file, toCpuProfile(sampleTrace()), { a: [1, [2, { b: undefined, c: [null, undefined] }], 'x"\n'] }, [[], [{}], {}], [1, 2], 'text', 5, null, {}, { a: undefined }];
    for (const value of values) {
      for (const size of [1, 7, 1 << 20]) expect(Array.from(jsonChunks(value, size)).join('')).toBe(JSON.stringify(value));
    }
    const stacks = { samples: Array.from({ length: 1000 }, () => Array.from({ length: 100 }, (_, i) => i)) };
    const pieces = Array.from(jsonChunks(stacks, 10_000));
    expect(pieces.join('')).toBe(JSON.stringify(stacks));
    // Each piece ends once it reaches the size: at most one sample's stack (291 characters) more.
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThan(10_000 + 300);
    expect(pieces.length).toBeGreaterThan(25);
  });
});
