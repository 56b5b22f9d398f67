/**
 * How a service is driven on a machine, through host.exec only: systemd (systemctl) when systemd is the
 * running init (/run/systemd/system exists), else SysV init scripts (`service`, the /etc/rcN.d links,
 * update-rc.d), as Salt's systemd_service and debian_service modules do.
 */
import type { Host } from '../../host/types.js';

export interface ServiceBackend {
  available(name: string): Promise<boolean>;
  running(name: string): Promise<boolean>;
  enabled(name: string): Promise<boolean>;
  /** start, stop, restart, reload, force-reload: true when the command succeeded. */
  act(name: string, action: 'start' | 'stop' | 'restart' | 'reload' | 'force-reload'): Promise<boolean>;
  enable(name: string): Promise<boolean>;
  disable(name: string): Promise<boolean>;
}

async function ok(host: Host, argv: string[] | string, readOnly = false): Promise<boolean> {
  const r = await host.exec(argv, { readOnly });
  return r.code === 0;
}

function sysv(host: Host): ServiceBackend {
  const runlevel = async (): Promise<string> => {
    const r = await host.exec(['runlevel'], { readOnly: true });
    const out = r.stdout.trim();
    return out.includes('unknown') || r.code !== 0 ? '2' : (out.split(/\s+/)[1] ?? '2');
  };
  const enabledSet = async (): Promise<Set<string>> => {
    const level = await runlevel();
    const out = new Set<string>();
    for (const dir of [`/etc/rc${level}.d`, '/etc/rcS.d']) {
      let names: string[] = [];
      try {
        names = await host.readdir(dir);
      } catch {
        continue;
      }
      for (const n of names) if (n.startsWith('S')) out.add(n.split(/\d+/).pop() as string);
    }
    return out;
  };
  return {
    async available(name) {
      if (name !== 'README' && (await host.lstat(`/etc/init.d/${name}`)) !== null) return true;
      return (await enabledSet()).has(name);
    },
    running: (name) => ok(host, ['service', name, 'status'], true),
    enabled: async (name) => (await enabledSet()).has(name),
    act: (name, action) => ok(host, ['service', name, action]),
    enable: (name) => ok(host, `insserv '${name.replace(/'/g, `'\\''`)}' && update-rc.d '${name.replace(/'/g, `'\\''`)}' enable`),
    disable: (name) => ok(host, ['update-rc.d', name, 'disable']),
  };
}

function systemd(host: Host): ServiceBackend {
  const unit = (name: string) => (/\.[a-z]+$/.test(name) ? name : `${name}.service`);
  return {
    async available(name) {
      const r = await host.exec(['systemctl', 'list-unit-files', '--no-legend', '--no-pager', unit(name)], { readOnly: true });
      return r.code === 0 && r.stdout.trim().length > 0;
    },
    running: (name) => ok(host, ['systemctl', 'is-active', '--quiet', unit(name)], true),
    enabled: (name) => ok(host, ['systemctl', 'is-enabled', '--quiet', unit(name)], true),
    act: (name, action) => ok(host, ['systemctl', action === 'force-reload' ? 'reload-or-restart' : action, unit(name)]),
    enable: (name) => ok(host, ['systemctl', 'enable', unit(name)]),
    disable: (name) => ok(host, ['systemctl', 'disable', unit(name)]),
  };
}

export async function backendFor(host: Host): Promise<ServiceBackend> {
  return (await booted(host)) ? systemd(host) : sysv(host);
}

async function booted(host: Host): Promise<boolean> {
  return (await host.stat('/run/systemd/system'))?.type === 'directory';
}

/**
 * systemd installed but not the running init (a container, a chroot): Salt's "offline" mode, where
 * service.running and service.dead do nothing and say so.
 */
export async function systemdOffline(host: Host): Promise<boolean> {
  if (await booted(host)) return false;
  const r = await host.exec(['sh', '-c', 'command -v systemctl'], { readOnly: true });
  return r.code === 0 && r.stdout.trim().length > 0;
}
