/**
 * Running one piece of work on many hosts: at most `forks` at once, each host connected with its own
 * timeout and given a deadline, so a slow or dead host only ever holds up itself. Every front end that
 * acts on many machines goes through here; what the work is (a graph run, a Salt highstate, a ping) is
 * the caller's.
 */

/** What the fan-out needs of a host: a name and a lifecycle. */
export interface FanoutHost {
  readonly name: string;
  open(): Promise<void>;
  close(): Promise<void>;
}

export interface FanoutOptions {
  /** Hosts worked on at once. */
  readonly forks: number;
  /** Milliseconds to connect (and authenticate) before the host counts as unreachable. */
  readonly connectTimeoutMs: number;
  /** Milliseconds the work on one host may take before that host is reported failed; none by default. */
  readonly commandTimeoutMs?: number | undefined;
  readonly onStart?: ((host: string) => void) | undefined;
  readonly onDone?: ((outcome: HostOutcome<unknown>) => void) | undefined;
}

export type HostOutcome<T> =
  | { readonly host: string; readonly status: 'done'; readonly value: T; readonly durationMs: number }
  | { readonly host: string; readonly status: 'unreachable'; readonly reason: string; readonly durationMs: number }
  | { readonly host: string; readonly status: 'failed'; readonly reason: string; readonly durationMs: number };

class Timeout extends Error {}

function within<T>(p: Promise<T>, ms: number | undefined, what: string): Promise<T> {
  if (ms === undefined) return p;
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout(`${what} after ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

function message(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text;
}

/** Strips a leading `host: ` from a message that already names the host. */
function reasonFor(host: string, e: unknown): string {
  const text = message(e);
  return text.startsWith(`${host}: `) ? text.slice(host.length + 2) : text;
}

async function oneHost<H extends FanoutHost, T>(host: H, options: FanoutOptions, work: (host: H) => Promise<T>): Promise<HostOutcome<T>> {
  const started = Date.now();
  const durationMs = (): number => Date.now() - started;
  try {
    await within(host.open(), options.connectTimeoutMs, `timed out connecting`);
  } catch (e) {
    await host.close().catch(() => {});
    return { host: host.name, status: 'unreachable', reason: reasonFor(host.name, e), durationMs: durationMs() };
  }
  try {
    const value = await within(work(host), options.commandTimeoutMs, 'timed out');
    return { host: host.name, status: 'done', value, durationMs: durationMs() };
  } catch (e) {
    return { host: host.name, status: 'failed', reason: reasonFor(host.name, e), durationMs: durationMs() };
  } finally {
    // Closing also ends whatever a timed-out run still has in flight on that host.
    await host.close().catch(() => {});
  }
}

/** Runs `work` on every host, `forks` at a time; outcomes come back in the order of `hosts`. */
export async function runOnHosts<H extends FanoutHost, T>(hosts: readonly H[], options: FanoutOptions, work: (host: H) => Promise<T>): Promise<HostOutcome<T>[]> {
  const outcomes: HostOutcome<T>[] = new Array(hosts.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      const host = hosts[i];
      if (host === undefined) return;
      options.onStart?.(host.name);
      const outcome = await oneHost(host, options, work);
      outcomes[i] = outcome;
      options.onDone?.(outcome);
    }
  };
  const workers = Math.max(1, Math.min(options.forks, hosts.length));
  await Promise.all(Array.from({ length: workers }, () => worker()));
  return outcomes;
}

export interface FleetTotals {
  readonly hosts: number;
  readonly changed: number;
  readonly ok: number;
  readonly failed: number;
  readonly unreachable: number;
}

/** `N hosts: X changed, Y ok, Z failed, W unreachable` */
export function totalsLine(t: FleetTotals): string {
  return `${t.hosts} host${t.hosts === 1 ? '' : 's'}: ${t.changed} changed, ${t.ok} ok, ${t.failed} failed, ${t.unreachable} unreachable`;
}

/**
 * The fleet's exit code: 1 when a host failed, else 4 when a host was unreachable, else 2 for changes
 * under --detailed-exitcode, else 0.
 */
export function fleetExitCode(t: FleetTotals, detailed: boolean): number {
  if (t.failed > 0) return 1;
  if (t.unreachable > 0) return 4;
  if (detailed && t.changed > 0) return 2;
  return 0;
}
