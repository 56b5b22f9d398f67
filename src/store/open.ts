/**
 * Chooses the run store: `--store URL`, else $CAIRN_STORE, else the file store in the state directory. The
 * PostgreSQL code (and the pg client) loads only when a postgres:// URL is given, so the default costs
 * nothing at start-up.
 */
import { StoreError } from './errors.js';
import { FileRunStore } from './file-store.js';
import { defaultStateDir } from './state-dir.js';
import type { RunStore } from './types.js';

export interface OpenStoreOptions {
  /** A postgres:// URL, or a directory (the file store). */
  readonly store?: string | undefined;
  readonly stateDir?: string | undefined;
  /** Create or upgrade a database schema that is older (run commands); readers refuse an old one. */
  readonly migrate?: boolean;
  readonly env?: NodeJS.ProcessEnv;
}

/** The store a command should use, by its options and the environment (undefined: the file store). */
export function storeUrl(options: OpenStoreOptions): string | undefined {
  const url = options.store ?? (options.stateDir === undefined ? (options.env ?? process.env).CAIRN_STORE : undefined);
  return url === '' ? undefined : url;
}

export function isDatabaseUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export async function openRunStore(options: OpenStoreOptions): Promise<RunStore> {
  const url = storeUrl(options);
  if (url === undefined) return new FileRunStore(options.stateDir ?? defaultStateDir(options.env));
  if (isDatabaseUrl(url)) {
    const { openPgStore } = await import('./postgres/pg-store.js');
    return openPgStore(url, { migrate: options.migrate ?? false });
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new StoreError('usage', `unknown store ${JSON.stringify(url.replace(/\/\/[^@/]*@/, '//***@'))}: give a postgres:// URL or a directory`);
  }
  if (options.stateDir !== undefined) throw new StoreError('usage', 'give either --store or --state-dir, not both');
  return new FileRunStore(url);
}
