/** How far apart a trace's samples are meant to be. */
import { BASE_INTERVAL, type ProfilerTrace } from '@jsprof/runtime';
import { estimateInterval } from '../report/interval';

/**
 * The sampling interval in milliseconds: the median gap between consecutive samples, or the API's
 * base interval of 10 ms when the trace has no two samples apart.
 */
export function sampleInterval(trace: ProfilerTrace): number {
  return estimateInterval(trace) ?? BASE_INTERVAL;
}
