import { spawnSync, SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');
export const BIN = path.join(ROOT, 'packages/cli/bin/jsprof.js');
export const FIXTURES = path.join(ROOT, 'fixtures/programs');

export function tempDir(prefix = 'jsprof-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Runs `jsprof` (the workspace's, or the one at `bin`) and waits for it. */
export function jsprof(args: string[], options: { cwd?: string; env?: Record<string, string>; bin?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [options.bin ?? BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...options.env },
    timeout: 120_000,
  });
}

/** Checks the invariants every trace must keep (see docs/design.md, "What native Chromium does"). */
export function expectWellFormed(trace: any) {
  expect(Object.keys(trace).sort()).toEqual(['frames', 'resources', 'samples', 'stacks']);
  trace.frames.forEach((f: any) => {
    expect(typeof f.name).toBe('string');
    if (f.resourceId !== undefined) {
      expect(f.resourceId).toBeLessThan(trace.resources.length);
      expect(f.line).toBeGreaterThanOrEqual(1);
      expect(f.column).toBeGreaterThanOrEqual(1);
    }
  });
  trace.stacks.forEach((s: any, i: number) => {
    expect(s.frameId).toBeLessThan(trace.frames.length);
    if (s.parentId !== undefined) expect(s.parentId).toBeLessThan(i);
  });
  let last = -Infinity;
  for (const s of trace.samples) {
    expect(s.timestamp).toBeGreaterThanOrEqual(last);
    last = s.timestamp;
    if (s.stackId !== undefined) expect(s.stackId).toBeLessThan(trace.stacks.length);
  }
  const keys = trace.frames.map((f: any) => JSON.stringify([f.name, f.resourceId, f.line, f.column]));
  expect(new Set(keys).size).toBe(keys.length);
  expect(new Set(trace.resources).size).toBe(trace.resources.length);
}

/** A trace whose one stack is `depth` frames deep (f0 calling f1 … calling f<depth-1>), sampled `samples` times in it. */
export function deepTrace(depth: number, samples: number) {
  return {
    resources: ['file:///deep.js'],
    frames: Array.from({ length: depth }, (_, i) => ({ name: `f${i}`, resourceId: 0, line: i + 1, column: 1 })),
    stacks: Array.from({ length: depth }, (_, i) => (i ? { frameId: i, parentId: i - 1 } : { frameId: 0 })),
    samples: Array.from({ length: samples }, (_, i) => ({ timestamp: i * 10, stackId: depth - 1 })),
  };
}
