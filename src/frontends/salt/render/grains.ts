/**
 * Grains: facts about the target machine (its HostFacts, read on it by the facts script), named and shaped
 * as Salt's core grains are on Linux. This machine's are read once per process (the render of 1,000 states
 * must not re-read /etc/os-release 1,000 times); `id` comes from the minion id of each call.
 */

import { localFactsSync } from '../../../host/facts.js';
import type { HostFacts } from '../../../host/types.js';

interface OsInfo {
  os: string;
  os_family: string;
}

// /etc/os-release ID → Salt's `os` and `os_family` grains.
const OS_NAMES: Record<string, OsInfo> = {
  debian: { os: 'Debian', os_family: 'Debian' },
  ubuntu: { os: 'Ubuntu', os_family: 'Debian' },
  linuxmint: { os: 'Mint', os_family: 'Debian' },
  raspbian: { os: 'Raspbian', os_family: 'Debian' },
  centos: { os: 'CentOS', os_family: 'RedHat' },
  rhel: { os: 'RedHat', os_family: 'RedHat' },
  fedora: { os: 'Fedora', os_family: 'RedHat' },
  rocky: { os: 'Rocky', os_family: 'RedHat' },
  almalinux: { os: 'AlmaLinux', os_family: 'RedHat' },
  amzn: { os: 'Amazon', os_family: 'RedHat' },
  opensuse: { os: 'SUSE', os_family: 'Suse' },
  'opensuse-leap': { os: 'Leap', os_family: 'Suse' },
  sles: { os: 'SUSE', os_family: 'Suse' },
  arch: { os: 'Arch', os_family: 'Arch' },
  alpine: { os: 'Alpine', os_family: 'Alpine' },
  gentoo: { os: 'Gentoo', os_family: 'Gentoo' },
};

/** Salt's osarch: the package architecture (dpkg's names on Debian) for the machine's `uname -m`. */
const OS_ARCH: Record<string, string> = { x86_64: 'amd64', aarch64: 'arm64', armv7l: 'armhf', i686: 'i386', ppc64le: 'ppc64el' };

export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let v = m[2] ?? '';
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    out[m[1] ?? ''] = v;
  }
  return out;
}

/** Distributions whose os grains Salt 3006 takes from os-release alone. */
const OS_RELEASE_ONLY = new Set(['almalinux', 'astra', 'debian', 'linuxmint', 'mendel', 'pop', 'rocky', 'ubuntu']);

/**
 * The os grains from an os-release text, as Salt 3006 derives them: for the distributions it has tested
 * (Debian and Ubuntu among them) os-release alone (`osfullname` is NAME, `osrelease` VERSION_ID); for the
 * others its legacy path, which also reads /etc/debian_version-style release files. `osfinger` is
 * `os-major` for Debian, `osfullname-release` for Ubuntu and Pop, `osfullname-major` otherwise. The
 * lsb_distrib_* grains come from /etc/lsb-release, which Ubuntu ships and Debian does not (None there).
 */
export function osGrains(osRelease: Record<string, string>, debianVersion?: string, machine = 'x86_64'): Record<string, unknown> {
  const id = (osRelease.ID ?? 'linux').toLowerCase();
  const names = OS_NAMES[id] ?? { os: osRelease.NAME?.split(' ')[0] ?? 'Linux', os_family: osRelease.NAME?.split(' ')[0] ?? 'Linux' };
  const modern = OS_RELEASE_ONLY.has(id);
  let release = osRelease.VERSION_ID ?? '';
  if (!modern && debianVersion && /^\d+(\.\d+)*$/.test(debianVersion.trim())) release = debianVersion.trim();
  const info = release.split('.').filter((p) => /^\d+$/.test(p)).map(Number);
  const major = info[0];
  const fullname = (osRelease.NAME ?? names.os).trim();
  const fingerName = ['Debian', 'Raspbian'].includes(names.os) ? names.os : fullname;
  const fingerRelease = ['Ubuntu', 'Pop'].includes(names.os) ? release : (major ?? release);
  return {
    os: names.os,
    os_family: names.os_family,
    osfullname: fullname,
    osrelease: release,
    osrelease_info: info,
    ...(major === undefined ? {} : { osmajorrelease: major }),
    osfinger: `${fingerName}-${fingerRelease}`,
    oscodename: osRelease.VERSION_CODENAME ?? '',
    osarch: OS_ARCH[machine] ?? machine,
    // Without /etc/lsb-release Salt still has the keys, set to None.
    ...(id === 'ubuntu'
      ? { lsb_distrib_id: fullname, lsb_distrib_release: release, lsb_distrib_codename: osRelease.VERSION_CODENAME ?? '' }
      : { lsb_distrib_id: null, lsb_distrib_release: null, lsb_distrib_codename: null }),
  };
}


let localFacts: HostFacts | undefined;

/** Salt's core grains of a machine, from its facts (read on that machine). */
export function grainsFromFacts(facts: HostFacts): Record<string, unknown> {
  const host = facts.hostname;
  const shortHost = host.split('.')[0] ?? host;
  const fqdn = facts.fqdn || host;
  const interfaces = facts.ipv4Interfaces ?? {};
  const ipv4 = Object.keys(interfaces).length > 0 ? Object.values(interfaces).flat() : facts.ipAddresses.filter((a) => !a.includes(':'));
  const user = facts.user ?? { name: '', uid: 0, gid: 0, group: '' };
  return {
    ...osGrains({ ...facts.osRelease }, facts.debianVersion, facts.arch),
    host: shortHost,
    nodename: host,
    fqdn,
    localhost: host,
    domain: fqdn.includes('.') ? fqdn.slice(fqdn.indexOf('.') + 1) : '',
    kernel: facts.os,
    kernelrelease: facts.kernel,
    kernelversion: facts.kernelVersion ?? '',
    cpuarch: facts.arch,
    num_cpus: facts.cpuCount,
    cpu_model: facts.cpuModel ?? '',
    mem_total: Math.floor(facts.memoryBytes / 1024 / 1024),
    ipv4: [...new Set(ipv4)].sort(),
    ip4_interfaces: Object.fromEntries(Object.entries(interfaces).map(([k, v]) => [k, [...v]])),
    machine_id: facts.machineId ?? '',
    path: facts.env.PATH ?? '',
    shell: facts.env.SHELL ?? '/bin/sh',
    username: user.name,
    uid: user.uid,
    gid: user.gid,
    groupname: user.group,
    pid: process.pid,
    init: 'systemd',
    saltversion: '3006.0',
    saltversioninfo: [3006, 0],
    saltpath: '',
    pythonversion: [3, 10, 0, 'final', 0],
  };
}

/**
 * Grains with `id` set: of the machine whose facts are given (the target), else of this machine (its facts
 * read once per process by the same script every host runs).
 */
export function grainsFor(minionId: string, facts?: HostFacts): Record<string, unknown> {
  const machine = grainsFromFacts(facts ?? (localFacts ??= localFactsSync()));
  return { id: minionId || (machine.host as string), ...machine };
}
