export { summarize } from '@jsprof/trace-tools';
export type { FunctionTime, TraceSummary } from '@jsprof/trace-tools';
export { formatReport, displayLocation } from '@jsprof/trace-tools';
export { instrumentModule } from './instrument';
export { resolveFrame } from './sources';
export { traceReceiver } from './receive';
export type { ReceiverOptions } from './receive';
