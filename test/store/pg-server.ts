/**
 * A real PostgreSQL server for tests: initdb on a temp directory, started with pg_ctl on a loopback port,
 * stopped and removed afterwards. As root, the server runs as the `postgres` user (or `nobody`), since
 * PostgreSQL refuses to run as root. Where no server binaries are installed, startPostgres returns
 * undefined and the caller skips with one line.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PgServer {
  /** A URL for a fresh database on the server. */
  newDatabase(): Promise<string>;
  readonly port: number;
  readonly dataDir: string;
  stop(): void;
  /** Stops the server without removing it, and starts it again (an unreachable database in between). */
  pause(): void;
  resume(): void;
}

function binDir(): string | undefined {
  const own = process.env.CAIRN_PG_BIN;
  if (own) return existsSync(join(own, 'pg_ctl')) ? own : undefined;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(base, v, 'bin', 'pg_ctl'))) return join(base, v, 'bin');
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** The user the server runs as when we are root. */
function serverUser(): { name: string; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const r = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const g = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (r.status === 0 && g.status === 0) return { name, uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
  }
  return undefined;
}

let counter = 0;

export async function startPostgres(): Promise<PgServer | undefined> {
  const bin = binDir();
  if (!bin) return undefined;
  const user = serverUser();
  if (process.getuid?.() === 0 && !user) return undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-pg-'));
  if (user) chownSync(dataDir, user.uid, user.gid);
  const run = (tool: string, args: string[]): void => {
    const argv = user ? ['runuser', '-u', user.name, '--', join(bin, tool), ...args] : [join(bin, tool), ...args];
    execFileSync(argv[0] as string, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], cwd: dataDir });
  };
  const port = await freePort();
  const data = join(dataDir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'cairn', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const start = (): void =>
    run('pg_ctl', ['-D', data, '-l', join(dataDir, 'log'), '-w', '-t', '60', '-o', `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`, 'start']);
  const stopNow = (): void => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    } catch {
      // Already stopped.
    }
  };
  start();
  const admin = `postgres://cairn@127.0.0.1:${port}/postgres`;
  return {
    port,
    dataDir,
    async newDatabase() {
      const name = `t${process.pid}_${++counter}`;
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`CREATE DATABASE ${name}`);
      await c.end();
      return `postgres://cairn@127.0.0.1:${port}/${name}`;
    },
    stop() {
      stopNow();
      rmSync(dataDir, { recursive: true, force: true });
    },
    pause: stopNow,
    resume: start,
  };
}

/** Prints the one loud line a skipped suite gives. */
export function skipLine(what: string): string {
  return `SKIPPED: ${what}: no PostgreSQL server binaries (install Debian's postgresql; scripts/test-deps.sh does)`;
}
