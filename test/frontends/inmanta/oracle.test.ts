// Re-records every golden fixture with the real Inmanta compiler and compares it with expected.json.
// Needs INMANTA_ORACLE_PYTHON (a python that imports inmanta-core 15) and INMANTA_ORACLE_MODULES (a folder
// with the real std and exec modules, and an fs module); without them it skips, saying so once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/inmanta');
const RECORD = resolve(import.meta.dirname, 'oracle/record.py');
const python = process.env.INMANTA_ORACLE_PYTHON;
const modules = process.env.INMANTA_ORACLE_MODULES;

if (!python || !modules) {
  console.log('# SKIPPED the real Inmanta compiler comparison: set INMANTA_ORACLE_PYTHON and INMANTA_ORACLE_MODULES to run it');
} else {
  const cases = readdirSync(FIXTURES).filter((d) => existsSync(join(FIXTURES, d, 'expected.json')));
  for (const name of cases) {
    test(`the real compiler agrees with fixture ${name}`, () => {
      const r = spawnSync(python, [RECORD, join(FIXTURES, name), modules], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), JSON.parse(readFileSync(join(FIXTURES, name, 'expected.json'), 'utf8')));
    });
  }
}
