import type { ProfilerTrace } from '@jsprof/runtime';

/**
 * The sampling interval, estimated as the median gap between consecutive samples (robust to the
 * pauses and bursts around GC and idle periods); null when there are fewer than two samples or no gap.
 * Durations are samples × this interval.
 */
export function estimateInterval(trace: ProfilerTrace): number | null {
  if (trace.samples.length < 2) return null;
  // A typed array sorts numbers natively: a third of the time of sort() with a comparator (ingest reads it for every trace).
  const gaps = new Float64Array(trace.samples.length - 1);
  for (let i = 1; i < trace.samples.length; i++) gaps[i - 1] = trace.samples[i].timestamp - trace.samples[i - 1].timestamp;
  gaps.sort();
  const middle = gaps.length >> 1;
  const median = gaps.length % 2 ? gaps[middle] : (gaps[middle - 1] + gaps[middle]) / 2;
  return median > 0 ? median : null;
}
