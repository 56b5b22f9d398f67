/**
 * Who holds a lock or is recording a run, and whether that process still exists. A pid alone is not
 * enough: after a crash and a reboot (or in a restarted container) the same pid is soon reused, so on
 * Linux we also keep the boot id and the process start time and compare both.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface ProcessIdentity {
  readonly pid: number;
  readonly host: string;
  /** /proc/sys/kernel/random/boot_id, when known. */
  readonly boot?: string;
  /** Start time of the process in clock ticks since boot (/proc/PID/stat field 22), when known. */
  readonly pstart?: number;
}

let bootIdCache: string | null | undefined;

function bootId(): string | undefined {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      bootIdCache = null;
    }
  }
  return bootIdCache ?? undefined;
}

function processStartTicks(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may contain spaces; fields resume after the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(rest[19]);
  return Number.isFinite(ticks) ? ticks : undefined;
}

let selfCache: ProcessIdentity | undefined;

export function currentProcess(): ProcessIdentity {
  if (selfCache?.pid === process.pid) return selfCache;
  const id: { pid: number; host: string; boot?: string; pstart?: number } = { pid: process.pid, host: hostname() };
  const boot = bootId();
  if (boot !== undefined) id.boot = boot;
  const pstart = processStartTicks(process.pid);
  if (pstart !== undefined) id.pstart = pstart;
  selfCache = id;
  return id;
}

/**
 * 'alive', 'dead', or 'unknown' (another host: its pids mean nothing here). A process we may not signal
 * (EPERM) exists and counts as alive unless its start time shows the pid was reused.
 */
export function processState(who: ProcessIdentity): 'alive' | 'dead' | 'unknown' {
  if (who.host !== hostname()) return 'unknown';
  const boot = bootId();
  if (who.boot !== undefined && boot !== undefined && who.boot !== boot) return 'dead';
  if (!Number.isInteger(who.pid) || who.pid <= 0) return 'dead';
  try {
    process.kill(who.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return 'dead';
  }
  if (who.pstart !== undefined) {
    const now = processStartTicks(who.pid);
    if (now !== undefined && now !== who.pstart) return 'dead';
  }
  return 'alive';
}

/** Reads the identity fields back from parsed JSON, or undefined when they are missing or malformed. */
export function identityFrom(value: Record<string, unknown>): ProcessIdentity | undefined {
  const { pid, host, boot, pstart } = value;
  if (typeof pid !== 'number' || typeof host !== 'string') return undefined;
  const id: { pid: number; host: string; boot?: string; pstart?: number } = { pid, host };
  if (typeof boot === 'string') id.boot = boot;
  if (typeof pstart === 'number') id.pstart = pstart;
  return id;
}
