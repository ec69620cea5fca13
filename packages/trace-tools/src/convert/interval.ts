/** How far apart a trace's samples are meant to be. */
import { BASE_INTERVAL, type ProfilerTrace } from '@jsprof/runtime';

/**
 * The sampling interval in milliseconds, estimated as the median gap between consecutive samples
 * (gaps of zero left out); the API's base interval of 10 ms when there are no two samples apart.
 */
export function sampleInterval(trace: ProfilerTrace): number {
  const gaps: number[] = [];
  for (let i = 1; i < trace.samples.length; i++) {
    const gap = trace.samples[i].timestamp - trace.samples[i - 1].timestamp;
    if (gap > 0) gaps.push(gap);
  }
  if (gaps.length === 0) return BASE_INTERVAL;
  gaps.sort((a, b) => a - b);
  const middle = gaps.length >> 1;
  return gaps.length % 2 ? gaps[middle] : (gaps[middle - 1] + gaps[middle]) / 2;
}
