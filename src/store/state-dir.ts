/** Where cairn keeps its own state: run history and the lock. */
import { mkdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { userHome } from '../core/home.js';
import { StoreError, storeIoError } from './errors.js';

/**
 * The state directory when no `--state-dir` is given: $CAIRN_STATE_DIR, else $XDG_STATE_HOME/cairn, else
 * ~/.local/state/cairn. Root gets the same per-user rule (/root/.local/state/cairn): one convention, no
 * surprise system directory. A relative $XDG_STATE_HOME is ignored, as the XDG spec asks.
 */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.CAIRN_STATE_DIR;
  if (own) return resolve(own);
  const xdg = env.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'cairn');
  return join(userHome(env), '.local', 'state', 'cairn');
}

/**
 * Creates the state directory (and missing parents) readable by its owner only, and returns its absolute
 * path. An existing directory keeps its mode: a user who points --state-dir somewhere chose it.
 */
export function ensureStateDir(dir: string): string {
  const abs = resolve(dir);
  try {
    mkdirSync(abs, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw stateDirError(abs, e);
  }
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch (e) {
    throw stateDirError(abs, e);
  }
  if (!isDir) throw new StoreError('state-dir', `state directory ${abs} is not a directory; use --state-dir to choose another`);
  return abs;
}

function stateDirError(dir: string, e: unknown): unknown {
  const err = storeIoError('state-dir', `cannot create state directory ${dir}`, e);
  if (StoreError.is(err)) return new StoreError('state-dir', `${err.message}; use --state-dir to choose another`);
  return err;
}
