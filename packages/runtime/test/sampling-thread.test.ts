/** Sampling with the sampler thread (Node's default: SharedArrayBuffer and a worker). */
import { describeSampling } from './sampling.shared';

describeSampling('thread');
