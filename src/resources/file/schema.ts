import * as v from 'valibot';
import { ownerSchema } from '../attrs.js';
import { modeSchema, OCTAL_MODE, lazySchema } from '../kind.js';
import { absolutePathSchema, NOT_NORMAL } from '../paths.js';

export const fileSchema = lazySchema(() =>
  v.pipe(
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
  ),
);

export type FileParams = v.InferOutput<typeof fileSchema>;

/** The keys plainFileParams reads; any other key is left to the schema. */
const PLAIN_KEYS = new Set(['path', 'content', 'mode', 'new_mode', 'makedirs', 'create', 'replace']);

/**
 * What fileSchema gives for the params most graphs and steps hold (a normal absolute path, text content,
 * an octal mode and mode for a new file, the three flags; nothing else), read without the schema's walk;
 * undefined for anything else, which the schema decides. Checked against the schema over a grid of params in the tests.
 */
export function plainFileParams(params: Readonly<Record<string, unknown>>): FileParams | undefined {
  for (const k in params) if (!PLAIN_KEYS.has(k) || params[k] === undefined) return undefined;
  const { path, content, mode, new_mode: newMode, makedirs, create, replace } = params;
  if (typeof path !== 'string' || path[0] !== '/' || NOT_NORMAL.test(path)) return undefined;
  if (content !== undefined && typeof content !== 'string') return undefined;
  if (!plainMode(mode) || !plainMode(newMode)) return undefined;
  if (!flag(makedirs) || !flag(create) || !flag(replace)) return undefined;
  // Keys in the schema's order, as its output has them.
  const out: Record<string, unknown> = { path };
  if (content !== undefined) out.content = content;
  if (mode !== undefined) out.mode = mode;
  if (newMode !== undefined) out.new_mode = newMode;
  out.makedirs = makedirs ?? false;
  out.create = create ?? true;
  out.replace = replace ?? true;
  return out as FileParams;
}

const flag = (v: unknown): boolean => v === undefined || typeof v === 'boolean';
/** Absent, or what modeSchema accepts as it is: an octal string or a whole number of permission bits. */
const plainMode = (m: unknown): boolean => m === undefined || (typeof m === 'string' ? OCTAL_MODE.test(m) : Number.isInteger(m) && (m as number) >= 0 && (m as number) <= 0o7777);
