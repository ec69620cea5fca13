/** Shared test helpers: trace invariants, stack names, the instrumented fixture. */
import type { ProfilerTrace } from '../src';
import { CHECK_SOURCE, ENTRY_CHECK_SOURCE, GLOBAL_PRELUDE_SOURCE } from '../../policy/src/check';

export interface Work {
  leaf(n: number): number;
  busy(ms: number): number;
  Shape: new (ms: number) => { area: number };
  callThrough<T>(fn: () => T): T;
  check(): void;
}

/** The hand-instrumented fixture; load it after the runtime, as instrumented code is. */
export function loadWork(): Work {
  return require('./fixtures/work.js');
}

export const WORK_FILE = require.resolve('./fixtures/work.js');

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Asserts what the spec and native Chromium promise about a trace's shape. */
export function expectValidTrace(trace: ProfilerTrace): void {
  expect(Object.keys(trace).sort()).toEqual(['frames', 'resources', 'samples', 'stacks']);
  const resources = new Set(trace.resources);
  expect(resources.size).toBe(trace.resources.length);
  const frameKeys = new Set<string>();
  for (const frame of trace.frames) {
    expect(typeof frame.name).toBe('string');
    if (frame.resourceId !== undefined) {
      expect(frame.resourceId).toBeGreaterThanOrEqual(0);
      expect(frame.resourceId).toBeLessThan(trace.resources.length);
    }
    frameKeys.add(JSON.stringify([frame.name, frame.resourceId, frame.line, frame.column]));
  }
  expect(frameKeys.size).toBe(trace.frames.length);
  const stackKeys = new Set<string>();
  trace.stacks.forEach((stack, index) => {
    expect(stack.frameId).toBeGreaterThanOrEqual(0);
    expect(stack.frameId).toBeLessThan(trace.frames.length);
    if (stack.parentId !== undefined) {
      expect(stack.parentId).toBeGreaterThanOrEqual(0);
      expect(stack.parentId).toBeLessThan(index);
    }
    stackKeys.add(`${stack.parentId},${stack.frameId}`);
  });
  expect(stackKeys.size).toBe(trace.stacks.length);
  let last = -Infinity;
  for (const sample of trace.samples) {
    expect(typeof sample.timestamp).toBe('number');
    expect(sample.timestamp).toBeGreaterThanOrEqual(last);
    last = sample.timestamp;
    if (sample.stackId !== undefined) {
      expect(sample.stackId).toBeGreaterThanOrEqual(0);
      expect(sample.stackId).toBeLessThan(trace.stacks.length);
    }
  }
}

/** The frames of a stack, outermost first. */
export function stackFrames(trace: ProfilerTrace, stackId: number | undefined) {
  const frames = [];
  for (let id = stackId; id !== undefined; id = trace.stacks[id].parentId) frames.unshift(trace.frames[trace.stacks[id].frameId]);
  return frames;
}

export function stackNames(trace: ProfilerTrace, stackId: number | undefined): string[] {
  return stackFrames(trace, stackId).map((f) => f.name);
}

/** The URLs a stack's frames come from. */
export function stackUrls(trace: ProfilerTrace, stackId: number | undefined): string[] {
  return stackFrames(trace, stackId).flatMap((f) => (f.resourceId === undefined ? [] : [trace.resources[f.resourceId]]));
}

export function withStack(trace: ProfilerTrace) {
  return trace.samples.filter((s) => s.stackId !== undefined);
}

const SRC = require('node:path').resolve(__dirname, '../src');

/**
 * Runs `script` in a fresh Node process that can `require(SRC + '/node.ts')` (SRC is defined in it);
 * returns what the script printed last, parsed as JSON.
 */
export function runChild(script: string, env: Record<string, string> = {}): any {
  const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
  const result = spawnSync(process.execPath, ['-r', require.resolve('./support/register-ts.js'), '-e', `const SRC = ${JSON.stringify(SRC)};\n${script}`], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 30000,
  });
  if (result.status !== 0) throw new Error(`child failed (${result.status}): ${result.stderr}`);
  const lines = result.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

/** A page's long task in instrumented code, as the transform writes it: busy(ms) calls step() in a loop (browser tests). */
export const BUSY_SCRIPT = `${GLOBAL_PRELUDE_SOURCE}
function step(i) { ${ENTRY_CHECK_SOURCE} let x = 0; for (let k = 0; k < 50; k++) x += Math.sqrt(i + k); return x; }
function busy(ms) { ${ENTRY_CHECK_SOURCE} try { const end = performance.now() + ms; let t = 0; while (performance.now() < end) { ${CHECK_SOURCE} t += step(t & 1023); } return t; } finally { ${CHECK_SOURCE} } }`;
