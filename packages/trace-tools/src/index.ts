export { TraceError, DEFAULT_LIMITS, validateTrace, validateDocument } from './validate';
export type { TraceLimits, TraceMeta, TraceDocument } from './validate';
export { readTraceFile, parseTraceText, decodeTraceBytes, DEFAULT_MAX_BYTES } from './read';
export type { ReadLimits } from './read';
export { summarize } from './analyze';
export type { FunctionTime, TraceSummary } from './analyze';
export { SourceMaps, symbolicate } from './symbolicate';
export type { SymbolicateStats } from './symbolicate';
