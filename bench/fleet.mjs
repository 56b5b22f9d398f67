// `npm run bench:fleet`: cairn on many hosts over SSH against real sshd on loopback, whole process, each
// round against a floor (bench/fleet-floor.mjs: plain node + ssh2 doing the same connect/check/write with
// the same durability). Prints wall times, ratios, peak RSS, per-host round trips (sequential, counted by
// the SSH host) and a curve over 1, 5, 20 and 50 hosts. Needs openssh-server and root (it starts sshd).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved } from './timing.mjs';
import { sshdMissing, startSshd, testClientKey } from '../test/host/sshd.ts';

const root = new URL('..', import.meta.url).pathname;
const CAIRN = join(root, 'bin/cairn.js');
const FLOOR = join(root, 'bench/fleet-floor.mjs');
const COUNTS = (process.env.BENCH_FLEET_HOSTS ?? '1,5,20,50').split(',').map(Number);
const FILES = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const missing = sshdMissing();
if (missing) {
  console.log(missing);
  process.exit(0);
}

const work = fs.mkdtempSync(join(tmpdir(), 'cairn-bench-fleet-'));
fs.chmodSync(work, 0o755);
const max = Math.max(...COUNTS);
const servers = [];
const roots = [];
for (let i = 0; i < max; i++) {
  const r = join(work, `h${i}`);
  fs.mkdirSync(r);
  roots.push(r);
  servers.push(await startSshd({ setEnv: { CAIRN_TEST_ROOT: r } }));
}

function graphFor(files) {
  const nodes = [{ id: 'where', type: 'wait', params: { check: 'printf %s "$CAIRN_TEST_ROOT"', max_retry: 1 } }];
  for (let i = 0; i < files; i++) nodes.push({ id: `f${i}`, type: 'file', params: { path: { $concat: [{ $ref: 'where', field: 'stdout' }, `/f${i}`] }, content: `line ${i}\n`, mode: '0644' } });
  return { version: 1, nodes };
}

function setup(n, files = FILES) {
  const dir = fs.mkdtempSync(join(work, `n${n}-`));
  const inv = ['defaults:', '  user: root', `  key: ${testClientKey()}`, 'hosts:'];
  for (let i = 0; i < n; i++) inv.push(`  h${i}: {address: 127.0.0.1, port: ${servers[i].port}}`);
  fs.writeFileSync(join(dir, 'inventory.yaml'), `${inv.join('\n')}\n`);
  fs.writeFileSync(join(dir, 'graph.json'), JSON.stringify(graphFor(files)));
  fs.writeFileSync(join(dir, 'hosts.json'), JSON.stringify(roots.slice(0, n).map((r, i) => ({ port: servers[i].port, root: r, key: testClientKey() }))));
  const state = join(dir, 'state');
  const args = (mode) => [CAIRN, mode, join(dir, 'graph.json'), '--inventory', join(dir, 'inventory.yaml'), '--hosts', 'all', '--state-dir', state, '--forks', '20'];
  // Record the host keys once (not timed).
  spawnSync(process.execPath, [CAIRN, 'ping', '--inventory', join(dir, 'inventory.yaml'), '--state-dir', state, '--accept-new-host-keys'], { stdio: 'ignore', env: { ...process.env, HOME: dir } });
  return { dir, args, hostsFile: join(dir, 'hosts.json') };
}

const CPU = `
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(u.ru_utime + u.ru_stime)
`;

/** CPU seconds (user + system) the controller process used: what each host costs the controller. */
function cpuSeconds(argv) {
  const r = spawnSync('python3', ['-c', CPU, process.execPath, ...argv], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

function clean(n) {
  for (const r of roots.slice(0, n)) for (const f of fs.readdirSync(r)) fs.rmSync(join(r, f), { force: true });
}

function roundTrips(s, n, mode) {
  const r = spawnSync(process.execPath, [...s.args(mode), '--out', 'json'], { encoding: 'utf8', env: { ...process.env, HOME: s.dir } });
  const j = JSON.parse(r.stdout);
  const t = Object.values(j.hosts).map((h) => h.transport ?? {});
  return { roundTrips: Math.max(...t.map((x) => x.roundTrips ?? 0)), requests: Math.round(t.reduce((a, x) => a + (x.requests ?? 0), 0) / n), totals: j.totals };
}

process.env.HOME = work;
const rows = [];
for (const n of COUNTS) {
  const s = setup(n);
  process.env.HOME = s.dir;
  clean(n);
  const first = interleaved(
    [
      { name: 'cairn first apply', before: () => clean(n), argv: s.args('apply') },
      { name: 'floor first apply', before: () => clean(n), argv: [FLOOR, s.hostsFile, String(FILES)] },
    ],
    ROUNDS,
  );
  const noop = interleaved(
    [
      { name: 'cairn no-op', argv: s.args('apply') },
      { name: 'floor no-op', argv: [FLOOR, s.hostsFile, String(FILES)] },
    ],
    ROUNDS,
  );
  const rt = roundTrips(s, n, 'apply');
  const cpu = cpuSeconds(s.args('apply'));
  const floorCpu = cpuSeconds([FLOOR, s.hostsFile, String(FILES)]);
  rows.push({ n, first, noop, rt, cpu });
  const [cf, ff] = first;
  const [cn, fn] = noop;
  console.log(
    `${String(n).padStart(3)} hosts: first apply ${cf.wall.toFixed(2)} s (floor ${ff.wall.toFixed(2)} s, ×${(cf.wall / ff.wall).toFixed(1)}); ` +
      `no-op ${cn.wall.toFixed(2)} s (floor ${fn.wall.toFixed(2)} s, ×${(cn.wall / fn.wall).toFixed(1)}); ` +
      `peak RSS ${cn.rss.toFixed(0)} MiB (floor ${fn.rss.toFixed(0)}); controller CPU ${cpu.toFixed(2)} s (floor ${floorCpu.toFixed(2)} s); ` +
      `no-op per host: ${rt.roundTrips} sequential round trips, ${rt.requests} requests`,
  );
}

// Round trips do not grow with the number of resources: one host with 1,000 files.
{
  const s = setup(1, 1000);
  process.env.HOME = s.dir;
  clean(1);
  spawnSync(process.execPath, s.args('apply'), { stdio: 'ignore', env: { ...process.env, HOME: s.dir } });
  const rt = roundTrips(s, 1, 'apply');
  console.log(`  1 host, 1000 files: no-op ${rt.roundTrips} sequential round trips, ${rt.requests} requests (vs ${rows[0]?.rt.roundTrips} with ${FILES} files)`);
}
if (rows.length > 1) {
  const a = rows[0];
  const b = rows[rows.length - 1];
  console.log(`RSS per extra host (no-op): ${((b.noop[0].rss - a.noop[0].rss) / (b.n - a.n)).toFixed(2)} MiB`);
  console.log(`controller CPU per extra host (no-op): ${(((b.cpu - a.cpu) / (b.n - a.n)) * 1000).toFixed(0)} ms`);
}
for (const s of servers) s.stop();
fs.rmSync(work, { recursive: true, force: true });
