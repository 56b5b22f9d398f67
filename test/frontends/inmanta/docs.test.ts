// docs/inmanta.md names every bundled std plugin and every bundled entity, so the page stays the registry's list.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { STD_PLUGIN_NAMES } from '../../../src/frontends/inmanta/plugins.js';
import { BUNDLED } from '../../../src/frontends/inmanta/std-model.js';

const DOC = readFileSync(resolve(import.meta.dirname, '../../../docs/inmanta.md'), 'utf8');

test('every std plugin is documented', () => {
  assert.ok(STD_PLUGIN_NAMES.length > 40);
  const missing = STD_PLUGIN_NAMES.filter((n) => !DOC.includes(`\`std::${n}\``));
  assert.deepEqual(missing, []);
});

test('every bundled entity is documented', () => {
  const missing: string[] = [];
  for (const [mod, src] of Object.entries(BUNDLED)) {
    for (const m of src.matchAll(/^entity (\w+)/gm)) {
      const name = m[1] as string;
      if (!DOC.includes(`\`${name}\``) && !DOC.includes(`\`${mod}::${name}\``)) missing.push(`${mod}::${name}`);
    }
  }
  assert.deepEqual(missing, []);
});
