/** Sampling without a thread (as in WebKit, or any page that is not cross-origin isolated). */
import { useSamplerThread } from '../src/node';
import { describeSampling } from './sampling.shared';

// Before the first profiler: the engine then never starts a ticker.
useSamplerThread(false);

describeSampling('count-down');
