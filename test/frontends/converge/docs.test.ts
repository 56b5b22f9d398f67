/** docs/converge.md lists the resource types and fields the front end accepts: the table is the registry's. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIELDS, UNSUPPORTED } from '../../../src/frontends/converge/fields.js';
import { ROOT } from '../../cli/cli-helpers.js';

/** The two tables of docs/converge.md, as they are generated from the registry. */
export function fieldTables(): string {
  const rows = Object.entries(FIELDS).map(([type, fields]) => `| \`${type}\` | ${fields.map((f) => `\`${f}\``).join(', ')} |`);
  const refused = Object.entries(UNSUPPORTED).map(([type, why]) => `| \`${type}\` | ${why} |`);
  return ['| type | fields (each also takes `depends` and `group`) |', '| --- | --- |', ...rows, '', '| type | why it is refused |', '| --- | --- |', ...refused].join('\n');
}

test('docs/converge.md holds the resource tables generated from the registry', () => {
  const doc = readFileSync(join(ROOT, 'docs/converge.md'), 'utf8');
  const m = /<!-- resource tables: generated -->\n([\s\S]*?)\n<!-- end of resource tables -->/.exec(doc);
  assert.ok(m, 'docs/converge.md has the resource table markers');
  assert.equal(m[1], fieldTables(), 'regenerate the tables from src/frontends/converge/fields.ts');
});
