/** The built-in operations, found by script name with or without their namespace (`Files::Ensure-File`). */
import { exec, shCall, shExecOp } from './exec.js';
import { copyFiles, createFile, deleteFiles, ensureDirectory, ensureFile, renameFile, replaceText } from './files.js';
import { applyTemplate, setVariable, sleep } from './general.js';
import { collectDebianPackages, ensurePackage, ensureUser } from './system.js';
import type { ArgSpec, Operation } from './types.js';

const all: readonly Operation[] = [
  ensureFile,
  ensureDirectory,
  createFile,
  deleteFiles,
  copyFiles,
  renameFile,
  replaceText,
  exec,
  shExecOp,
  shCall,
  sleep,
  applyTemplate,
  setVariable,
  ensurePackage,
  ensureUser,
  collectDebianPackages,
];

/** Every built-in operation, for listings. */
export const operations: readonly Operation[] = all;

const byName = new Map(all.flatMap((op) => [op.name, ...(op.aliases ?? [])].map((n) => [n.toLowerCase(), op] as const)));

/** A namespace is accepted when it is the operation's own or one of the generic ones scripts use. */
const GENERIC = new Set(['inedocore', 'inedo']);

export function lookupOperation(name: string, namespace?: string): Operation | undefined {
  const op = byName.get(lowerName(name));
  if (!op || namespace === undefined) return op;
  const ns = namespace.toLowerCase();
  return ns === op.namespace.toLowerCase() || GENERIC.has(ns) ? op : undefined;
}

export type { Operation };

/** The spec of a named argument, by name or alias, in any case. */
export function findArg(op: Operation, name: string): ArgSpec | undefined {
  // Scripts name the same arguments again and again: each name is looked up once per operation.
  let found = argsFound.get(op);
  if (!found) argsFound.set(op, (found = new Map()));
  const known = found.get(name);
  if (known !== undefined || found.has(name)) return known ?? undefined;
  const n = name.toLowerCase();
  const spec = op.args.find((a) => a.name.toLowerCase() === n || a.aliases?.some((x) => x.toLowerCase() === n));
  found.set(name, spec ?? null);
  return spec;
}

const argsFound = new Map<Operation, Map<string, ArgSpec | null>>();

/** `name` in lower case: the names operations and their specs use, each lowered once. */
export function lowerName(name: string): string {
  let lower = lowered.get(name);
  if (lower === undefined) lowered.set(name, (lower = name.toLowerCase()));
  return lower;
}

const lowered = new Map<string, string>();
