// docs/otter.md names every registered operation (with its kind) and every function.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { functionNames, operations } from '../../../src/frontends/otter/index.js';
import { ROOT } from '../../cli/cli-helpers.js';

const doc = readFileSync(join(ROOT, 'docs/otter.md'), 'utf8');

test('docs/otter.md lists every operation with its kind, and every function', () => {
  for (const op of operations) {
    const row = doc.split('\n').find((l) => l.startsWith(`| \`${op.namespace}::${op.name}\``));
    assert.ok(row, `${op.name} is missing from the operations table`);
    assert.match(row, new RegExp(`\\| ${op.type} \\|`), `${op.name} is listed with the wrong kind`);
    for (const a of op.args) assert.ok(row.includes(a.name), `${op.name}: argument ${a.name} is not listed`);
  }
  const listed = doc.split('## Functions')[1]?.split('##')[0] ?? '';
  for (const name of functionNames()) assert.match(listed, new RegExp(`\\b${name}\\b`), `function ${name} is not listed`);
});
