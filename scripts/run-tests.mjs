// Runs every test/**/*.test.ts explicitly (Node 20's runner does not find .ts files in a folder by
// itself) and fails when no test ran. Extra arguments narrow the run to files whose path contains them.
//
// Test files run as separate processes, CONCURRENCY at a time. Most tests run the CLI in-process (one
// worker thread per file, the file's main thread waiting on it), so a file keeps about one core busy;
// one more file than there are cores fills the time files spend waiting on the programs they start
// (sh, python3, a real sshd or PostgreSQL) without making the busy ones queue for a core. Node's own
// default (cores - 1) would run one file at a time on a 2-core machine. CAIRN_TEST_CONCURRENCY overrides it.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'fixtures' || name === 'node_modules') continue;
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}
const filters = process.argv.slice(2);
const files = walk(join(root, 'test'), [])
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
const CONCURRENCY = Number(process.env.CAIRN_TEST_CONCURRENCY) || availableParallelism() + 1;
const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${CONCURRENCY}`, '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail += chunk.toString();
});
child.on('close', (code) => {
  const m = [...tail.replace(/\x1b\[[0-9;]*m/g, '').matchAll(/^ℹ tests (\d+)$/gm)].pop();
  const count = m ? Number(m[1]) : 0;
  if (count === 0) {
    console.error('run-tests: zero tests ran');
    process.exit(1);
  }
  console.log(`run-tests: ${count} tests in ${files.length} files, ${CONCURRENCY} files at a time`);
  process.exit(code ?? 1);
});
