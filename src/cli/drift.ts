/**
 * `cairn drift [PATTERN]`: the latest known state of every resource on every host (in sync, drifted, failed,
 * unknown), since when and from which run, from the run store's drift query; PATTERN picks hosts as
 * --hosts does (with the inventory's groups when there is one).
 */
import { existsSync } from 'node:fs';
import type { Inventory, InventoryHost } from '../host/inventory.js';
import { selectHosts } from '../host/targeting.js';
import { DRIFT_STATES, type DriftEntry, type DriftState } from '../store/types.js';
import { table, withStore } from './history.js';
import { DEFAULT_INVENTORY, loadInventory } from './inventory.js';
import { writeOut } from '../engine/stdio.js';

export interface DriftOptions {
  out: 'text' | 'json';
  store?: string;
  stateDir?: string;
  inventory?: string;
  state?: DriftState;
  type?: string;
  resource?: string;
  detailedExitcode: boolean;
}

/** The hosts the store knows, as an inventory beside the real one (if any), so groups and globs both work. */
async function hostsInventory(names: readonly string[], file: string | undefined): Promise<Inventory> {
  const real = file !== undefined || existsSync(DEFAULT_INVENTORY) ? await loadInventory(file) : undefined;
  const known = new Set(real?.hosts.map((h) => h.name));
  const extra = names.filter((n) => !known.has(n)).map((name): InventoryHost => ({ name, address: name, port: 22, user: '', become: false, connection: 'ssh', vars: {}, groups: [] }));
  return { file: real?.file ?? 'the run store', format: 'cairn', hosts: [...(real?.hosts ?? []), ...extra], groups: real?.groups ?? new Map() };
}

function when(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')}Z`;
}

function text(entries: readonly DriftEntry[]): string {
  const hosts = [...new Set(entries.map((e) => e.host))];
  const counts = DRIFT_STATES.map((s) => `${entries.filter((e) => e.state === s).length} ${s}`).join(', ');
  const tally = `${entries.length} resource${entries.length === 1 ? '' : 's'} on ${hosts.length} host${hosts.length === 1 ? '' : 's'}: ${counts}`;
  if (entries.length === 0) return 'nothing recorded yet\n';
  const rows = [['HOST', 'RESOURCE', 'TYPE', 'STATE', 'SINCE', 'LAST RUN', 'COMMENT']];
  for (const e of entries) rows.push([e.host, e.resource, e.type, e.state, `${when(e.since)} (run ${e.sinceRunId})`, String(e.runId), e.comment.split('\n')[0] ?? '']);
  return `${table(rows)}\n${tally}\n`;
}

export async function showDrift(pattern: string | undefined, opts: DriftOptions): Promise<number> {
  return withStore(opts, async (store) => {
    let entries = await store.drift({ ...(opts.state ? { state: opts.state } : {}), ...(opts.type ? { type: opts.type } : {}), ...(opts.resource ? { resource: opts.resource } : {}) });
    if (pattern !== undefined) {
      const inventory = await hostsInventory([...new Set(entries.map((e) => e.host))], opts.inventory);
      const chosen = new Set(selectHosts(inventory, pattern).map((h) => h.name));
      entries = entries.filter((e) => chosen.has(e.host));
    }
    const order = (e: DriftEntry): string => `${e.host}\u0000${e.resource}`;
    entries = [...entries].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
    writeOut(opts.out === 'json' ? `${JSON.stringify(entries, null, 2)}\n` : text(entries));
    return opts.detailedExitcode && entries.some((e) => e.state === 'drifted' || e.state === 'failed') ? 2 : 0;
  });
}
