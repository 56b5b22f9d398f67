/**
 * A SysV machine without systemctl, for fake-host tests of the service kind: `service NAME ACTION` tracks
 * what runs in `running`, update-rc.d succeeds, insserv adds an rc2.d link. Each command line goes to `log`.
 */
import type { ExecHandler, FakeHost } from '../../src/host/fake.js';

export function sysvModel(host: FakeHost, running: Set<string> = new Set(), log: string[] = []): ExecHandler {
  return (command) => {
    const argv = typeof command === 'string' ? ['sh', '-c', command] : [...command];
    log.push(argv.join(' '));
    if (argv[0] === 'sh' && argv[2] === 'command -v systemctl') return { code: 1 };
    if (argv[0] === 'runlevel') return { code: 0, stdout: 'unknown\n' };
    if (argv[0] === 'service') {
      const [, name, action] = argv as [string, string, string];
      if (action === 'status') return { code: running.has(name) ? 0 : 3 };
      if (action === 'start' || action === 'restart') running.add(name);
      if (action === 'stop') running.delete(name);
      return { code: 0 };
    }
    if (argv[0] === 'update-rc.d') return { code: 0 };
    if (argv[0] === 'sh' && String(argv[2]).includes('insserv')) {
      host.addFile('/etc/rc2.d/S01web', '');
      return { code: 0 };
    }
    return { code: 127 };
  };
}
