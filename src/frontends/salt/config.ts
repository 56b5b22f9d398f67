/**
 * The minion config a `-c DIR` names: `DIR/minion` then every `DIR/minion.d/*.conf` (sorted, later wins),
 * read with Salt's YAML loader. Only the keys cairn acts on are returned; the rest are accepted and ignored.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSaltYaml } from './render/yaml-load.js';

export interface MinionConfig {
  id?: string;
  fileRoots?: Record<string, string[]>;
  pillarRoots?: Record<string, string[]>;
  failhard?: boolean;
  stateOutput?: string;
  stateVerbose?: boolean;
  test?: boolean;
  saltenv?: string;
  pillarenv?: string;
  stateOutputDiff?: boolean;
  stateTabular?: boolean;
  /** Every option as read, for config.option lookups by state functions (hosts.file, …). */
  options?: Record<string, unknown>;
}

export class ConfigError extends Error {}

function roots(v: unknown, file: string, key: string): Record<string, string[]> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${file}: ${key} must be a mapping of environment to a list of directories`);
  const out: Record<string, string[]> = {};
  for (const [env, dirs] of Object.entries(v as Record<string, unknown>)) {
    out[env] = (Array.isArray(dirs) ? dirs : [dirs]).map(String);
  }
  return out;
}

function bool(v: unknown): boolean {
  if (typeof v === 'string') return ['true', 'yes', 'on', '1'].includes(v.toLowerCase());
  return Boolean(v);
}

function readOne(file: string, into: Record<string, unknown>): void {
  const text = readFileSync(file, 'utf8');
  const r = loadSaltYaml(text);
  if (!r.ok) throw new ConfigError(`${file}: ${r.failure.message}`);
  if (r.data === null || r.data === undefined) return;
  if (typeof r.data !== 'object' || Array.isArray(r.data)) throw new ConfigError(`${file}: the minion config must be a mapping`);
  Object.assign(into, r.data);
}

export function readMinionConfig(dir: string): MinionConfig {
  const raw: Record<string, unknown> = {};
  const main = join(dir, 'minion');
  if (existsSync(main)) readOne(main, raw);
  const dotd = join(dir, 'minion.d');
  if (existsSync(dotd)) for (const f of readdirSync(dotd).filter((n) => n.endsWith('.conf')).sort()) readOne(join(dotd, f), raw);
  const c: MinionConfig = { options: raw };
  if (raw.id !== undefined && raw.id !== null) c.id = String(raw.id);
  if (raw.file_roots !== undefined) c.fileRoots = roots(raw.file_roots, main, 'file_roots');
  if (raw.pillar_roots !== undefined) c.pillarRoots = roots(raw.pillar_roots, main, 'pillar_roots');
  if (raw.failhard !== undefined) c.failhard = bool(raw.failhard);
  if (raw.state_output !== undefined) c.stateOutput = String(raw.state_output);
  if (raw.state_verbose !== undefined) c.stateVerbose = bool(raw.state_verbose);
  if (raw.test !== undefined) c.test = bool(raw.test);
  if (typeof raw.saltenv === 'string') c.saltenv = raw.saltenv;
  if (typeof raw.pillarenv === 'string') c.pillarenv = raw.pillarenv;
  if (raw.state_output_diff !== undefined) c.stateOutputDiff = bool(raw.state_output_diff);
  if (raw.state_tabular !== undefined) c.stateTabular = bool(raw.state_tabular);
  return c;
}
