import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { GraphNode } from '../../src/core/model.js';
import { LocalHost } from '../../src/host/local.js';
import type { ResourceContext } from '../../src/host/types.js';
import { kind } from '../../src/resources/file/index.js';

const local: ResourceContext = { host: new LocalHost(), baseDir: '/' };
const node = (params: Record<string, unknown>): GraphNode => ({ id: 'f', type: 'file', name: 'f', params });
let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-file-new-mode-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('new_mode sets the mode of a created file only; an existing file keeps its mode', async () => {
  const path = join(dir, 'a');
  const p = { path, content: 'x\n', new_mode: '0600' };
  const c = await kind.check(local, p, node(p));
  assert.equal(c.outputs?.mode, '0600');
  await kind.apply(local, p, c, node(p));
  assert.equal(statSync(path).mode & 0o777, 0o600);
  chmodSync(path, 0o640);
  const p2 = { ...p, content: 'y\n' };
  const c2 = await kind.check(local, p2, node(p2));
  assert.equal(c2.inSync, false);
  await kind.apply(local, p2, c2, node(p2));
  assert.equal(statSync(path).mode & 0o777, 0o640);
});

test('a content change exposes the replaced content as previous_content', async () => {
  const path = join(dir, 'b');
  writeFileSync(path, 'old\n');
  const p = { path, content: 'new\n' };
  const c = await kind.check(local, p, node(p));
  assert.equal(c.outputs?.previous_content, 'old\n');
  const same = { path, content: 'old\n' };
  assert.equal((await kind.check(local, same, node(same))).outputs?.previous_content, undefined);
});
