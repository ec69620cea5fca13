export { Aggregator, DEFAULT_MAX_FUNCTIONS, DEFAULT_MAX_GROUPS, NO_GROUP, OTHER_FUNCTIONS, OTHER_GROUPS } from './aggregator';
export type { AggregateOptions, AggregateResult, AggregateCounts, AggregateFunction, AggregateView } from './aggregator';
export { aggregateFiles, DERIVED_FILE, findTraceFiles, readOrReport, TRACE_FILE } from './files';
export type { AggregateFilesOptions } from './files';
