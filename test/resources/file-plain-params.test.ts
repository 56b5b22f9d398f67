// The file kind reads the commonest params without the schema (plainFileParams): whatever it accepts, it
// must give exactly what the schema gives; everything else it must leave to the schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as v from 'valibot';
import { deferred } from '../../src/core/model.js';
import { kind } from '../../src/resources/file/index.js';
import { fileSchema, plainFileParams } from '../../src/resources/file/schema.js';

const PATHS = ['/etc/motd', '/a/b.txt', 'relative', '', '/a//b', '/a/./b', '/a/../b', '/a/', '/', '/.', '//x', '/a/b/..', '/ä/ö', 3, null];
const CONTENTS = [undefined, '', 'x\n', 'héllo\uFFFD', 7, null, ['a'], deferred([{ node: 'n', field: 'f' }], (x) => String(x[0]), '${n.f}')];
const MODES = [undefined, '0644', '644', '2755', '07777', '0888', '64', '00644', 'rw', 420, 0o7777, 4096, -1, 1.5, '0644 '];
const EXTRA: Record<string, unknown>[] = [
  {},
  { source: 'x' },
  { makedirs: true },
  { create: false, replace: false },
  { replace: true, makedirs: false },
  { makedirs: 'yes' },
  { create: undefined },
  { content: undefined },
  { owner: 'root' },
  { bogus: 1 },
  { new_mode: '0600' },
  { new_mode: 0o700, makedirs: true },
  { new_mode: '0999' },
  { new_mode: null },
];

test('plain file params: accepted exactly where the schema would give the same output, never otherwise', () => {
  let accepted = 0;
  let total = 0;
  for (const path of PATHS) {
    for (const content of CONTENTS) {
      for (const mode of MODES) {
        for (const extra of EXTRA) {
          const params: Record<string, unknown> = { path, ...(content !== undefined ? { content } : {}), ...(mode !== undefined ? { mode } : {}), ...extra };
          total++;
          const plain = plainFileParams(params);
          if (plain === undefined) continue;
          accepted++;
          const schema = v.safeParse(fileSchema, params);
          assert.ok(schema.success, `accepted what the schema refuses: ${JSON.stringify(params)}`);
          assert.deepStrictEqual(plain, schema.output, JSON.stringify(params));
          assert.deepEqual(Object.keys(plain), Object.keys(schema.output), JSON.stringify(params));
        }
      }
    }
  }
  // The common shapes are read without the schema.
  assert.ok(accepted > 50, `${accepted} of ${total} accepted`);
  assert.deepEqual(plainFileParams({ path: '/etc/motd', content: 'hi\n', mode: '0644' }), { path: '/etc/motd', content: 'hi\n', mode: '0644', makedirs: false, create: true, replace: true });
  assert.deepEqual(plainFileParams({ path: '/etc/motd', content: '', new_mode: '0600' }), { path: '/etc/motd', content: '', new_mode: '0600', makedirs: false, create: true, replace: true });
  assert.deepEqual(plainFileParams({ path: '/etc/motd', makedirs: true, content: 'hi\n', mode: 420 }), { path: '/etc/motd', content: 'hi\n', mode: 420, makedirs: true, create: true, replace: true });
});

test('validation reports the same problems with or without the plain reader', () => {
  const node = { id: 'f', type: 'file', name: 'f', params: {} };
  assert.deepEqual(kind.validate({ path: '/etc/motd', content: 'x' }, node), []);
  assert.match(kind.validate({ path: 'rel', content: 'x' }, node)[0]?.message ?? '', /expected an absolute path/);
  assert.match(kind.validate({ path: '/x', mode: '0888' }, node)[0]?.message ?? '', /octal mode/);
});
