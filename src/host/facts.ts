/**
 * Facts about a target, read on the target by one small POSIX shell script (one exec per host, whatever
 * the transport), and the parser of what it prints. The script uses only uname, getconf, /proc and
 * /etc/os-release, with `ip` and `hostname` where present, so it runs on any POSIX machine without node.
 */
import { runSync } from './run-sync.js';
import type { HostFacts } from './types.js';

const MARK = '@@cairn-facts@@';

/**
 * Sections are introduced by `MARK name` lines; env is NUL-separated so values may hold newlines. The
 * environment is read first, before the script sets LC_ALL for its own tools.
 */
export const FACTS_SCRIPT = `m='${MARK}'
echo "$m env"; env -0 2>/dev/null || env
echo; LC_ALL=C; export LC_ALL
echo "$m uname"; uname -s; uname -r; uname -m; uname -n
echo "$m fqdn"; (hostname -f 2>/dev/null || uname -n) | head -n 1
echo "$m cpus"; getconf _NPROCESSORS_ONLN 2>/dev/null || grep -c '^processor' /proc/cpuinfo 2>/dev/null || echo 1
echo "$m mem"; if [ -r /proc/meminfo ]; then awk '/^MemTotal:/ {printf "%.0f\\n", $2 * 1024}' /proc/meminfo; else sysctl -n hw.memsize hw.physmem 2>/dev/null | head -n 1; fi
echo "$m os-release"; cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release 2>/dev/null
echo "$m ip"; if command -v ip >/dev/null 2>&1; then ip -o addr show 2>/dev/null | awk '{print $4}'; elif command -v hostname >/dev/null 2>&1; then hostname -I 2>/dev/null | tr ' ' '\\n'; fi
echo "$m kernelversion"; uname -v
echo "$m cpumodel"; grep -m 1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/^[^:]*: *//'
echo "$m user"; id -un; id -u; id -g; id -gn
echo "$m machine-id"; cat /etc/machine-id 2>/dev/null
echo "$m debian-version"; cat /etc/debian_version 2>/dev/null
echo "$m ip4if"; command -v ip >/dev/null 2>&1 && ip -o -4 addr show 2>/dev/null | awk '{print $2, $4}'
echo "$m end"
`;

function sections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = text.split(`${MARK} `);
  for (const part of parts.slice(1)) {
    const nl = part.indexOf('\n');
    const name = part.slice(0, nl < 0 ? undefined : nl).trim();
    out.set(name, nl < 0 ? '' : part.slice(nl + 1));
  }
  return out;
}

function lines(text: string | undefined): string[] {
  return (text ?? '').split('\n').map((l) => l.trim()).filter((l) => l !== '');
}

/** os-release is shell-quoted key=value lines. */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines(text)) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2] ?? '';
    if (/^".*"$/.test(value)) value = value.slice(1, -1).replace(/\\(["$`\\])/g, '$1');
    else if (/^'.*'$/.test(value)) value = value.slice(1, -1);
    out[m[1] ?? ''] = value;
  }
  return out;
}

const FAMILIES: ReadonlyArray<readonly [string, string]> = [
  ['debian', 'debian'],
  ['ubuntu', 'debian'],
  ['rhel', 'rhel'],
  ['fedora', 'rhel'],
  ['centos', 'rhel'],
  ['suse', 'suse'],
  ['arch', 'arch'],
  ['alpine', 'alpine'],
  ['gentoo', 'gentoo'],
];

/** The family: the distribution itself when it is a root one, else the first of ID_LIKE we know. */
export function osFamilyOf(os: string, release: Readonly<Record<string, string>>): string {
  const ids = [release.ID ?? '', ...(release.ID_LIKE ?? '').split(/\s+/)].map((s) => s.toLowerCase()).filter(Boolean);
  for (const id of ids) {
    const hit = FAMILIES.find(([key]) => id === key || id.startsWith(`${key}`));
    if (hit) return hit[1];
  }
  return ids[0] ?? os.toLowerCase();
}

function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  // With env -0 entries end in NUL; a fallback `env` gives lines (values with newlines then cannot be told apart).
  const entries = text.includes('\0') ? text.split('\0') : text.split('\n');
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0) continue;
    const key = entry.slice(0, eq).replace(/^\n+/, '');
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) continue;
    out[key] = entry.slice(eq + 1);
  }
  return out;
}

function parseAddresses(text: string | undefined): string[] {
  const v4: string[] = [];
  const v6: string[] = [];
  for (const raw of lines(text)) {
    const addr = raw.replace(/\/\d+$/, '');
    if (addr === '' || addr.startsWith('127.') || addr === '::1') continue;
    const list = addr.includes(':') ? v6 : v4;
    if (!list.includes(addr)) list.push(addr);
  }
  return [...v4, ...v6];
}

/** Parses the script's output; throws when it is not the script's output at all. */
export function parseFacts(stdout: string): HostFacts {
  const s = sections(stdout);
  if (!s.has('end')) throw new Error('the facts script did not finish (its output ends early)');
  const [os = '', kernel = '', arch = '', hostname = ''] = lines(s.get('uname'));
  const osRelease = parseOsRelease(s.get('os-release') ?? '');
  const cpus = Number(lines(s.get('cpus'))[0]);
  const mem = Number(lines(s.get('mem'))[0]);
  const envText = (s.get('env') ?? '').replace(/\n\n$/, '');
  return {
    os,
    osFamily: osFamilyOf(os, osRelease),
    osRelease,
    kernel,
    arch,
    hostname,
    fqdn: lines(s.get('fqdn'))[0] ?? hostname,
    env: parseEnv(envText),
    ipAddresses: parseAddresses(s.get('ip')),
    cpuCount: Number.isInteger(cpus) && cpus > 0 ? cpus : 1,
    memoryBytes: Number.isFinite(mem) && mem > 0 ? mem : 0,
    kernelVersion: (s.get('kernelversion') ?? '').split('\n')[0] ?? '',
    cpuModel: lines(s.get('cpumodel'))[0] ?? '',
    ...userOf(lines(s.get('user'))),
    machineId: lines(s.get('machine-id'))[0] ?? '',
    debianVersion: lines(s.get('debian-version'))[0] ?? '',
    ipv4Interfaces: parseInterfaces(s.get('ip4if')),
  };
}

function userOf(l: string[]): Pick<HostFacts, 'user'> {
  const [name, uid, gid, group] = l;
  if (name === undefined || !/^\d+$/.test(uid ?? '') || !/^\d+$/.test(gid ?? '')) return {};
  return { user: { name, uid: Number(uid), gid: Number(gid), group: group ?? name } };
}

/** `IFACE ADDR/PREFIX` lines → interface → its IPv4 addresses, in the order `ip` lists them. */
function parseInterfaces(text: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of lines(text)) {
    const [iface = '', cidr = ''] = line.split(/\s+/);
    const addr = cidr.replace(/\/\d+$/, '');
    if (iface === '' || addr === '') continue;
    const list = (out[iface] ??= []);
    if (!list.includes(addr)) list.push(addr);
  }
  return out;
}

/** The facts of the machine running cairn, read now by the same script (for synchronous callers). */
export function localFactsSync(): HostFacts {
  const r = runSync('/bin/sh', ['-c', FACTS_SCRIPT], { input: '' });
  if (r.status !== 0) throw new Error(`cannot read the facts of this machine: ${r.failure ?? `the facts script exited ${r.status ?? 'on a signal'}`}`);
  return parseFacts(r.stdout);
}

/** Runs the facts script through a host's exec. */
export async function gatherFacts(exec: (script: string) => Promise<{ code: number | null; stdout: string; stderr: string }>, hostName: string): Promise<HostFacts> {
  const r = await exec(FACTS_SCRIPT);
  if (r.code !== 0) throw new Error(`cannot read the facts of ${hostName}: the facts script exited ${r.code ?? 'on a signal'}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`);
  return parseFacts(r.stdout);
}
