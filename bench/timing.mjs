// Whole-process timing shared by the benchmarks: wall time (and peak RSS and CPU time where python3 can tell
// them) of one command, and round-robin rounds over several commands so that the machine's load at any moment
// weighs on all of them alike (these VMs are noisy).
import { spawnSync } from 'node:child_process';

const hasPython = spawnSync('python3', ['-c', 'import resource'], { stdio: 'ignore' }).status === 0;
const MEASURE = `
import resource, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, u.ru_maxrss, r.returncode, u.ru_utime + u.ru_stime)
if r.returncode not in (0, 2): sys.stderr.write(r.stderr.decode())
`;

/**
 * Wall seconds, peak RSS (MiB) and CPU seconds (user + system) of `node ARGV`; exit 0 or 2 (changes) is
 * success. Without python3, RSS and CPU are NaN.
 */
export function measure(argv) {
  if (hasPython) {
    const r = spawnSync('python3', ['-c', MEASURE, process.execPath, ...argv], { encoding: 'utf8' });
    const [wall, rssKb, code, cpu] = r.stdout.trim().split(/\s+/).map(Number);
    if (code !== 0 && code !== 2) throw new Error(`${argv.join(' ')} exited ${code}: ${r.stderr}`);
    return { wall, rss: rssKb / 1024, cpu };
  }
  const t = performance.now();
  const r = spawnSync(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0 && r.status !== 2) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall: (performance.now() - t) / 1000, rss: Number.NaN, cpu: Number.NaN };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Runs each case `runs` times round-robin (`before` runs first each time); median wall and CPU, peak RSS per case. */
export function interleaved(cases, runs) {
  const walls = cases.map(() => []);
  const cpus = cases.map(() => []);
  const rss = cases.map(() => 0);
  for (let i = 0; i < runs; i++) {
    cases.forEach((c, j) => {
      c.before?.();
      const m = measure(c.argv);
      walls[j].push(m.wall);
      cpus[j].push(m.cpu);
      rss[j] = Math.max(rss[j], m.rss);
    });
  }
  return cases.map((_, j) => ({ wall: median(walls[j]), cpu: median(cpus[j]), rss: rss[j] }));
}
