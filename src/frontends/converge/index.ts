/** The Converge front end: HCL modules with params and value passing, compiled to the core graph. */
export { type ConvergeProgram, compileConverge } from './compile.js';
export { formatDot, graphView } from './dot.js';
export { formatHealth } from './format-health.js';
export { type ConvergeMode, formatRun, formatRunReport, metaBlocks } from './format-text.js';
