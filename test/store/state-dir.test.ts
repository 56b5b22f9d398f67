import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { defaultStateDir, ensureStateDir, StoreError } from '../../src/store/index.js';
import { tempDir } from './helpers.js';

test('the default state directory: $CAIRN_STATE_DIR, else $XDG_STATE_HOME/cairn, else ~/.local/state/cairn', () => {
  const env = { CAIRN_STATE_DIR: '/srv/cairn', XDG_STATE_HOME: '/x/state', HOME: '/home/ann' };
  assert.equal(defaultStateDir(env), '/srv/cairn');
  assert.equal(defaultStateDir({ ...env, CAIRN_STATE_DIR: 'rel/dir' }), resolve('rel/dir'));
  assert.equal(defaultStateDir({ ...env, CAIRN_STATE_DIR: '' }), '/x/state/cairn');
  assert.equal(defaultStateDir({ XDG_STATE_HOME: '/x/state', HOME: '/home/ann' }), '/x/state/cairn');
  assert.equal(defaultStateDir({ XDG_STATE_HOME: 'relative', HOME: '/home/ann' }), '/home/ann/.local/state/cairn');
  assert.equal(defaultStateDir({ XDG_STATE_HOME: '', HOME: '/home/ann' }), '/home/ann/.local/state/cairn');
  assert.equal(defaultStateDir({ HOME: '/root' }), '/root/.local/state/cairn', 'root too');
  assert.equal(defaultStateDir({}), join(homedir(), '.local', 'state', 'cairn'));
});

test('ensureStateDir creates the directory and its parents, private to the owner', (t) => {
  const base = tempDir(t);
  const dir = join(base, 'a', 'b', 'cairn');
  assert.equal(ensureStateDir(dir), dir);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.equal(ensureStateDir(dir), dir, 'an existing directory is fine');
  assert.equal(ensureStateDir(join(base, 'a', '.', 'b', 'cairn')), dir, 'the path comes back absolute and clean');

  const chosen = join(base, 'chosen');
  mkdirSync(chosen, { mode: 0o755 });
  chmodSync(chosen, 0o755);
  ensureStateDir(chosen);
  assert.equal(statSync(chosen).mode & 0o777, 0o755, 'an existing directory keeps its mode');
});

test('ensureStateDir fails clearly when a file is in the way', (t) => {
  const base = tempDir(t);
  writeFileSync(join(base, 'file'), '');
  for (const dir of [join(base, 'file'), join(base, 'file', 'below')]) {
    assert.throws(
      () => ensureStateDir(dir),
      (e: unknown) => {
        assert.ok(StoreError.is(e));
        assert.equal(e.code, 'state-dir');
        assert.match(e.message, /state directory .*file.* (is not a directory|a file is in the way); use --state-dir/);
        return true;
      },
    );
  }
});

test('ensureStateDir reports a directory it may not create', (t) => {
  if (process.getuid?.() === 0) {
    t.skip('root may create anything');
    return;
  }
  const base = tempDir(t);
  const locked = join(base, 'locked');
  mkdirSync(locked, { mode: 0o500 });
  t.after(() => chmodSync(locked, 0o700));
  assert.throws(() => ensureStateDir(join(locked, 'cairn')), /cannot create state directory .*: permission denied; use --state-dir/);
});
