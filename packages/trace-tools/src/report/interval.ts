import type { ProfilerTrace } from '@jsprof/runtime';

/**
 * The sampling interval, estimated as the median gap between consecutive samples (robust to the
 * pauses and bursts around GC and idle periods); null when there are fewer than two samples or no gap.
 * Durations are samples × this interval.
 */
export function estimateInterval(trace: ProfilerTrace): number | null {
  const gaps: number[] = [];
  for (let i = 1; i < trace.samples.length; i++) gaps.push(trace.samples[i].timestamp - trace.samples[i - 1].timestamp);
  if (gaps.length === 0) return null;
  gaps.sort((a, b) => a - b);
  const middle = gaps.length >> 1;
  const median = gaps.length % 2 ? gaps[middle] : (gaps[middle - 1] + gaps[middle]) / 2;
  return median > 0 ? median : null;
}
