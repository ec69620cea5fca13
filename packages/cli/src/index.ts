export { summarize } from './analyze';
export type { FunctionTime, TraceSummary } from './analyze';
export { formatReport, displayLocation } from './report';
export { instrumentModule } from './instrument';
export { resolveFrame } from './sources';
export { traceReceiver } from './receive';
export type { ReceiverOptions } from './receive';
