// The absolute-path param: normalised as posix.normalize does (trailing slash dropped), and an already
// normal path kept as it is without normalising it.
import assert from 'node:assert/strict';
import { posix } from 'node:path';
import { test } from 'node:test';
import * as v from 'valibot';
import { absolutePathSchema } from '../../src/resources/paths.js';

const normalised = (p: string) => (p.length > 1 ? posix.normalize(p).replace(/\/$/, '') : p);

test('every absolute path of up to four parts comes out as posix.normalize makes it', () => {
  const parts = ['', '/', '//', '.', '..', 'a', '.a', 'a.', '..b', 'b..', '...'];
  let checked = 0;
  const walk = (prefix: string, depth: number): void => {
    if (depth === 0) return;
    for (const part of parts) {
      const p = prefix + part;
      assert.equal(v.parse(absolutePathSchema, p), normalised(p), JSON.stringify(p));
      checked++;
      walk(p, depth - 1);
    }
  };
  walk('/', 4);
  assert.ok(checked > 10_000);
  assert.equal(v.parse(absolutePathSchema, '/etc/motd'), '/etc/motd');
  assert.equal(v.parse(absolutePathSchema, '/etc//x/../motd/'), '/etc/motd');
  assert.throws(() => v.parse(absolutePathSchema, 'etc/motd'), /expected an absolute path/);
});
