/**
 * Grains: facts about this machine, named and shaped as Salt's core grains are on Linux. Computed once per
 * process (the render of 1,000 states must not re-read /etc/os-release 1,000 times); `id` comes from the
 * minion id of each call.
 */

import { readFileSync } from 'node:fs';
import os from 'node:os';

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

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

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

/** The os grains from an os-release text (and /etc/debian_version on Debian, as Salt reads it). */
export function osGrains(osRelease: Record<string, string>, debianVersion?: string): Record<string, unknown> {
  const id = (osRelease.ID ?? 'linux').toLowerCase();
  const names = OS_NAMES[id] ?? { os: osRelease.NAME?.split(' ')[0] ?? 'Linux', os_family: osRelease.NAME?.split(' ')[0] ?? 'Linux' };
  let release = osRelease.VERSION_ID ?? '';
  if (id === 'debian' && debianVersion && /^\d+(\.\d+)*$/.test(debianVersion.trim())) release = debianVersion.trim();
  const info = release.split('.').filter((p) => /^\d+$/.test(p)).map(Number);
  const major = info[0];
  const fullname = id === 'debian' ? 'Debian' : (osRelease.NAME ?? names.os).replace(/ GNU\/Linux$/, '').replace(/ Linux$/, '');
  return {
    os: names.os,
    os_family: names.os_family,
    osfullname: fullname,
    osrelease: release,
    osrelease_info: info,
    ...(major === undefined ? {} : { osmajorrelease: major }),
    osfinger: `${fullname}-${major ?? release}`,
    oscodename: osRelease.VERSION_CODENAME ?? '',
    osarch: process.arch === 'x64' ? 'amd64' : process.arch,
    lsb_distrib_id: fullname,
    lsb_distrib_release: release,
    lsb_distrib_codename: osRelease.VERSION_CODENAME ?? '',
  };
}

const CPU_ARCH: Record<string, string> = { x64: 'x86_64', arm64: 'aarch64', arm: 'armv7l', ia32: 'i686', ppc64: 'ppc64le', s390x: 's390x' };

let cached: Record<string, unknown> | undefined;

function machineGrains(): Record<string, unknown> {
  const host = os.hostname();
  const shortHost = host.split('.')[0] ?? host;
  const osRelease = parseOsRelease(readText('/etc/os-release') ?? readText('/usr/lib/os-release') ?? '');
  const user = os.userInfo();
  const ipv4: string[] = [];
  const ip4Interfaces: Record<string, string[]> = {};
  for (const [name, addrs] of Object.entries(os.networkInterfaces())) {
    const v4 = (addrs ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address);
    ip4Interfaces[name] = v4;
    ipv4.push(...v4);
  }
  const domain = host.includes('.') ? host.slice(host.indexOf('.') + 1) : '';
  return {
    ...osGrains(osRelease, readText('/etc/debian_version')),
    host: shortHost,
    nodename: host,
    fqdn: host,
    localhost: host,
    domain,
    kernel: os.type(),
    kernelrelease: os.release(),
    kernelversion: os.version(),
    cpuarch: CPU_ARCH[process.arch] ?? process.arch,
    num_cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? '',
    mem_total: Math.floor(os.totalmem() / 1024 / 1024),
    ipv4: [...new Set(ipv4)].sort(),
    ip4_interfaces: ip4Interfaces,
    machine_id: (readText('/etc/machine-id') ?? '').trim(),
    path: process.env.PATH ?? '',
    shell: process.env.SHELL ?? '/bin/sh',
    username: user.username,
    uid: user.uid,
    gid: user.gid,
    groupname: user.uid === 0 ? 'root' : user.username,
    pid: process.pid,
    init: 'systemd',
    saltversion: '3006.0',
    saltversioninfo: [3006, 0],
    saltpath: '',
    pythonversion: [3, 10, 0, 'final', 0],
  };
}

/** Grains of this machine with `id` set; the machine part is computed once per process. */
export function grainsFor(minionId: string): Record<string, unknown> {
  cached ??= machineGrains();
  return { id: minionId || (cached.host as string), ...cached };
}
