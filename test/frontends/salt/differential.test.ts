/**
 * Differential corpus: every case under test/fixtures/salt/diff/<case>/ runs through cairn and is compared with
 * the output recorded from real salt-call 3006.0 (expected.json or expected.txt, expected.exit). When SALT_CALL
 * points at a real salt-call wrapper, each case also runs through Salt live and cairn is compared with that.
 * Case preparation and normalization are shared with scripts/salt-record.mjs (the recorder).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { CAIRN, ROOT } from '../../cli/cli-helpers.js';

interface CaseRun {
  code: number | null;
  json?: unknown;
  text?: string;
  stderr: string;
}
interface RecorderLib {
  runCase(caseDir: string, command: string[]): CaseRun;
}

const CORPUS = join(ROOT, 'test/fixtures/salt/diff');
const lib = (await import(pathToFileURL(join(ROOT, 'scripts/salt-record.mjs')).href)) as RecorderLib;
const SALT_CALL = process.env.SALT_CALL;
if (!SALT_CALL) process.stderr.write('salt differential: SALT_CALL is not set; comparing with the recorded outputs only (no live Salt)\n');

const stateDir = mkdtempSync(join(tmpdir(), 'cairn-salt-diff-store-'));
process.on('exit', () => rmSync(stateDir, { recursive: true, force: true }));

function runCairn(dir: string): CaseRun {
  return lib.runCase(dir, [process.execPath, CAIRN, 'salt', '--state-dir', stateDir]);
}

function expectedOf(dir: string): { code: number; json?: unknown; text?: string } {
  const code = Number(readFileSync(join(dir, 'expected.exit'), 'utf8').trim());
  if (existsSync(join(dir, 'expected.json'))) return { code, json: JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) };
  return { code, text: readFileSync(join(dir, 'expected.txt'), 'utf8') };
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

const cases = existsSync(CORPUS) ? readdirSync(CORPUS).sort() : [];
test('the differential corpus is not empty', () => assert.ok(cases.length > 0));

for (const name of cases) {
  const dir = join(CORPUS, name);
  const note = existsSync(join(dir, 'note')) ? ` (${readFileSync(join(dir, 'note'), 'utf8').trim()})` : '';
  test(`salt diff ${name}${note}`, () => {
    const got = runCairn(dir);
    compare(got, expectedOf(dir), 'recorded salt-call 3006.0');
    if (SALT_CALL) compare(got, lib.runCase(dir, [SALT_CALL]), 'live salt-call');
  });
}
