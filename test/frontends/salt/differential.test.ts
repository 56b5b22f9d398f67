/**
 * Differential corpus: every case under test/fixtures/salt/diff/<case>/ runs through cairn and is compared with
 * the output recorded from real salt-call 3006.0 (expected.json or expected.txt, expected.exit). When SALT_CALL
 * points at a real salt-call wrapper, each case also runs through Salt live and cairn is compared with that.
 * Case preparation and normalization are shared with scripts/salt-record.mjs (the recorder), which is also
 * the only way to rewrite the expected files (they come from Salt, so CAIRN_ACCEPT leaves them alone).
 * cairn runs in-process (test/harness/in-process.ts) through the one golden harness (test/harness/golden.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cairn, ROOT } from '../../cli/cli-helpers.js';
import { type Expect, goldenSuite } from '../../harness/golden.js';

interface CaseRun {
  code: number | null;
  json?: unknown;
  text?: string;
  stderr: string;
}
interface RecorderLib {
  runCase(caseDir: string, command: string[]): CaseRun;
  prepare(caseDir: string): { root: string; words: string[]; text: boolean };
  normalizeJson(stdout: string, root: string): { json?: unknown; text?: string };
  normalizeText(stdout: string, root: string): string;
}

const CORPUS = join(ROOT, 'test/fixtures/salt/diff');
const lib = (await import(pathToFileURL(join(ROOT, 'scripts/salt-record.mjs')).href)) as RecorderLib;
const SALT_CALL = process.env.SALT_CALL;
if (!SALT_CALL) process.stderr.write('salt differential: SALT_CALL is not set; comparing with the recorded outputs only (no live Salt)\n');

const stateDir = mkdtempSync(join(tmpdir(), 'cairn-salt-diff-store-'));
process.on('exit', () => rmSync(stateDir, { recursive: true, force: true }));

/**
 * A case whose setup.sh makes an archive with tar has its copy made in the system's temporary folder even
 * when the test run keeps its temporary files elsewhere (scripts/run-tests.mjs, CAIRN_TEST_DISK_TMPDIR):
 * tar lists a folder's files in the order its file system gives them, and the corpus was recorded on a
 * disk. The other cases stay in the run's temporary folder (a RAM file system), where making and
 * removing a copy costs far less.
 */
function prepare(dir: string): ReturnType<RecorderLib['prepare']> {
  const setup = join(dir, 'setup.sh');
  const disk = existsSync(setup) && /\btar\b/.test(readFileSync(setup, 'utf8')) ? process.env.CAIRN_TEST_DISK_TMPDIR : undefined;
  const saved = process.env.TMPDIR;
  if (disk) process.env.TMPDIR = disk;
  try {
    return lib.prepare(dir);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

/** The case as runCase prepares it (a fresh copy, setup.sh run), with cairn run in-process instead of spawned. */
function runCairn(dir: string): CaseRun {
  const { root, words, text } = prepare(dir);
  try {
    const r = cairn(['salt', '--state-dir', stateDir, ...words], { cwd: root });
    const norm = text ? { text: lib.normalizeText(r.stdout, root) } : lib.normalizeJson(r.stdout, root);
    return { code: r.code, ...norm, stderr: r.stderr };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function expectedOf(expect: Expect): { code: number; json?: unknown; text?: string } {
  const code = Number((expect.textOf('expected.exit') ?? '').trim());
  if (expect.has('expected.json')) return { code, json: expect.jsonOf('expected.json') };
  return { code, text: expect.textOf('expected.txt') ?? '' };
}

function compare(got: CaseRun, want: { code: number | null; json?: unknown; text?: string }, what: string): void {
  const stderr = got.stderr.trim() ? `\n--- cairn stderr ---\n${got.stderr}` : '';
  if (want.json !== undefined) {
    assert.ok(got.json !== undefined, `${what}: cairn printed no JSON:\n${got.text ?? ''}${stderr}`);
    assert.deepEqual(got.json, want.json, `${what}: output differs${stderr}`);
  } else {
    assert.equal(got.text, want.text, `${what}: output differs${stderr}`);
  }
  assert.equal(got.code, want.code, `${what}: exit code differs${stderr}`);
  assert.doesNotMatch(got.stderr, /\n\s+at .+:\d+:\d+\)?/, `${what}: a stack trace reached the user`);
}

goldenSuite({
  title: 'salt diff',
  root: CORPUS,
  recorded: true,
  describe: ({ dir }) => (existsSync(join(dir, 'note')) ? `(${readFileSync(join(dir, 'note'), 'utf8').trim()})` : ''),
  expected: (name) => /^expected\.(json|txt|exit)$/.test(name),
  run: ({ dir }, expect) => {
    const got = runCairn(dir);
    compare(got, expectedOf(expect), 'recorded salt-call 3006.0');
    if (SALT_CALL) compare(got, lib.runCase(dir, [SALT_CALL]), 'live salt-call');
  },
});
