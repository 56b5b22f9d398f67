// What a run leaves on disk: the state dir layout, file backups, once and guard markers, the run store,
// and that destroy after apply removes what the program created.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { caseEnv, FIXTURES, runZapusk } from './zapusk-helpers.js';

test('state dir after apply: params.txt, zapusk.conf, params.sh, sub-program dirs and created flags', () => {
  const env = caseEnv(join(FIXTURES, 'nested'));
  try {
    const r = runZapusk([join(FIXTURES, 'nested/prog.zdb'), 'apply', '--lib', join(FIXTURES, 'nested/lib'), '--state-dir', env.state], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(env.state, 'params.txt'), 'utf8'), 'site=example\n');
    const conf = readFileSync(join(env.state, 'zapusk.conf'), 'utf8');
    assert.match(conf, /^name=prog$/m);
    assert.match(conf, /^global_name=prog$/m);
    assert.match(conf, new RegExp(`^state_dir=${env.state}$`, 'm'));
    assert.match(conf, /^use_state_params=1$/m);
    assert.deepEqual(readdirSync(join(env.state, '_zapusk.created')).sort(), ['extra', 'web']);
    assert.match(readFileSync(join(env.state, 'web/params.txt'), 'utf8'), /^listen=port 8080$/m);
    assert.match(readFileSync(join(env.state, 'web/zapusk.conf'), 'utf8'), /^global_name=prog-web$/m);
    assert.ok(existsSync(join(env.state, 'web/inner/params.txt')));
    assert.match(readFileSync(join(env.state, 'params.sh'), 'utf8'), /^site=example$/m);

    const d = runZapusk([join(FIXTURES, 'nested/prog.zdb'), 'destroy', '--lib', join(FIXTURES, 'nested/lib'), '--state-dir', env.state], env);
    assert.equal(d.code, 0, d.stderr);
    assert.ok(!existsSync(env.state), 'the state dir is archived');
    const archived = readdirSync(join(env.tmp, '_zapusk.removed'));
    assert.equal(archived.length, 1);
    assert.match(archived[0] ?? '', /^state\.at_\d+$/);
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('[file]: backup of a file that was there, restored on destroy; a new file is deleted on destroy; mode', () => {
  const env = caseEnv(join(FIXTURES, 'files'));
  try {
    const target = join(env.tmp, 'snippet.conf');
    writeFileSync(target, 'original\n');
    const args = (cmd: string) => [join(FIXTURES, 'files/prog.zdb'), cmd, `target=${target}`, '--state-dir', env.state];
    const a = runZapusk(args('apply'), env);
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, new RegExp(`\\*\\*\\* making backup of \\[${target}\\] to \\[${env.state}/file-backup-snippet\\]`));
    assert.equal(readFileSync(target, 'utf8'), ' location /hello/ {\n   return 408;\n }');
    assert.equal(statSync(target).mode & 0o777, 0o640);
    assert.equal(readFileSync(join(env.state, 'created-file-snippet'), 'utf8'), `${target}\n`);
    assert.equal(readFileSync(join(env.state, 'file-backup-snippet'), 'utf8'), 'original\n');
    assert.equal(readFileSync(join(env.state, 'local.txt'), 'utf8'), 'written in the state dir');
    assert.equal(statSync(join(env.state, 'local.txt')).mode & 0o777, 0o755);
    assert.equal(readFileSync(join(env.state, 'file-backup-local-file'), 'utf8'), 'zapusk-file-empty-mark\n');

    const again = runZapusk(args('apply'), env);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stdout, /making backup/);

    const d = runZapusk(args('destroy'), env);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /\*\*\* file: restoring backup/);
    assert.equal(readFileSync(target, 'utf8'), 'original\n');
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('[file]: a changed path removes the file written before', () => {
  const env = caseEnv(join(FIXTURES, 'files'));
  try {
    const run = (cmd: string, name: string) => runZapusk([join(FIXTURES, 'files/prog.zdb'), cmd, `target=${join(env.tmp, name)}`, '--state-dir', env.state], env);
    assert.equal(run('apply', 'one.conf').code, 0);
    assert.ok(existsSync(join(env.tmp, 'one.conf')));
    assert.equal(run('apply', 'two.conf').code, 0);
    assert.ok(!existsSync(join(env.tmp, 'one.conf')));
    assert.ok(existsSync(join(env.tmp, 'two.conf')));
    assert.equal(run('destroy', 'two.conf').code, 0);
    assert.ok(!existsSync(join(env.tmp, 'two.conf')));
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('[once] marks in the state dir and a shared dir; destroy removes them; guard flags go with the last user', () => {
  const env = caseEnv(join(FIXTURES, 'steps'));
  try {
    const shared = join(env.tmp, 'shared');
    const args = (cmd: string) => [join(FIXTURES, 'steps/prog.zdb'), cmd, `shared=${shared}`, '--state-dir', env.state];
    assert.equal(runZapusk(args('apply'), env).code, 0);
    assert.ok(existsSync(join(env.state, 'once-once-only-install-prereq.flag')));
    assert.deepEqual(readdirSync(shared), ['once-shared-once-apply.flag']);
    assert.equal(runZapusk(args('destroy'), env).code, 0);
    assert.deepEqual(readdirSync(shared), []);

    const guards = join(env.tmp, 'guards');
    const g = (p: string, cmd: string) => runZapusk([join(FIXTURES, `guard/${p}.zdb`), cmd, `guards=${guards}`, '--state-dir', join(env.tmp, p)], env);
    g('a', 'apply');
    g('b', 'apply');
    assert.deepEqual(readdirSync(join(guards, 'nginx')).sort(), ['20-a-shared-service.state', '20-b-shared-service.state']);
    assert.equal(readFileSync(join(guards, 'nginx/20-a-shared-service.state'), 'utf8'), `${join(env.tmp, 'a')}\n`);
    g('a', 'destroy');
    assert.deepEqual(readdirSync(join(guards, 'nginx')), ['20-b-shared-service.state']);
    g('b', 'destroy');
    assert.ok(!existsSync(join(guards, 'nginx')));
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('a component removed from the program is destroyed on the next run', () => {
  const env = caseEnv(join(FIXTURES, 'nested'));
  try {
    const prog = join(env.tmp, 'prog.zdb');
    mkdirSync(join(prog, 'parts'), { recursive: true });
    writeFileSync(join(prog, 'parts/main.ini'), readFileSync(join(FIXTURES, 'nested/prog.zdb/parts/main.ini')));
    writeFileSync(join(prog, 'main.ini'), '#### extra\n[load]\ndir=parts\ngreeting=hi\n#### keep\n[os]\napply=echo kept\n');
    assert.equal(runZapusk([prog, 'apply', '--state-dir', env.state], env).code, 0);
    writeFileSync(join(prog, 'main.ini'), '#### keep\n[os]\napply=echo kept\n');
    const r = runZapusk([prog, 'apply', '--state-dir', env.state], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^parts destroyed$/m);
    assert.deepEqual(readdirSync(join(env.state, '_zapusk.created')), []);
    assert.ok(!existsSync(join(env.state, 'extra')));
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('--out json: every step with its command and exit code; the run is in the run store', () => {
  const env = caseEnv(join(FIXTURES, 'failing'));
  try {
    const r = runZapusk([join(FIXTURES, 'failing/prog.zdb'), 'apply', '--state-dir', env.state, '--out', 'json'], env);
    assert.equal(r.code, 1);
    const record = JSON.parse(r.stdout) as { run: number; exit_code: number; error: { code: string }; results: { name: string; status: string; outputs?: { retcode: number; command: string } }[] };
    assert.equal(record.exit_code, 1);
    assert.equal(record.error.code, 'Z030');
    assert.deepEqual(
      record.results.map((x) => [x.name, x.status, x.outputs?.retcode]),
      [
        ['first [os] apply', 'changed', 0],
        ['broken [os] apply', 'failed', 3],
      ],
    );
    assert.equal(record.results[1]?.outputs?.command, 'echo about to fail; echo to stderr >&2; exit 3');
    const runs = readFileSync(join(env.cairnState, 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { frontEnd: string; exitCode?: number });
    assert.equal(runs.at(-1)?.frontEnd, 'zapusk');
    assert.equal(runs.at(-1)?.exitCode, 1);
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('bad input runs nothing and leaves no state dir', () => {
  for (const name of ['bad-type', 'bad-param', 'bad-line']) {
    const env = caseEnv(join(FIXTURES, name));
    try {
      const r = runZapusk([join(FIXTURES, `${name}/prog.zdb`), 'apply', '--state-dir', env.state], env);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.ok(!existsSync(env.state));
    } finally {
      rmSync(env.tmp, { recursive: true, force: true });
    }
  }
});

test('[when] passes commands only on listed days', () => {
  const env = caseEnv(join(FIXTURES, 'basic'));
  try {
    const prog = join(env.tmp, 'w.zdb');
    mkdirSync(prog);
    const today = new Date().getDay();
    writeFileSync(join(prog, 'main.ini'), `#### yes\n[when]\nday_of_week=${today}\n[os]\napply=echo today\n#### no\n[when]\nday_of_week=${(today + 1) % 7}\n[os]\napply=echo tomorrow\n`);
    const r = runZapusk([prog, 'apply', '--state-dir', env.state], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^today$/m);
    assert.doesNotMatch(r.stdout, /tomorrow/);
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});
