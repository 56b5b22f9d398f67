/** The cron kind against a fake crontab(1): Salt's managed layout, add, update, remove, env. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeHost } from '../../src/host/fake.js';
import { kind, parseTab, renderTab } from '../../src/resources/cron/index.js';
import { node } from './fs-helpers.js';

function crontabHost(initial: string): { host: FakeHost; tab: () => string } {
  let tab = initial;
  const host = new FakeHost({
    exec: (c, o) => {
      const argv = [...(c as readonly string[])];
      if (argv.join(' ') === 'crontab -u nobody -l') return tab ? { code: 0, stdout: tab } : { code: 1, stderr: 'no crontab for nobody\n' };
      if (argv.join(' ') === 'crontab -u nobody -') {
        tab = o.stdin ?? '';
        return { code: 0 };
      }
      return { code: 127 };
    },
  });
  return { host, tab: () => tab };
}

async function run(host: FakeHost, params: Record<string, unknown>) {
  const ctx = { host, baseDir: '/' };
  const n = node('cron', params);
  assert.deepEqual(kind.validate(params, n), []);
  const check = await kind.check(ctx, params, n);
  const applied = check.inSync ? undefined : await kind.apply(ctx, params, check, n);
  return { check, applied };
}

test('the managed part of a crontab reads and renders as Salt writes it', () => {
  const text = 'MAILTO=x\n# Lines below here are managed by Salt, do not edit\nPATH=/bin\n# nightly SALT_CRON_IDENTIFIER:job\n5 2 * * * /bin/job\n';
  assert.equal(renderTab(parseTab(text)), text);
});

test('present adds under the marker, updates in place of the old entry, absent removes', async () => {
  const { host, tab } = crontabHost('MAILTO=x\n');
  const added = await run(host, { name: '/bin/a', user: 'nobody', state: 'present', minute: '5' });
  assert.equal(added.check.comment, 'Cron /bin/a is set to be added');
  assert.deepEqual([added.applied?.comment, added.applied?.changes], ["Cron /bin/a added to nobody's crontab", { nobody: '/bin/a' }]);
  assert.equal(tab(), 'MAILTO=x\n# Lines below here are managed by Salt, do not edit\n# SALT_CRON_IDENTIFIER:/bin/a\n5 * * * * /bin/a\n');
  assert.equal((await run(host, { name: '/bin/a', user: 'nobody', state: 'present', minute: '5' })).check.comment, 'Cron /bin/a already present');
  const updated = await run(host, { name: '/bin/a', user: 'nobody', state: 'present', minute: '10' });
  assert.deepEqual([updated.check.comment, updated.applied?.comment], ['Cron /bin/a is set to be updated', 'Cron /bin/a updated']);
  const env = await run(host, { name: 'PATH', value: '/bin', user: 'nobody', state: 'env_present' });
  assert.equal(env.applied?.comment, "Cron env PATH added to nobody's crontab");
  const gone = await run(host, { name: '/bin/a', user: 'nobody', state: 'absent' });
  assert.equal(gone.applied?.comment, "Cron /bin/a removed from nobody's crontab");
  assert.equal(tab(), 'MAILTO=x\n# Lines below here are managed by Salt, do not edit\nPATH=/bin\n');
});
