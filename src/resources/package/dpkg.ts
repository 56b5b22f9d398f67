/** Reading the package database (dpkg-query, apt-cache) and changing it (apt-get), all through a host. */
import type { ExecResult, Host } from '../../host/types.js';

export interface PackageStatus {
  /** dpkg's current state: installed, config-files, not-installed, half-installed, unpacked, … */
  readonly state: string;
  /** The installed version ('' when none). */
  readonly version: string;
}

export const NOT_INSTALLED: PackageStatus = { state: 'not-installed', version: '' };

/** Program output in a fixed language, and no questions from apt or debconf. */
export const APT_ENV = { DEBIAN_FRONTEND: 'noninteractive', APT_LISTCHANGES_FRONTEND: 'none', LC_ALL: 'C' } as const;

function baseName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(0, colon);
}

function preferred(a: PackageStatus | undefined, b: PackageStatus): PackageStatus {
  if (a === undefined) return b;
  if (b.state === 'installed') return b;
  if (a.state === 'installed') return a;
  return a.state === 'not-installed' ? b : a;
}

/** Parses `${Package}\t${Status}\t${Version}` lines into the status of each package (by name without arch). */
export function parseDpkgQuery(stdout: string): Map<string, PackageStatus> {
  const out = new Map<string, PackageStatus>();
  for (const line of stdout.split('\n')) {
    const [pkg, status, version] = line.split('\t');
    if (pkg === undefined || status === undefined || pkg === '') continue;
    const state = status.trim().split(/\s+/)[2] ?? 'not-installed';
    const entry: PackageStatus = { state, version: state === 'not-installed' ? '' : (version ?? '').trim() };
    out.set(pkg, preferred(out.get(pkg), entry));
  }
  return out;
}

/** The dpkg status of each name; a package unknown to dpkg is not installed. */
export async function queryPackages(host: Host, names: readonly string[]): Promise<Map<string, PackageStatus>> {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own field syntax, not a template
  const result = await host.exec(['dpkg-query', '-W', '-f=${Package}\\t${Status}\\t${Version}\\n', ...names], { env: { LC_ALL: 'C' }, readOnly: true });
  // dpkg-query exits 1 when some name is unknown and still prints the known ones.
  if (result.code !== 0 && result.code !== 1) throw new Error(`dpkg-query failed: ${tail(result)}`);
  const found = parseDpkgQuery(result.stdout);
  return new Map(names.map((n) => [n, found.get(baseName(n)) ?? NOT_INSTALLED]));
}

/** Parses `apt-cache policy` output into the candidate version of each package that has one. */
export function parseAptPolicy(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | undefined;
  for (const line of stdout.split('\n')) {
    const head = /^(\S+):$/.exec(line);
    if (head) {
      current = head[1];
      continue;
    }
    const cand = /^\s+Candidate:\s*(\S+)/.exec(line);
    if (cand && current !== undefined && cand[1] !== '(none)') out.set(current, cand[1] as string);
  }
  return out;
}

/** Candidate versions apt would install, by requested name; names apt does not know are absent. */
export async function candidateVersions(host: Host, names: readonly string[]): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const result = await host.exec(['apt-cache', 'policy', ...names], { env: { LC_ALL: 'C' }, readOnly: true });
  if (result.code !== 0) throw new Error(`apt-cache policy failed: ${tail(result)}`);
  const found = parseAptPolicy(result.stdout);
  const out = new Map<string, string>();
  for (const n of names) {
    const v = found.get(n) ?? found.get(baseName(n));
    if (v !== undefined) out.set(n, v);
  }
  return out;
}

export function isInstalled(s: PackageStatus): boolean {
  return s.state === 'installed';
}

/** Anything dpkg still knows beyond "not installed" (config files, half-installed) is left by a removal. */
export function hasTraces(s: PackageStatus): boolean {
  return s.state !== 'not-installed';
}

export async function aptGet(host: Host, action: 'install' | 'remove' | 'purge', targets: readonly string[]): Promise<ExecResult> {
  const argv = ['apt-get', action, '-y', '-q'];
  if (action === 'install') argv.push('-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold');
  return host.exec([...argv, ...targets], { env: APT_ENV });
}

/** The last lines of a failed program's output, for a comment. */
export function tail(result: ExecResult): string {
  const text = result.stderr.trim() || result.stdout.trim() || `exit code ${result.code ?? result.signal}`;
  return text.split('\n').slice(-3).join('\n');
}
