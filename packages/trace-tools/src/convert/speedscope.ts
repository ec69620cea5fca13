/**
 * A trace as a speedscope profile (https://www.speedscope.app/file-format-schema.json): one
 * `sampled` profile in milliseconds over shared frames. Every sample weighs one sampling interval
 * (the median gap between samples; 10 ms when there are no two samples apart), since each stands
 * for one tick of the sampler. Idle samples are kept, on an `(idle)` frame, so the time-ordered view
 * keeps the gaps between bursts of work.
 */
import type { ProfilerFrame, ProfilerTrace } from '@jsprof/runtime';
import { sampleInterval } from './interval';

export const SPEEDSCOPE_SCHEMA = 'https://www.speedscope.app/file-format-schema.json';

export interface SpeedscopeFrame {
  name: string;
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  col?: number;
}

export interface SpeedscopeSampledProfile {
  type: 'sampled';
  name: string;
  unit: 'milliseconds';
  startValue: number;
  endValue: number;
  /** Indices into `shared.frames`, outermost first. */
  samples: number[][];
  weights: number[];
}

export interface SpeedscopeFile {
  $schema: typeof SPEEDSCOPE_SCHEMA;
  name: string;
  exporter?: string;
  activeProfileIndex: number;
  shared: { frames: SpeedscopeFrame[] };
  profiles: SpeedscopeSampledProfile[];
}

export interface SpeedscopeOptions {
  /** The profile's title in speedscope (a file name, say). */
  name: string;
  /** The tool that made the file, with its version. */
  exporter?: string;
}

/** Names anonymous functions as speedscope's own Chrome importer does: `(anonymous file.js:line)`. */
function frameOf(frame: ProfilerFrame, resources: string[]): SpeedscopeFrame {
  if (frame.resourceId === undefined) return { name: frame.name || '(anonymous)' };
  const file = resources[frame.resourceId];
  const where = frame.line === undefined ? '' : `:${frame.line}`;
  const name = frame.name || `(anonymous ${file.split('/').pop()}${where})`;
  return { name, file, line: frame.line, col: frame.column };
}

export function toSpeedscope(trace: ProfilerTrace, options: SpeedscopeOptions): SpeedscopeFile {
  const frames = trace.frames.map((frame) => frameOf(frame, trace.resources));
  let idleStack: number[] | undefined;
  const idle = () => (idleStack ??= [frames.push({ name: '(idle)' }) - 1]);

  const stackFrames: number[][] = [];
  const framesOfStack = (stackId: number): number[] => {
    if (!stackFrames[stackId]) {
      const path: number[] = [];
      for (let s: number | undefined = stackId; s !== undefined; s = trace.stacks[s].parentId) path.push(trace.stacks[s].frameId);
      stackFrames[stackId] = path.reverse();
    }
    return stackFrames[stackId];
  };

  const interval = sampleInterval(trace);
  const samples = trace.samples.map((sample) => (sample.stackId === undefined ? idle() : framesOfStack(sample.stackId)));
  const startValue = trace.samples.length ? trace.samples[0].timestamp : 0;
  const profile: SpeedscopeSampledProfile = {
    type: 'sampled',
    name: options.name,
    unit: 'milliseconds',
    startValue,
    endValue: startValue + interval * samples.length,
    samples,
    weights: samples.map(() => interval),
  };
  return {
    $schema: SPEEDSCOPE_SCHEMA,
    name: options.name,
    ...(options.exporter ? { exporter: options.exporter } : {}),
    activeProfileIndex: 0,
    shared: { frames },
    profiles: [profile],
  };
}
