// Golden fixtures: test/fixtures/otter/<case>/script.otter run by the built CLI, with expected.json
// (args, files before/after, exit, status, log, drift) or expected.stderr (a diagnostic; nothing changes).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { assertNoStack, cairn, ROOT, tempDir } from '../../cli/cli-helpers.js';

const FIXTURES = join(ROOT, 'test/fixtures/otter');

interface Expected {
  args?: string[];
  before?: Record<string, string>;
  after?: Record<string, string | null>;
  exit: number;
  status: string;
  log: string[];
  drift: unknown[];
}

for (const name of readdirSync(FIXTURES).sort()) {
  const dir = join(FIXTURES, name);
  test(`fixture ${name}`, () => {
    const root = tempDir('cairn-otter-');
    const state = tempDir('cairn-otter-state-');
    const stderrFile = join(dir, 'expected.stderr');
    if (existsSync(stderrFile)) {
      const r = cairn(['otter', 'run', 'script.otter', '--root', root, '--state-dir', state], { cwd: dir });
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, readFileSync(stderrFile, 'utf8'));
      assertNoStack(r.stderr);
      assert.deepEqual(readdirSync(root), [], 'nothing was changed');
      return;
    }
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected;
    for (const [file, text] of Object.entries(expected.before ?? {})) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
    const r = cairn(['otter', 'run', 'script.otter', '--root', root, '--state-dir', state, '--out', 'json', ...(expected.args ?? [])], { cwd: dir });
    assertNoStack(r.stderr);
    const out = JSON.parse(r.stdout) as { status: string; log: string[]; drift: unknown[] };
    assert.deepEqual({ exit: r.code, status: out.status, log: out.log, drift: out.drift }, { exit: expected.exit, status: expected.status, log: expected.log, drift: expected.drift });
    for (const [file, text] of Object.entries(expected.after ?? {})) {
      const path = join(root, file);
      if (text === null) assert.equal(existsSync(path), false, `${file} must not exist`);
      else assert.equal(readFileSync(path, 'utf8'), text, file);
    }
  });
}

test('drift through the CLI: collect, then collect-execute fixes it, then a second execute changes nothing', () => {
  const root = tempDir('cairn-otter-');
  const state = tempDir('cairn-otter-state-');
  const script = join(root, 'plan.otter');
  writeFileSync(script, 'Ensure-File site/index.html (Text: hello);\n');
  const args = (mode: string): string[] => ['otter', 'run', script, '--root', root, '--state-dir', state, '--mode', mode, '--detailed-exitcode'];
  assert.equal(cairn(args('execute')).code, 2);
  writeFileSync(join(root, 'site/index.html'), 'edited by hand');
  const collect = cairn(args('collect'));
  assert.equal(collect.code, 2);
  assert.match(collect.stdout, /Drift \(nothing changed\):\n {2}Ensure-File site\/index\.html: Text\n/);
  assert.equal(readFileSync(join(root, 'site/index.html'), 'utf8'), 'edited by hand');
  const fix = cairn(args('collect-execute'));
  assert.equal(fix.code, 2);
  assert.match(fix.stdout, /Execution pass\n {2}INFO: File site\/index\.html configured\./);
  assert.equal(readFileSync(join(root, 'site/index.html'), 'utf8'), 'hello');
  const again = cairn(args('execute'));
  assert.equal(again.code, 0, again.stdout);
  assert.match(again.stdout, /Status: Normal \(run 4\)/);
  const history = cairn(['history', '--state-dir', state, '--out', 'json']);
  assert.equal(history.code, 0);
  assert.match(history.stdout, /otter/);
});

test('a failing operation exits 1 and the text log shows the error under its scope', () => {
  const root = tempDir('cairn-otter-');
  const script = join(root, 'fail.otter');
  writeFileSync(script, '# Step one\n{\n    Exec "exit 4";\n}\nLog-Information never;\n');
  const r = cairn(['otter', 'run', script, '--root', root, '--state-dir', tempDir()]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, 'Step one\n  INFO: Executing exit 4...\n  ERROR: Process exited with code 4.\n\nStatus: Error (run 1)\n');
});

test('bad command-line input: a missing script and a malformed --var', () => {
  const missing = cairn(['otter', 'run', '/nonexistent/x.otter', '--state-dir', tempDir()]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, 'cairn: cannot read script /nonexistent/x.otter: no such file\n');
  const badVar = cairn(['otter', 'run', 'x.otter', '--var', 'novalue']);
  assert.equal(badVar.code, 1);
  assertNoStack(badVar.stderr);
});
