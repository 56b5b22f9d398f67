/** The OtterScript front end: parse, check, run in a mode, and render the execution log. */
export type { Script } from './ast.js';
export { checkScript } from './check.js';
export type { DriftDetail, DriftItem, EngineOptions, ServerContext, ServerDirectory, Status } from './engine-types.js';
export { operations } from './operations/index.js';
export { functionNames } from './functions.js';
export { indentedLines, type LogLine, plainLines } from './log.js';
export { parseScript } from './parser.js';
export { RaftLoader } from './raft.js';
export { type ExecutionMode, type OtterRunOptions, type OtterRunResult, runOtter } from './run.js';
export type { Value } from './values.js';
