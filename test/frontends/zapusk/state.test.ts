// What a run leaves on disk: the state dir layout, file backups, once and guard markers, the run store,
// and that destroy after apply removes what the program created.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { prepare, runZapusk as runZapuskProgram } from '../../../src/frontends/zapusk/index.js';
import { LocalHost } from '../../../src/host/local.js';
import { CAIRN, cairn } from '../../cli/cli-helpers.js';
import { caseEnv, FIXTURES, runZapusk } from './zapusk-helpers.js';

test('state dir after apply: params.txt, zapusk.conf, params.sh, sub-program dirs and created flags', () => {
  const env = caseEnv(join(FIXTURES, 'nested'));
  try {
    const r = runZapusk([join(FIXTURES, 'nested/prog.zdb'), 'apply', '--lib', join(FIXTURES, 'nested/lib'), '--state_dir', env.state], env);
    assert.equal(r.code, 0, r.stderr);
    // As zapusk-tool writes it: global, then special, then program and request params.
    const params = readFileSync(join(env.state, 'params.txt'), 'utf8');
    assert.match(params, /^name=prog\nglobal_name=prog\nglobal_prefix=\nzdb_dir=.*\nzapusk_tool_dir=.*\nzapusk_tool=.*\nstate_dir=.*\nsite=example\n$/);
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
    // Request params may be secrets: the instance's state files are owner-only.
    for (const f of ['params.txt', 'zapusk.conf', 'params.sh', 'web/params.txt', 'web/zapusk.conf', '_zapusk.created/web']) {
      assert.equal(statSync(join(env.state, f)).mode & 0o777, 0o600, f);
    }

    const d = runZapusk([join(FIXTURES, 'nested/prog.zdb'), 'destroy', '--lib', join(FIXTURES, 'nested/lib'), '--state_dir', env.state], env);
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
    const args = (cmd: string) => [join(FIXTURES, 'files/prog.zdb'), cmd, `target=${target}`, '--state_dir', env.state];
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

    const flag = statSync(join(env.state, 'created-file-snippet'));
    const again = runZapusk(args('apply'), env);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stdout, /making backup/);
    // A no-op apply leaves the flag as it was (same file, not rewritten through a temp file).
    assert.equal(statSync(join(env.state, 'created-file-snippet')).ino, flag.ino);

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
    const run = (cmd: string, name: string) => runZapusk([join(FIXTURES, 'files/prog.zdb'), cmd, `target=${join(env.tmp, name)}`, '--state_dir', env.state], env);
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
    const args = (cmd: string) => [join(FIXTURES, 'steps/prog.zdb'), cmd, `shared=${shared}`, '--state_dir', env.state];
    assert.equal(runZapusk(args('apply'), env).code, 0);
    assert.ok(existsSync(join(env.state, 'once-once-only-install-prereq.flag')));
    assert.deepEqual(readdirSync(shared), ['once-shared-once-apply.flag']);
    assert.equal(runZapusk(args('destroy'), env).code, 0);
    assert.deepEqual(readdirSync(shared), []);

    const guards = join(env.tmp, 'guards');
    const g = (p: string, cmd: string) => runZapusk([join(FIXTURES, `guard/${p}.zdb`), cmd, `guards=${guards}`, '--state_dir', join(env.tmp, p)], env);
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
    assert.equal(runZapusk([prog, 'apply', '--state_dir', env.state], env).code, 0);
    writeFileSync(join(prog, 'main.ini'), '#### keep\n[os]\napply=echo kept\n');
    const r = runZapusk([prog, 'apply', '--state_dir', env.state], env);
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
    const r = runZapusk([join(FIXTURES, 'failing/prog.zdb'), 'apply', '--state_dir', env.state, '--out', 'json'], env);
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
  for (const name of ['bad-type', 'bad-param', 'bad-line', 'bad-unreadable']) {
    const env = caseEnv(join(FIXTURES, name));
    try {
      const r = runZapusk([join(FIXTURES, `${name}/prog.zdb`), 'apply', '--state_dir', env.state], env);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.ok(!existsSync(env.state));
    } finally {
      rmSync(env.tmp, { recursive: true, force: true });
    }
  }
});

test('[when] passes commands only on listed days, by the clock the run is given', async () => {
  const env = caseEnv(join(FIXTURES, 'basic'));
  try {
    const prog = join(env.tmp, 'w.zdb');
    mkdirSync(prog);
    writeFileSync(join(prog, 'main.ini'), '#### weekend\n[when]\nday_of_week=6 0\n[os]\napply=echo weekend\n#### monday\n[when]\nday_of_week=1\n[os]\napply=echo monday\n');
    const run = async (date: string): Promise<string> => {
      let out = '';
      const base = { programDir: prog, command: 'apply', request: [], stateDir: env.state, defaultStateRoot: env.tmp, libDirs: [], toolDir: env.tmp };
      const outcome = await runZapuskProgram(
        {
          ...base,
          debug: false,
          force: false,
          toolCommand: 'cairn zapusk',
          host: new LocalHost(),
          write: (t) => (out += t),
          writeErr: () => {},
          color: false,
          quiet: false,
          env: {},
          // Local noon, so the day is the same in every time zone's reading of it.
          now: () => new Date(`${date}T12:00:00`).getTime(),
        },
        prepare(base),
      );
      assert.equal(outcome.exitCode, 0, out);
      return out;
    };
    const saturday = await run('2024-06-01');
    assert.match(saturday, /^weekend$/m);
    assert.doesNotMatch(saturday, /^monday$/m);
    const monday = await run('2024-06-03');
    assert.match(monday, /^monday$/m);
    assert.doesNotMatch(monday, /^weekend$/m);
    const tuesday = await run('2024-06-04');
    assert.doesNotMatch(tuesday, /^(weekend|monday)$/m);
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('os step output is shown while the step runs, not when it ends', async () => {
  const env = caseEnv(join(FIXTURES, 'basic'));
  try {
    const prog = join(env.tmp, 'live.zdb');
    const marker = join(env.tmp, 'seen-first');
    mkdirSync(prog);
    // The step waits for a file the test writes only after reading "first" from cairn's stdout.
    writeFileSync(
      join(prog, 'main.ini'),
      `#### slow\n[os]\napply=echo first; i=0; while [ ! -e ${marker} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; if [ -e ${marker} ]; then echo second; else echo late; fi\n`,
    );
    const child = spawn(process.execPath, [CAIRN, 'zapusk', prog, 'apply', '--state_dir', env.state], {
      cwd: env.tmp,
      env: { ...process.env, NO_COLOR: '1', CAIRN_STATE_DIR: env.cairnState },
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString('utf8');
      if (/^first$/m.test(out) && !existsSync(marker)) writeFileSync(marker, '');
    });
    const code = await new Promise<number | null>((done) => child.on('close', done));
    assert.equal(code, 0, out);
    assert.match(out, /^first\nsecond\n/m);
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('relative prepend_zdb_dirs are relative to the working directory, as zapusk-tool reads them', () => {
  const env = caseEnv(join(FIXTURES, 'args'));
  try {
    const args = ['zapusk', 'prog.zdb', 'apply', 'prepend_zdb_dirs=lib', '--state_dir', env.state];
    const here = cairn(args, { cwd: join(FIXTURES, 'args'), env: { CAIRN_STATE_DIR: env.cairnState } });
    assert.equal(here.code, 0, here.stderr);
    assert.match(here.stdout, /^type_dir=lib\/two\.zdb$/m);
    const elsewhere = cairn([...args.slice(0, 1), join(FIXTURES, 'args/prog.zdb'), ...args.slice(2)], { cwd: env.tmp, env: { CAIRN_STATE_DIR: env.cairnState } });
    assert.equal(elsewhere.code, 1);
    assert.match(elsewhere.stderr, /Z010 cannot find zdb of type `sub`/);
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('init writes a starter program that runs, refuses a folder with a program; help prints the usage', () => {
  const env = caseEnv(join(FIXTURES, 'basic'));
  try {
    const dir = join(env.tmp, 'starter');
    mkdirSync(dir);
    const first = cairn(['zapusk', 'init'], { cwd: dir, env: { CAIRN_STATE_DIR: env.cairnState } });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, '*** zapusk init zdb-program in dir [.]\n*** done\n');
    assert.deepEqual(readdirSync(dir).sort(), ['main.ini', 'params.ini', 'zapusk.conf']);
    const again = cairn(['zapusk', 'init'], { cwd: dir, env: { CAIRN_STATE_DIR: env.cairnState } });
    assert.equal(again.code, 1);
    assert.match(again.stdout, /^\*\*\* ERROR: cannot init dir, because it contains \*\.ini or \*\.conf files!$/m);
    const other = cairn(['zapusk', join(env.tmp, 'new.zdb'), 'init'], { cwd: env.tmp, env: { CAIRN_STATE_DIR: env.cairnState } });
    assert.equal(other.code, 0, other.stderr);
    assert.ok(existsSync(join(env.tmp, 'new.zdb/main.ini')));
    const applied = cairn(['zapusk', '.', 'apply'], { cwd: dir, env: { CAIRN_STATE_DIR: env.cairnState } });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /^hello, world$/m);
    assert.equal(readFileSync(join(dir, '_state/greeting.txt'), 'utf8'), 'hello, world\n');
    const help = cairn(['zapusk', 'help'], { cwd: env.tmp });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^\*\*\* \nUsage: cairn zapusk PROGRAM\.zdb/);
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('an ini file that cannot be read stops the program before anything runs', { skip: process.getuid?.() === 0 ? 'root reads any file' : false }, () => {
  const env = caseEnv(join(FIXTURES, 'basic'));
  try {
    const prog = join(env.tmp, 'locked.zdb');
    mkdirSync(prog);
    writeFileSync(join(prog, 'main.ini'), '#### a\n[os]\napply=echo must not run\n');
    chmodSync(join(prog, 'main.ini'), 0);
    const r = runZapusk([prog, 'apply', '--state_dir', env.state], env);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /Z006 cannot read .*main\.ini: permission denied/);
    assert.ok(!existsSync(env.state));
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('a dry run (plan, --dry-run) writes nothing: no state dir, no file, no flag; a real run after it does all', () => {
  const env = caseEnv(join(FIXTURES, 'plan'));
  try {
    const prog = join(FIXTURES, 'plan/prog.zdb');
    const lib = ['--lib', join(FIXTURES, 'plan/lib'), '--state_dir', env.state];
    const plan = runZapusk([prog, 'plan', ...lib], env);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /would write .*app\.conf/);
    assert.ok(!existsSync(env.state), 'plan created the state dir');
    assert.ok(!existsSync(join(env.tmp, 'guards')), 'plan wrote a guard flag');
    const planJson = runZapusk([prog, 'plan', '--out', 'json', ...lib], env);
    const record = JSON.parse(planJson.stdout) as { dry_run?: boolean; results: { type: string; status: string }[] };
    assert.equal(record.dry_run, true);
    assert.deepEqual(
      record.results.filter((r) => r.type === 'file' || r.type === 'os').map((r) => `${r.type} ${r.status}`),
      ['file pending', 'os pending', 'os pending', 'file pending', 'os pending'],
    );
    assert.ok(!existsSync(env.state), 'plan --out json created the state dir');
    const apply = runZapusk([prog, 'apply', ...lib], env);
    assert.equal(apply.code, 0, apply.stderr);
    assert.equal(readFileSync(join(env.state, 'app.conf'), 'utf8'), 'listen 8080');
    const snapshot = (): string[] => readdirSync(env.state, { recursive: true }).map((f) => `${String(f)} ${statSync(join(env.state, String(f))).mtimeMs}`).sort();
    const before = snapshot();
    const again = runZapusk([prog, 'apply', '--dry-run', 'port=1', ...lib], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^\s+\+listen 1$/m);
    const destroy = runZapusk([prog, 'destroy', '--dry-run', ...lib], env);
    assert.equal(destroy.code, 0, destroy.stderr);
    assert.deepEqual(snapshot(), before, 'a dry run changed the state dir');
    assert.equal(readFileSync(join(env.state, 'app.conf'), 'utf8'), 'listen 8080');
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('the tool folder (global params, lib/) may be given as $CAIRN_ZAPUSK_TOOL_DIR; --tool-dir wins over it', () => {
  const env = caseEnv(join(FIXTURES, 'global-params'));
  try {
    const prog = join(FIXTURES, 'global-params/prog.zdb');
    const tool = join(FIXTURES, 'global-params/tool');
    const r = runZapusk([prog, 'apply', '--state_dir', env.state], env, { CAIRN_ZAPUSK_TOOL_DIR: tool });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /region=default-region shared=from global conf/);
    assert.match(r.stdout, /hello world in default-region/);
    const empty = join(env.tmp, 'empty-tool');
    mkdirSync(empty);
    const other = runZapusk([prog, 'apply', '--state_dir', join(env.tmp, 's2'), '--tool-dir', empty], env, { CAIRN_ZAPUSK_TOOL_DIR: tool });
    assert.equal(other.code, 1);
    assert.match(other.stderr, /Z020 unknown param "region"/);
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('a run that changes nothing leaves the state files as they are; a changed param or mode rewrites them', () => {
  const env = caseEnv(join(FIXTURES, 'files'));
  try {
    const target = join(env.tmp, 'snippet.conf');
    const args = (value: string) => [join(FIXTURES, 'files/prog.zdb'), 'apply', `target=${target}`, `note=${value}`, '--state_dir', env.state];
    assert.equal(runZapusk(args('one'), env).code, 0);
    const files = ['params.txt', 'zapusk.conf', 'created-file-snippet', 'file-backup-snippet'].map((f) => join(env.state, f));
    const before = files.map((f) => statSync(f, { bigint: true }));
    const again = runZapusk(args('one'), env);
    assert.equal(again.code, 0, again.stderr);
    // Not written again: the same inode (a write replaces the file by a renamed temporary one).
    files.forEach((f, i) => assert.equal(statSync(f, { bigint: true }).ino, before[i]?.ino, f));
    assert.equal(runZapusk(args('two'), env).code, 0);
    assert.match(readFileSync(files[0] as string, 'utf8'), /^note=two$/m);
    assert.notEqual(statSync(files[0] as string, { bigint: true }).ino, before[0]?.ino);
    assert.equal(statSync(files[1] as string, { bigint: true }).ino, before[1]?.ino, 'zapusk.conf holds the same text');
    // A state file whose mode was changed is written again, owner-only.
    chmodSync(files[1] as string, 0o644);
    assert.equal(runZapusk(args('two'), env).code, 0);
    assert.equal(statSync(files[1] as string).mode & 0o777, 0o600);
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});
