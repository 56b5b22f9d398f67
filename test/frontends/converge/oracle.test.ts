/**
 * Differential test against the real converge binary (asteris-llc/converge built from its vendored source,
 * kept outside this repository). Set CONVERGE_BIN to its path; without it the test skips. Converge prints
 * node blocks in a random order, so the blocks are compared as a sorted list.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn } from '../../cli/cli-helpers.js';

const BIN = process.env.CONVERGE_BIN ?? '';
const skip = BIN !== '' && existsSync(BIN) ? false : 'no converge oracle: set CONVERGE_BIN to a converge binary to run this test';

function blocks(text: string): string[] {
  const [body = '', ...rest] = text.split(/\n(?=Summary: )/);
  return [...body.split('\n\n').map((b) => b.replace(/^\n+|\n+$/g, '')).filter((b) => b.trim() !== '').sort(), ...rest];
}

test('plan and apply print what converge prints', { skip }, () => {
  const dir = mkdtempSync('/tmp/cairn-oracle-');
  try {
    const hcl = `param "who" {\n  default = "world"\n}\n\ntask "render" {\n  check = "echo checking; echo oops >&2; test -f ${dir}/done"\n  apply = "echo applying; touch ${dir}/done"\n  dir = "${dir}"\n}\n\nfile.content "greeting" {\n  destination = "${dir}/greeting.txt"\n  content = "hello {{param \`who\`}} in {{lookup \`task.render.dir\`}}"\n}\n\nfile.content "multi" {\n  destination = "${dir}/multi.txt"\n  content = "a\\nb"\n  depends = ["file.content.greeting"]\n}\n`;
    for (const name of ['a', 'b']) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'main.hcl'), hcl.replaceAll(dir, join(dir, name)));
    }
    for (const command of ['plan', 'apply', 'plan']) {
      const ours = cairn(['converge', command, join(dir, 'a/main.hcl'), '-p', 'who=you', '--state-dir', join(dir, 'state')]);
      const theirs = spawnSync(BIN, [command, '--local', '--nocolor', '-p', 'who=you', join(dir, 'b/main.hcl')], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(theirs.status, ours.code, `${command}: exit codes\n${theirs.stderr.slice(-600)}`);
      assert.deepEqual(blocks(ours.stdout.replaceAll(join(dir, 'a'), 'D')), blocks(theirs.stdout.replaceAll(join(dir, 'b'), 'D')), command);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('healthcheck prints each node as converge prints it (the summary counts aside)', { skip }, () => {
  const dir = mkdtempSync('/tmp/cairn-oracle-');
  try {
    const hcl = `file.content "missing" {\n  destination = "${dir}/new.txt"\n  content = "new"\n}\n\nfile.content "drift" {\n  destination = "${dir}/drift.txt"\n  content = "fresh"\n}\n\nfile.mode "m" {\n  destination = "${dir}/drift.txt"\n  mode = 0600\n}\n\nfile.mode "same" {\n  destination = "${dir}/ok.txt"\n  mode = 0644\n}\n\nfile.directory "deep" {\n  destination = "${dir}/nop/x"\n}\n\ntask "t" {\n  check = "exit 1"\n  apply = "true"\n}\n\ntask.query "q" {\n  query = "echo hi"\n}\n\nhealthcheck.task "h" {\n  check = "exit 3"\n}\n`;
    for (const name of ['a', 'b']) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'drift.txt'), 'old', { mode: 0o644 });
      writeFileSync(join(dir, name, 'ok.txt'), '', { mode: 0o644 });
      writeFileSync(join(dir, name, 'main.hcl'), hcl.replaceAll(dir, join(dir, name)));
    }
    const ours = cairn(['converge', 'healthcheck', join(dir, 'a/main.hcl'), '--state-dir', join(dir, 'state')]);
    const theirs = spawnSync(BIN, ['healthcheck', '--local', '--nocolor', join(dir, 'b/main.hcl')], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(theirs.status, ours.code, theirs.stderr.slice(-600));
    const nodeBlocks = (text: string) => blocks(text).filter((b) => !b.startsWith('Summary: '));
    assert.deepEqual(nodeBlocks(ours.stdout.replaceAll(join(dir, 'a'), 'D')), nodeBlocks(theirs.stdout.replaceAll(join(dir, 'b'), 'D')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
