/** Arguments Salt refuses: the state fails with Salt's comment, and cairn points at the argument's line. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertNoStack, cairn, tempDir } from '../../cli/cli-helpers.js';

test('a refused argument names the SLS id and argument, at its line; the other states run; nothing is written as [object Object]', () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'srv'));
  const sls = [
    'bad_env:',
    '  cmd.run:',
    '    - name: echo hi',
    '    - env: X=1',
    'mapping:',
    '  file.managed:',
    `    - name: ${join(dir, 'out.txt')}`,
    '    - contents:',
    '        key: value',
    'ctx:',
    '  file.managed:',
    `    - name: ${join(dir, 'ctx.txt')}`,
    '    - contents: x',
    '    - template: jinja',
    '    - context: [1, 2]',
  ].join('\n');
  writeFileSync(join(dir, 'srv', 'main.sls'), `${sls}\n`);
  const r = cairn(['salt', 'state.sls', 'main', '--file-root', join(dir, 'srv'), '--out', 'json', '--state-dir', join(dir, '.st')]);
  assert.equal(r.code, 1);
  assertNoStack(r.stderr);
  const file = join(dir, 'srv', 'main.sls');
  assert.match(r.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:7: S203 cmd.run 'bad_env' in SLS 'main': argument env: Invalidly-formatted 'env' parameter\\. See documentation\\.`));
  assert.match(r.stderr, /main\.sls:15:7: S203 file\.managed 'ctx' in SLS 'main': argument context: Context must be formed as a dict/);
  const local = JSON.parse(r.stdout).local as Record<string, { result: boolean; comment: string }>;
  assert.equal(local['cmd_|-bad_env_|-echo hi_|-run']?.comment, "Invalidly-formatted 'env' parameter. See documentation.");
  assert.equal(local[`file_|-mapping_|-${join(dir, 'out.txt')}_|-managed`]?.result, true);
  assert.equal(readFileSync(join(dir, 'out.txt'), 'utf8'), "OrderedDict([('key', 'value')])\n");
  assert.equal(existsSync(join(dir, 'ctx.txt')), false);
});
