/** HCL1 as Converge writes it: our own parser with a position on every node. */
export type { HclBool, HclFile, HclItem, HclKey, HclList, HclNumber, HclObject, HclString, HclValue } from './ast.js';
export { plainValue } from './ast.js';
export { parseHcl } from './parser.js';
