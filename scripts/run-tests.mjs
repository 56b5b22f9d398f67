// Runs every test/**/*.test.ts explicitly (Node 20's runner does not find .ts files in a folder by
// itself) and fails when no test ran. Extra arguments narrow the run to files whose path contains them.
//
// The TypeScript is compiled once per run, not once per test process: esbuild turns every .ts file of
// src/, test/ and scripts/ into JavaScript in a temporary copy of the tree (test-build.mjs), and Node's
// runner runs the copies without a loader. A test file still sees its own path: import.meta.url,
// dirname and filename are the .ts file's, so fixtures, dist/ and the CLI are found where they are.
// Paths into the copy in the output are shown as the .ts files they came from.
//
// Node's runner runs CONCURRENCY processes at a time: each of the longest files alone, the others in
// groups (below). Most tests run the CLI in-process (one worker thread per process, the test's main
// thread waiting on it), so a process keeps about one core busy; one more process than there are cores
// fills the time they spend waiting on the programs they start (sh, python3, git, a real sshd or
// PostgreSQL) without making the busy ones queue for a core. Node's own default (cores - 1) would run one
// at a time on a 2-core machine. CAIRN_TEST_CONCURRENCY overrides it. The longest files start first, so
// the run does not end with one long file on one core while the other idles (the runner starts them in
// the order it is given them).
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildTests, testFiles } from './test-build.mjs';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const filters = process.argv.slice(2);
/** The longest files (CPU and waiting), longest first, as measured; the others follow in path order. */
const LONGEST = [
  'test/frontends/salt/differential.test.ts',
  'test/frontends/converge/sweep.test.ts',
  'test/frontends/inmanta/golden.test.ts',
  'test/fuzz/fuzz.test.ts',
  'test/web/dashboard.browser.test.ts',
  'test/frontends/zapusk/golden.test.ts',
  'test/host/salt-fleet-cli.test.ts',
  'test/host/ssh.test.ts',
  'test/host/ssh-leftovers.test.ts',
  'test/host/fleet-otter-inmanta.test.ts',
  'test/host/fleet-cli.test.ts',
  'test/host/fleet-frontends.test.ts',
  'test/frontends/otter/cli.test.ts',
];
const rank = (f) => (LONGEST.includes(f) ? LONGEST.indexOf(f) : LONGEST.length);
const files = testFiles(root)
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
// Temporary files go to a RAM file system when there is one (/dev/shm), unless TMPDIR says where: the
// tests make and delete many thousands of files, which costs far more on a disk, and everything they leave
// behind goes with the folder at the end. CAIRN_TEST_DISK_TMPDIR keeps the system's temporary folder for a
// test that needs a disk's file system.
const diskTmp = tmpdir();
let scratch;
if (process.env.TMPDIR === undefined) {
  try {
    if (statSync('/dev/shm').isDirectory()) {
      scratch = mkdtempSync('/dev/shm/cairn-tmp-');
      // Open to every user, as /tmp is: tests run programs as other users (PostgreSQL, a non-root login).
      chmodSync(scratch, 0o1777);
    }
  } catch {
    scratch = undefined;
  }
}
const removeScratch = () => scratch && rmSync(scratch, { recursive: true, force: true });
const build = await buildTests(root, scratch ?? diskTmp);
const compiled = (f) => join(build.dir, f.replace(/\.ts$/, '.js'));

// The other files run GROUP (16) to a process, one after the other, each file's tests under its own heading
// (its path): a process, its module loading and its CLI worker are paid once per group instead of once
// per file. CAIRN_TEST_ISOLATE=1 gives every file its own process again.
const GROUP = process.env.CAIRN_TEST_ISOLATE === '1' ? 1 : 16;
const alone = files.filter((f) => rank(f) < LONGEST.length);
const rest = files.filter((f) => rank(f) === LONGEST.length);
const entries = alone.map(compiled);
mkdirSync(join(build.dir, 'groups'));
for (let i = 0; i < rest.length; i += GROUP) {
  const group = rest.slice(i, i + GROUP);
  if (group.length === 1) {
    entries.push(compiled(group[0]));
    continue;
  }
  // Each file is imported by its suite, so the tests it declares as it loads are that suite's (the
  // runner finds a test's parent from the code that runs it: a test declared after a top-level await of
  // its file lands at the top level, still run, without the heading). The files load together, and their
  // tests run file after file.
  const lines = ["import { describe } from 'node:test';"];
  for (const f of group) lines.push(`describe(${JSON.stringify(f)}, () => import(${JSON.stringify(pathToFileURL(compiled(f)).href)}));`);
  const entry = join(build.dir, 'groups', `${String(i / GROUP + 1).padStart(2, '0')}.mjs`);
  writeFileSync(entry, `${lines.join('\n')}\n`);
  entries.push(entry);
}
// Inmanta's Python plugins start python3 for every call. Where python3 on PATH is a version manager's shim
// (a script that works out which interpreter to start, every time), that costs more than the call: the
// interpreter python3 starts is found once here and handed to the tests as CAIRN_PYTHON.
const env = { ...process.env, CAIRN_TEST_BUILD: build.dir, CAIRN_TEST_DISK_TMPDIR: diskTmp, ...(scratch ? { TMPDIR: scratch } : {}) };
if (env.CAIRN_PYTHON === undefined) {
  const probe = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  const interpreter = probe.status === 0 ? probe.stdout.trim() : '';
  if (interpreter.startsWith('/')) env.CAIRN_PYTHON = interpreter;
}
const CONCURRENCY = Number(process.env.CAIRN_TEST_CONCURRENCY) || availableParallelism() + 1;
const child = spawn(process.execPath, ['--enable-source-maps', '--test', `--test-concurrency=${CONCURRENCY}`, '--test-reporter=spec', ...entries], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  env,
});
let tail = '';
/** Passes a stream on line by line, paths into the compiled copy shown as their .ts files. */
function relay(from, to, keep) {
  let partial = '';
  const emit = (text) => {
    const shown = build.unmap(text);
    to.write(shown);
    if (keep) tail += shown;
  };
  from.setEncoding('utf8');
  from.on('data', (chunk) => {
    const text = partial + chunk;
    const end = text.lastIndexOf('\n') + 1;
    partial = text.slice(end);
    if (end > 0) emit(text.slice(0, end));
  });
  from.on('end', () => partial && emit(partial));
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    child.kill(signal);
    build.remove();
    removeScratch();
    process.exit(130);
  });
}
relay(child.stdout, process.stdout, true);
relay(child.stderr, process.stderr, false);
child.on('close', (code) => {
  build.remove();
  removeScratch();
  const m = [...tail.replace(/\x1b\[[0-9;]*m/g, '').matchAll(/^ℹ tests (\d+)$/gm)].pop();
  const count = m ? Number(m[1]) : 0;
  if (count === 0) {
    console.error('run-tests: zero tests ran');
    process.exit(1);
  }
  console.log(`run-tests: ${count} tests in ${files.length} files, ${CONCURRENCY} files at a time`);
  process.exit(code ?? 1);
});
