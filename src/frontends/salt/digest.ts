/**
 * Hashes for the states and filters that digest something (source_hash, archive hashes, the md5/sha
 * filters), with node:crypto loaded on first use: loading it is several milliseconds of a run's start-up
 * (more once the run has set a V8 flag, as Node's code cache for it is then refused), and most runs
 * hash nothing.
 */
import type { Hash } from 'node:crypto';

export function createHash(algorithm: string): Hash {
  return process.getBuiltinModule('node:crypto').createHash(algorithm);
}
