// [file] marks (created-file-<component>, file-backup-<component>) are looked up from one listing of the
// state dir; what the run itself does to them between steps (a command, a [file] step writing one)
// must be seen by the steps after it, exactly as a look at each mark would see it.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MarkListing } from '../../../src/frontends/zapusk/marks.js';
import { caseEnv, type CaseEnv, FIXTURES, runZapusk } from './zapusk-helpers.js';

function program(env: CaseEnv, text: string): string {
  const dir = join(env.tmp, 'prog.zdb');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main.ini'), text);
  return dir;
}

const fileStep = (name: string, path: string, content: string): string => `######## ${name}\n[file]\npath=${path}\ncontent=${content}\n`;
const osStep = (name: string, command: string): string => `######## ${name}\n[os]\napply=${command}\n`;

test('a backup removed by a command between two [file] steps is made again by the later step', () => {
  const env = caseEnv(FIXTURES);
  try {
    const [t1, t2] = [join(env.tmp, 't1'), join(env.tmp, 't2')];
    writeFileSync(t2, 'original\n');
    const dir = program(env, fileStep('a', t1, 'one') + fileStep('c', t2, 'two'));
    const first = runZapusk([dir, 'apply', '--state_dir', env.state], env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(readFileSync(join(env.state, 'file-backup-c'), 'utf8'), 'original\n');
    program(env, fileStep('a', t1, 'one') + osStep('b', 'rm file-backup-c') + fileStep('c', t2, 'two'));
    const again = runZapusk([dir, 'apply', '--state_dir', env.state], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`making backup of \\[${t2}\\] to \\[${env.state}/file-backup-c\\]`));
    assert.equal(readFileSync(join(env.state, 'file-backup-c'), 'utf8'), 'two');
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('a flag written by a command between two [file] steps is read by the later step (the file it names is removed)', () => {
  const env = caseEnv(FIXTURES);
  try {
    const [t1, t2, t3] = [join(env.tmp, 't1'), join(env.tmp, 't2'), join(env.tmp, 't3')];
    writeFileSync(t3, 'left by an earlier run\n');
    const dir = program(env, fileStep('a', t1, 'one') + osStep('b', `printf '%s\\n' ${t3} > created-file-c`) + fileStep('c', t2, 'two'));
    const r = runZapusk([dir, 'apply', '--state_dir', env.state], env);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!existsSync(t3), 'the file the flag named is removed');
    assert.match(r.stdout, new RegExp(`\\*\\*\\* removed ${t3} \\(c \\[file\\] in prog\\)`));
    assert.equal(readFileSync(join(env.state, 'created-file-c'), 'utf8'), `${t2}\n`);
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('a mark written by an earlier [file] step (by its own name or another path to it) is seen by the later step', () => {
  for (const written of ['file-backup-c', './file-backup-c']) {
    const env = caseEnv(FIXTURES);
    try {
      const t2 = join(env.tmp, 't2');
      writeFileSync(t2, 'original\n');
      const dir = program(env, fileStep('a', written, 'zapusk-file-empty-mark') + fileStep('c', t2, 'two'));
      const r = runZapusk([dir, 'apply', '--state_dir', env.state], env);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, /making backup of \[.*t2\]/, written);
      assert.equal(readFileSync(join(env.state, 'file-backup-c'), 'utf8'), 'zapusk-file-empty-mark', written);
      // Destroy finds no backup to restore: the file is removed.
      const d = runZapusk([dir, 'destroy', '--state_dir', env.state], env);
      assert.equal(d.code, 0, d.stderr);
      assert.ok(!existsSync(t2), written);
    } finally {
      rmSync(env.tmp, { recursive: true, force: true });
    }
  }
});

test('a listing dropped by a command is taken again only after a quarter of its entries were looked at one by one', async () => {
  const dir = '/state';
  const entries = Array.from({ length: 40 }, (_, i) => `created-file-c${i}`);
  let listings = 0;
  const marks = new MarkListing(async (d) => {
    assert.equal(d, dir);
    listings++;
    return entries;
  });
  const look = async (name: string): Promise<boolean | undefined> => {
    const known = marks.has(`${dir}/${name}`);
    if (known !== undefined) return known;
    await marks.take(`${dir}/${name}`);
    return marks.has(`${dir}/${name}`);
  };
  assert.equal(await look('created-file-c1'), true);
  assert.equal(await look('file-backup-c1'), false);
  assert.equal(marks.has(`${dir}/params.txt`), undefined, 'only marks are answered');
  assert.equal(listings, 1);
  // What the run writes or removes there is kept in step; a path to the dir by another name drops it.
  marks.touched(`${dir}/file-backup-c1`, true);
  marks.touched(`${dir}/created-file-c2`, false);
  marks.touched('/elsewhere/params.txt', true);
  assert.equal(marks.has(`${dir}/file-backup-c1`), true);
  assert.equal(marks.has(`${dir}/created-file-c2`), false);
  marks.touched(`${dir}/./created-file-c3`, false);
  assert.equal(marks.has(`${dir}/created-file-c3`), undefined);
  // Dropped (as after a command): ten looks (a quarter of 40) are left to the caller, then it lists again.
  for (let i = 0; i < 10; i++) assert.equal(await look(`created-file-c${i}`), undefined);
  assert.equal(listings, 1);
  assert.equal(await look('created-file-c5'), true);
  assert.equal(listings, 2);
  marks.forget();
  assert.equal(await look('created-file-c5'), undefined);
});
