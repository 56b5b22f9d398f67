import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CheckOutcome, GraphNode } from '../../src/core/model.js';
import { FakeHost } from '../../src/host/fake.js';
import { LocalHost } from '../../src/host/local.js';
import type { ResourceContext } from '../../src/host/types.js';
import { kind } from '../../src/resources/command/index.js';
import { splitWords, toInvocation } from '../../src/resources/command/run.js';

type P = Record<string, unknown>;
const node = (params: P): GraphNode => ({ id: 'cmd', type: 'command', name: 'cmd', params });
const local: ResourceContext = { host: new LocalHost(), baseDir: '/' };

async function checkThenApply(params: P, ctx: ResourceContext = local) {
  const check = await kind.check(ctx, params, node(params));
  const applied = await kind.apply(ctx, params, check, node(params));
  return { check, applied };
}

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-command-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('command: validate', () => {
  const diags = (params: P) => kind.validate(params, node(params)).map((d) => d.message);
  test('accepts a string, an argv list and every documented param', () => {
    assert.deepEqual(diags({ cmd: 'true' }), []);
    assert.deepEqual(
      diags({
        cmd: ['echo', 'x'],
        cwd: '/tmp',
        env: { A: '1', B: 2, C: true },
        shell: '/bin/bash',
        timeout: 1.5,
        stdin: 'in',
        unless: ['true', 'false'],
        onlyif: 'true',
        creates: ['/a', '/b'],
        success_codes: [0, 2],
      }),
      [],
    );
  });
  test('rejects unknown params, a missing cmd and wrong types', () => {
    assert.match(diags({ cmd: 'true', bogus: 1 }).join('\n'), /unknown param "bogus"/);
    assert.match(diags({}).join('\n'), /missing required param "cmd"/);
    assert.match(diags({ cmd: 'true', timeout: -1 }).join('\n'), /param "timeout"/);
    assert.match(diags({ cmd: 'true', success_codes: [0.5] }).join('\n'), /param "success_codes/);
    assert.match(diags({ cmd: [] }).join('\n'), /param "cmd"/);
  });
});

describe('command: check', () => {
  test('without guards: would run, not collectable, and does not run the command', async () => {
    const marker = join(dir, 'check-marker');
    const params = { cmd: `touch ${marker}` };
    const check = await kind.check(local, params, node(params));
    assert.equal(check.inSync, false);
    assert.equal(check.collectable, false);
    assert.deepEqual(check.changes, { cmd: `touch ${marker}` });
    assert.equal(check.comment, `Command "touch ${marker}" would have been executed`);
    assert.equal(existsSync(marker), false);
  });

  test('runs the guards but never the command itself', async () => {
    const marker = join(dir, 'guarded-marker');
    const params = { cmd: `touch ${marker}`, unless: 'false', onlyif: 'true' };
    const check = await kind.check(local, params, node(params));
    assert.equal(check.inSync, false);
    assert.notEqual(check.collectable, false);
    assert.equal(existsSync(marker), false);
  });

  test('unless: skips when every command exits 0', async () => {
    const skip = await kind.check(local, { cmd: 'exit 1', unless: 'true' }, node({}));
    assert.deepEqual([skip.inSync, skip.comment], [true, 'unless condition is true']);
    const all = await kind.check(local, { cmd: 'exit 1', unless: ['true', 'test -d /'] }, node({}));
    assert.equal(all.inSync, true);
    const one = await kind.check(local, { cmd: 'exit 1', unless: ['true', 'false'] }, node({}));
    assert.equal(one.inSync, false);
  });

  test('onlyif: skips when any command fails', async () => {
    const skip = await kind.check(local, { cmd: 'exit 1', onlyif: ['true', 'false'] }, node({}));
    assert.deepEqual([skip.inSync, skip.comment], [true, 'onlyif condition is false']);
    const run = await kind.check(local, { cmd: 'exit 1', onlyif: 'true' }, node({}));
    assert.equal(run.inSync, false);
  });

  test('creates: skips when every path exists, relative paths against cwd', async () => {
    writeFileSync(join(dir, 'made'), '');
    const one = await kind.check(local, { cmd: 'true', creates: join(dir, 'made') }, node({}));
    assert.deepEqual([one.inSync, one.comment], [true, `${join(dir, 'made')} exists`]);
    const list = await kind.check(local, { cmd: 'true', creates: [join(dir, 'made'), dir] }, node({}));
    assert.deepEqual([list.inSync, list.comment], [true, 'All files in creates exist']);
    const missing = await kind.check(local, { cmd: 'true', creates: [join(dir, 'made'), join(dir, 'nope')] }, node({}));
    assert.equal(missing.inSync, false);
    const relative = await kind.check(local, { cmd: 'true', cwd: dir, creates: 'made' }, node({}));
    assert.equal(relative.inSync, true);
  });

  test('guards see cwd and env, but not stdin', async () => {
    const fake = new FakeHost({ exec: () => ({ code: 0 }) });
    const ctx: ResourceContext = { host: fake, baseDir: '/' };
    const params = { cmd: 'main', cwd: '/srv', env: { X: 1 }, stdin: 'secret', unless: 'guard', timeout: 2 };
    const check = await kind.check(ctx, params, node(params));
    assert.equal(check.inSync, true);
    assert.equal(fake.execLog.length, 1);
    assert.equal(fake.execLog[0]?.command, 'guard');
    assert.deepEqual(fake.execLog[0]?.options, { cwd: '/srv', env: { X: '1' }, timeout: 2000, readOnly: true });
  });
});

describe('command: apply', () => {
  test('runs and reports Salt-shaped changes and outputs', async () => {
    const { applied } = await checkThenApply({ cmd: 'echo hello; echo oops >&2' });
    assert.equal(applied.ok, true);
    assert.equal(applied.comment, 'Command "echo hello; echo oops >&2" run');
    const pid = (applied.changes as P).pid;
    assert.ok(Number.isInteger(pid) && (pid as number) > 0, 'the pid, as Salt reports it');
    assert.deepEqual(applied.changes, { pid, retcode: 0, stdout: 'hello', stderr: 'oops' });
    assert.deepEqual(Object.keys(applied.changes ?? {}), ['pid', 'retcode', 'stdout', 'stderr']);
    assert.deepEqual(applied.outputs, { pid, retcode: 0, stdout: 'hello\n', stderr: 'oops\n' });
  });

  test('a non-zero exit fails unless it is in success_codes', async () => {
    const failed = await checkThenApply({ cmd: 'exit 3' });
    assert.equal(failed.applied.ok, false);
    assert.equal(failed.applied.comment, 'Command "exit 3" run');
    assert.equal((failed.applied.changes as P).retcode, 3);
    const allowed = await checkThenApply({ cmd: 'exit 3', success_codes: [0, 3] });
    assert.equal(allowed.applied.ok, true);
    const zeroNotListed = await checkThenApply({ cmd: 'true', success_codes: [2] });
    assert.equal(zeroNotListed.applied.ok, false);
  });

  test('env, cwd and stdin reach the command', async () => {
    const { applied } = await checkThenApply({ cmd: 'printf "%s|" "$GREETING" "$(pwd)"; cat', env: { GREETING: 'hi there' }, cwd: dir, stdin: 'from stdin' });
    assert.equal(applied.ok, true);
    assert.equal((applied.outputs as P).stdout, `hi there|${dir}|from stdin`);
  });

  test('an argv list runs without a shell; shell: false splits a string into words', async () => {
    const argv = await checkThenApply({ cmd: ['printf', '%s', 'a  $HOME;b'] });
    assert.equal((argv.applied.outputs as P).stdout, 'a  $HOME;b');
    const split = await checkThenApply({ cmd: `printf %s 'a  b' "c\\"d" e\\ f`, shell: false });
    assert.equal((split.applied.outputs as P).stdout, 'a  bc"de f');
  });

  test('shell: a given shell runs the command with -c', async () => {
    const { applied } = await checkThenApply({ cmd: 'echo "$0"', shell: '/bin/bash' });
    assert.equal((applied.outputs as P).stdout, '/bin/bash\n');
    assert.deepEqual(toInvocation(['echo', 'a b'], true), "echo 'a b'");
    assert.deepEqual(toInvocation('echo hi', '/bin/dash'), ['/bin/dash', '-c', 'echo hi']);
    assert.deepEqual(splitWords(` a "b c" 'd'e\\ f `), ['a', 'b c', 'de f']);
  });

  test('a timeout is a failure that says so', async () => {
    const { applied } = await checkThenApply({ cmd: 'sleep 5', timeout: 0.3 });
    assert.equal(applied.ok, false);
    assert.equal(applied.comment, 'Command "sleep 5" timed out after 0.3 seconds');
  });

  test('a program that does not exist fails with retcode 127', async () => {
    const { applied } = await checkThenApply({ cmd: [join(dir, 'no-such-program')] });
    assert.equal(applied.ok, false);
    assert.equal((applied.changes as P).retcode, 127);
  });

  test('a guard that said skip in check means apply runs nothing', async () => {
    const marker = join(dir, 'skipped-marker');
    const { check, applied } = await checkThenApply({ cmd: `touch ${marker}`, unless: 'true' });
    assert.equal(check.inSync, true);
    assert.deepEqual([applied.ok, applied.comment, applied.changes], [true, 'unless condition is true', undefined]);
    assert.equal(existsSync(marker), false);
  });

  test('is idempotent through creates: the second run is in sync', async () => {
    const made = join(dir, 'idempotent');
    const params = { cmd: `echo made > ${made}`, creates: made };
    const first = await checkThenApply(params);
    assert.equal(first.applied.ok, true);
    assert.equal(readFileSync(made, 'utf8'), 'made\n');
    const second = await kind.check(local, params, node(params));
    assert.deepEqual([second.inSync, second.comment], [true, `${made} exists`]);
  });
});

describe('command: watch', () => {
  test('runs the command again', async () => {
    const log = join(dir, 'watch-log');
    const params = { cmd: `echo run >> ${log}` };
    const { applied } = await checkThenApply(params);
    assert.equal(applied.ok, true);
    const watched = await kind.watch?.(local, params, node(params));
    assert.equal(watched?.ok, true);
    assert.equal(watched?.comment, `Command "echo run >> ${log}" run`);
    assert.equal(readFileSync(log, 'utf8'), 'run\nrun\n');
  });

  test('still honours the guards (as Salt does)', async () => {
    mkdirSync(join(dir, 'w'), { recursive: true });
    const log = join(dir, 'w', 'guarded-watch-log');
    const params = { cmd: `echo run >> ${log}`, creates: join(dir, 'w') };
    const watched = await kind.watch?.(local, params, node(params));
    assert.deepEqual([watched?.ok, watched?.comment], [true, `${join(dir, 'w')} exists`]);
    assert.equal(existsSync(log), false);
  });
});

test('check outcome of a guard-free command is stable across calls', async () => {
  const a: CheckOutcome = await kind.check(local, { cmd: 'true' }, node({}));
  const b: CheckOutcome = await kind.check(local, { cmd: 'true' }, node({}));
  assert.deepEqual(a, b);
});
