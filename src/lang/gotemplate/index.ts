/** The subset of Go's text/template that Converge modules use. */
export { executeTemplate, type PassThrough, printValue, renderTemplate, stringArg, type TemplateFunc, truthy } from './exec.js';
export { literalCalls, parseTemplate, type TNode, TemplateError } from './parse.js';
