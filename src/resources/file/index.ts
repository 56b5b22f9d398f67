/**
 * `file`: a regular file with content (inline or from a source file), mode and owner (Salt's file.managed,
 * Converge's file.content). Writes are atomic; a symlink at the path is followed and kept.
 */
import { type Diagnostic, error } from '../../core/diag.js';
import { type GraphNode, hasDeferred } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith } from '../kind.js';
import { applyFile } from './apply.js';
import { checkFile, checkFileNow, sourcePath } from './check.js';
import { type FileParams, fileSchema, plainFileParams } from './schema.js';

const TYPE = 'file';

function parse(params: Params): FileParams {
  return parseParams(TYPE, fileSchema, params);
}

/** A source file that is missing or not a regular file, said before anything runs. */
async function sourceProblems(ctx: ResourceContext, source: string, node: GraphNode): Promise<readonly Diagnostic[]> {
  const from = sourcePath(ctx, source);
  const st = await (ctx.sources ?? ctx.host).stat(from);
  if (st?.type === 'file') return [];
  const problem = st ? 'is not a regular file' : 'does not exist';
  return [error('R002', `file ${JSON.stringify(node.id)}: source file ${from} ${problem}`, { span: node.paramSpans?.source ?? node.span, nodeId: node.id })];
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, fileSchema, params, node, plainFileParams),
  schema: fileSchema,
  preflight(ctx, params, node) {
    const source = params.source;
    if (typeof source !== 'string' || hasDeferred(source) || source === '') return [];
    return sourceProblems(ctx, source, node);
  },
  check: (ctx, params) => checkFile(ctx, parse(params)),
  checkNow: (ctx, params) => checkFileNow(ctx, parse(params)),
  apply: (ctx, params, check) => applyFile(ctx, parse(params), check),
};
