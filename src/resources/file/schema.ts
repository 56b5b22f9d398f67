import * as v from 'valibot';
import { ownerSchema } from '../attrs.js';
import { modeSchema, OCTAL_MODE } from '../kind.js';
import { absolutePathSchema, NOT_NORMAL } from '../paths.js';

export const fileSchema = v.pipe(
  v.strictObject({
    path: absolutePathSchema,
    /** The whole content of the file. */
    content: v.optional(v.string()),
    /** A file whose content is copied; relative paths are resolved against the graph file's folder. */
    source: v.optional(v.pipe(v.string(), v.minLength(1, 'expected a file path'))),
    mode: v.optional(modeSchema),
    /** Mode for a file this resource creates; an existing file keeps its own (Converge's file.content). */
    new_mode: v.optional(modeSchema),
    owner: v.optional(ownerSchema),
    group: v.optional(ownerSchema),
    /** Create missing parent directories. */
    makedirs: v.optional(v.boolean(), false),
    /** False: a missing file is left missing (Salt's create: False). */
    create: v.optional(v.boolean(), true),
    /** False: an existing file keeps its content; only mode and owner are managed (Salt's replace: False). */
    replace: v.optional(v.boolean(), true),
    /** A command run (through the shell) on a temporary copy of the new content; the file is written only when it exits 0. */
    check_cmd: v.optional(v.pipe(v.string(), v.minLength(1, 'expected a command'))),
  }),
  v.check((p) => p.content === undefined || p.source === undefined, 'give either content or source, not both'),
);

export type FileParams = v.InferOutput<typeof fileSchema>;

/**
 * What fileSchema gives for the params most graphs hold (a normal absolute path, text content, an octal
 * mode; nothing else), read without the schema's walk; undefined for anything else, which the schema
 * decides. Checked against the schema on many params in the tests.
 */
const DEFAULTS = { makedirs: false, create: true, replace: true } as const;

export function plainFileParams(params: Readonly<Record<string, unknown>>): FileParams | undefined {
  for (const k in params) if (k !== 'path' && k !== 'content' && k !== 'mode') return undefined;
  const { path, content, mode } = params;
  if (typeof path !== 'string' || path[0] !== '/' || NOT_NORMAL.test(path)) return undefined;
  if (content !== undefined && typeof content !== 'string') return undefined;
  if (mode !== undefined && (typeof mode !== 'string' || !OCTAL_MODE.test(mode))) return undefined;
  // Keys in the schema's order, as its output has them.
  if (content === undefined) return mode === undefined ? { path, ...DEFAULTS } : { path, mode, ...DEFAULTS };
  return mode === undefined ? { path, content, ...DEFAULTS } : { path, content, mode, ...DEFAULTS };
}
