// What converge checks and converts when it prepares nodes (each checked against the converge binary):
// a task's check script must pass `sh -n`, and templates see params as their %v text.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir } from '../../cli/cli-helpers.js';

function plan(dir: string, hcl: string, ...args: string[]) {
  const file = join(dir, 'main.hcl');
  writeFileSync(file, hcl);
  return cairn(['converge', 'plan', file, '--state-dir', join(dir, '.state'), ...args]);
}

test('a check script that is not valid shell stops the plan before anything runs', () => {
  const dir = tempDir('cairn-cv-prep-');
  const r = plan(dir, `task "t" {\n  check = "echo a(b"\n  apply = "touch ${dir}/ran"\n}\n`);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /main\.hcl:2:\d+: CV041 syntax error: Command Stderr:\n.*Syntax error: "\(" unexpected\n: exit status 2/);
});

test('check_flags need an interpreter; an interpreter without check_flags is not syntax-checked', () => {
  const dir = tempDir('cairn-cv-prep-');
  const flags = plan(dir, 'task "t" {\n  check = "true"\n  apply = "true"\n  check_flags = ["-n"]\n}\n');
  assert.equal(flags.code, 1);
  assert.match(flags.stderr, /custom syntax check_flags given without an interpreter/);
  const skipped = plan(dir, 'task "t" {\n  interpreter = "/bin/sh"\n  check = "exit 0 ("\n  apply = "true"\n}\n');
  assert.doesNotMatch(skipped.stderr, /syntax error/);
});

test('templates get a param as its text: printf %d on it is a bad verb, eq compares it with a string', () => {
  const dir = tempDir('cairn-cv-prep-');
  const out = join(dir, 'out.txt');
  const hcl = `param "n" { default = 3 }\nparam "l" { default = ["a", "b"] }\nfile.content "c" {\n  destination = "${out}"\n  content = "{{printf \\"%d\\" (param \`n\`)}}|{{if eq (param \`n\`) \\"3\\"}}text{{end}}|{{range paramList \`l\`}}<{{.}}>{{end}}"\n}\n`;
  const r = plan(dir, hcl);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes(`"<file-missing>" => "%!d(string=3)|text|<a><b>"`), r.stdout);
  const applied = cairn(['converge', 'apply', join(dir, 'main.hcl'), '--state-dir', join(dir, '.state')]);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(readFileSync(out, 'utf8'), '%!d(string=3)|text|<a><b>');
});
