export * from './statements';
export * from './options';
export * from './check';
export * from './functions';
export * from './plan';
