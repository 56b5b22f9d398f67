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
  const op = byName.get(name.toLowerCase());
  if (!op || namespace === undefined) return op;
  const ns = namespace.toLowerCase();
  return ns === op.namespace.toLowerCase() || GENERIC.has(ns) ? op : undefined;
}

export type { Operation };

/** The spec of a named argument, by name or alias, in any case. */
export function findArg(op: Operation, name: string): ArgSpec | undefined {
  const n = name.toLowerCase();
  return op.args.find((a) => a.name.toLowerCase() === n || a.aliases?.some((x) => x.toLowerCase() === n));
}
