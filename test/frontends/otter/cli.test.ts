// Golden fixtures (test/harness/golden.ts): test/fixtures/otter/<case>/script.otter run by the built CLI. expected.json holds the
// arguments, files before and after, the exit code and the whole `--out json` document (paths under the
// run's root read as {root}, under the fixture as {fixture}); expected.stderr holds a diagnostic instead
// (exit 1, nothing changed).
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { assertNoStack, cairn, ROOT, tempDir } from '../../cli/cli-helpers.js';
import { goldenSuite } from '../../harness/golden.js';

const FIXTURES = join(ROOT, 'test/fixtures/otter');

interface Expected {
  args?: string[];
  before?: Record<string, string>;
  /** Text of a file; true: the path exists (a directory); null: it does not exist. */
  after?: Record<string, string | boolean | null>;
  exit: number;
  output: { status: string; log: string[]; drift: unknown[] };
}

// Each case's files are copied into one work dir (emptied before each case) and run there: runs in one
// working directory share one reading of this machine's facts (test/cli/cli-helpers.ts), where running in
// each case's own folder would read them again for every case.
const WORK = realpathSync(tempDir('cairn-otter-work-'));

function enter(dir: string): string {
  for (const entry of readdirSync(WORK)) rmSync(join(WORK, entry), { recursive: true, force: true });
  for (const entry of readdirSync(dir)) if (!entry.startsWith('expected.')) cpSync(join(dir, entry), join(WORK, entry), { recursive: true });
  return WORK;
}

function placeholders(text: string, root: string, fixture: string): string {
  return text.split(root).join('{root}').split(fixture).join('{fixture}');
}

goldenSuite({
  title: 'fixture',
  root: FIXTURES,
  expected: (name) => name === 'expected.json' || name === 'expected.stderr',
  run: ({ dir: fixture }, expect) => {
    const dir = enter(fixture);
    const root = realpathSync(tempDir('cairn-otter-'));
    const state = tempDir('cairn-otter-state-');
    if (expect.has('expected.stderr')) {
      const r = cairn(['otter', 'run', 'script.otter', '--root', root, '--state-dir', state], { cwd: dir });
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      expect.text('expected.stderr', r.stderr, 'the diagnostic');
      assertNoStack(r.stderr);
      assert.deepEqual(readdirSync(root), [], 'nothing was changed');
      return;
    }
    const expected = expect.jsonOf('expected.json') as Expected;
    for (const [file, text] of Object.entries(expected.before ?? {})) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
    const r = cairn(['otter', 'run', 'script.otter', '--root', root, '--state-dir', state, '--out', 'json', ...(expected.args ?? [])], { cwd: dir });
    assertNoStack(r.stderr);
    const out: unknown = JSON.parse(placeholders(r.stdout, root, realpathSync(dir)));
    // args, before and after are the case's own; exit and output are what cairn gave (CAIRN_ACCEPT=1 takes them).
    expect.json('expected.json', { ...expected, exit: r.code, output: out }, 'exit code and --out json');
    for (const [file, text] of Object.entries(expected.after ?? {})) {
      const path = join(root, file);
      if (text === null) assert.equal(existsSync(path), false, `${file} must not exist`);
      else if (text === true) assert.equal(existsSync(path), true, `${file} must exist`);
      else assert.equal(readFileSync(path, 'utf8'), text, file);
    }
  },
});

test('drift through the CLI: collect finds it, collect-execute fixes exactly it, a second collect finds none', () => {
  const root = tempDir('cairn-otter-');
  const state = tempDir('cairn-otter-state-');
  const script = join(root, 'plan.otter');
  writeFileSync(script, 'Ensure-File site/index.html (Text: hello);\nEnsure-File site/about.html (Text: about);\nEnsure-Directory site/img;\n');
  mkdirSync(join(root, 'site/img'), { recursive: true });
  writeFileSync(join(root, 'site/index.html'), 'edited by hand');
  writeFileSync(join(root, 'site/about.html'), 'about');
  const untouched = statSync(join(root, 'site/about.html')).mtimeMs;
  const args = (mode: string): string[] => ['otter', 'run', script, '--root', root, '--state-dir', state, '--mode', mode, '--detailed-exitcode', '--out', 'json'];

  const collect = cairn(args('collect'));
  assert.equal(collect.code, 2, collect.stderr);
  const textDrift = {
    operation: 'Ensure-File',
    key: 'site/index.html',
    properties: ['Text'],
    details: [{ property: 'Text', diff: '--- site/index.html (found)\n+++ site/index.html (wanted)\n@@ -1 +1 @@\n-edited by hand\n\\ No newline at end of file\n+hello\n\\ No newline at end of file\n' }],
  };
  assert.deepEqual(JSON.parse(collect.stdout).drift, [textDrift]);
  assert.equal(readFileSync(join(root, 'site/index.html'), 'utf8'), 'edited by hand');

  const fix = cairn(args('collect-execute'));
  assert.equal(fix.code, 2, fix.stderr);
  const fixed = JSON.parse(fix.stdout) as { status: string; log: string[]; drift: unknown[] };
  assert.equal(fixed.status, 'Normal');
  assert.deepEqual(fixed.drift, [textDrift]);
  // Exactly the drifted operation is configured in the execution pass.
  assert.deepEqual(
    fixed.log.filter((l) => l.startsWith('INFO: ')),
    ['INFO: File site/index.html configured.'],
  );
  assert.equal(readFileSync(join(root, 'site/index.html'), 'utf8'), 'hello');
  assert.equal(statSync(join(root, 'site/about.html')).mtimeMs, untouched);

  const again = cairn(args('collect'));
  assert.equal(again.code, 0, again.stdout);
  assert.deepEqual(JSON.parse(again.stdout), {
    summary: { operations: 3, changed: 0, unchanged: 3, drifted: 0, failed: 0, warnings: 0, errors: 0 },
    status: 'Normal',
    log: [
      'DEBUG: Looking for site/index.html...',
      'DEBUG: File exists, loading from disk...',
      'DEBUG: File configuration loaded.',
      'DEBUG: Looking for site/about.html...',
      'DEBUG: File exists, loading from disk...',
      'DEBUG: File configuration loaded.',
      'DEBUG: Looking for site/img...',
      'DEBUG: Directory exists, loading from disk...',
      'DEBUG: Directory configuration loaded.',
    ],
    drift: [],
  });
  const history = cairn(['history', '--state-dir', state, '--out', 'json']);
  assert.equal(history.code, 0);
  assert.match(history.stdout, /otter/);
});

test('text output: messages indented under block descriptions, then the final status, then the drift report', () => {
  const root = tempDir('cairn-otter-');
  const script = join(root, 'plan.otter');
  writeFileSync(script, '# Web files\n{\n    Log-Information checking;\n    Ensure-File a.txt (Text: a);\n}\n');
  const r = cairn(['otter', 'run', script, '--root', root, '--state-dir', tempDir(), '--mode', 'collect']);
  assert.equal(r.code, 0);
  assert.equal(
    r.stdout,
    'Web files\n  INFO: checking\n\nStatus: Normal (run 1)\nSummary: 1 operation run: 0 changed, 0 unchanged, 1 drifted, 0 failed; 0 warnings, 0 errors\n\nDrift (nothing changed):\n  Ensure-File a.txt: Exists\n    Exists: wanted true, found false\n',
  );
});

test('a failing operation exits 1 and the text log shows the error under its scope', () => {
  const root = tempDir('cairn-otter-');
  const script = join(root, 'fail.otter');
  writeFileSync(script, '# Step one\n{\n    Exec "exit 4";\n}\nLog-Information never;\n');
  const r = cairn(['otter', 'run', script, '--root', root, '--state-dir', tempDir(), '--log-level', 'debug']);
  assert.equal(r.code, 1);
  assert.equal(
    r.stdout,
    `Step one\n  DEBUG: Process: exit\n  DEBUG: Arguments: 4\n  DEBUG: Working directory: ${root}\n  DEBUG: Ensuring that ${root} exists...\n  INFO: Executing exit...\n  ERROR: Process exited with code: 4 (failure)\n\nStatus: Error (run 1)\nSummary: 1 operation run: 0 changed, 0 unchanged, 0 drifted, 1 failed; 0 warnings, 1 error\n`,
  );
});

test('bad command-line input: a missing script and a malformed --var', () => {
  const missing = cairn(['otter', 'run', '/nonexistent/x.otter', '--state-dir', tempDir()]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, 'cairn: cannot read script /nonexistent/x.otter: no such file\n');
  const badVar = cairn(['otter', 'run', 'x.otter', '--var', 'novalue']);
  assert.equal(badVar.code, 1);
  assertNoStack(badVar.stderr);
});
