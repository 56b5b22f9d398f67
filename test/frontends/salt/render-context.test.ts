// Salt's Jinja context (pillar, grains, salt functions, sls names, opts, imports), top targeting, pillar, templates.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { DiagnosticError } from '../../../src/core/diag.js';
import { grains, loadPillar, renderHighstate, renderSls, renderTemplateFile, showTop } from '../../../src/frontends/salt/render/index.js';
import { osGrains, parseOsRelease } from '../../../src/frontends/salt/render/grains.js';
import { tree } from './render-helpers.js';

const argsOf = (r: ReturnType<typeof renderSls>, id: string): Record<string, unknown> =>
  Object.assign({}, ...((r.high.states[id]?.test as unknown[]) ?? []).filter((a) => typeof a === 'object'));

test('SLS templates see pillar, grains, salt functions, sls names and opts', () => {
  const t = tree(
    {
      'pillar/top.sls': "base:\n  '*':\n    - common\n",
      'pillar/common.sls': 'app:\n  port: 8080\n  users: [ann, bob]\n',
      'salt/web/init.sls': [
        'ctx:',
        '  test.nop:',
        "    - port: {{ salt['pillar.get']('app:port') }}",
        "    - missing: {{ salt['pillar.get']('app:nope', 'dflt') }}",
        "    - first: {{ pillar['app']['users'][0] }}",
        "    - os: {{ grains['os'] == salt['grains.get']('os') }}",
        "    - id: {{ grains.id }} {{ opts.id }}",
        '    - sls: {{ sls }} {{ slspath }} {{ tpldir }} {{ tplfile }} {{ saltenv }}',
        "    - cmd: {{ salt['cmd.run']('echo hi; echo err >&2', python_shell=True) | yaml_encode }}",
        "    - exists: {{ salt['file.file_exists']('/etc/os-release') }} {{ salt['file.directory_exists']('/nonexistent') }}",
        "    - config: {{ salt['config.get']('app:port') }}",
        "    - truth: {{ salt['test.true']() }}",
        "    - filt: {{ 'Yes' | to_bool }}",
        '',
      ].join('\n'),
      'salt/web/sub.sls': "sub:\n  test.nop:\n    - names: {{ [sls, slspath, tpldir, tplfile] | json }}\n",
    },
    { minionId: 'web7', pillarOverride: { app: { port: 9090 } } },
  );
  const r = renderSls(['web', 'web.sub'], t.opts);
  assert.deepEqual(r.errors, []);
  const a = argsOf(r, 'ctx');
  assert.equal(a.port, 9090);
  assert.equal(a.missing, 'dflt');
  assert.equal(a.first, 'ann');
  assert.equal(a.os, true);
  assert.equal(a.id, 'web7 web7');
  assert.equal(a.sls, 'web web web web/init.sls base');
  assert.equal(a.cmd, 'hi\nerr');
  assert.equal(a.exists, 'True False');
  assert.equal(a.config, 9090);
  assert.equal(a.truth, true);
  assert.equal(a.filt, true);
  assert.deepEqual(argsOf(r, 'sub').names, ['web.sub', 'web', 'web', 'web/sub.sls']);
});

test('{% from %} and {% import %} resolve against the file roots, absolute and relative', () => {
  const t = tree({
    'salt/lib/macros.jinja': "{% macro pkg(n) %}{{ n }}:\n  pkg.installed: []\n{% endmacro %}\n{% set who = grains['os_family'] %}\n",
    'salt/app/map.jinja': "{% set conf = salt['grains.filter_by']({'default': {'port': 1}, 'Debian': {'port': 2}, 'RedHat': {'port': 2}}) %}\n",
    'salt/app/init.sls': "{% from 'lib/macros.jinja' import pkg %}\n{% from './map.jinja' import conf with context %}\n{% import 'salt://lib/macros.jinja' as m %}\n{{ pkg('vim') }}\nport:\n  test.nop:\n    - port: {{ conf.port }}\n    - fam: {{ m.who }}\n",
  });
  const r = renderSls(['app'], t.opts);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.high.states.vim?.pkg, ['installed', { order: 10000 }]);
  assert.ok([1, 2].includes(argsOf(r, 'port').port as number));
  assert.equal(argsOf(r, 'port').fam, grains().os_family);
});

test('top targeting: glob, pcre, list, grain, compound, and environments', () => {
  const os = String(grains().os);
  const t = tree({
    'salt/top.sls': [
      'base:',
      "  'web*':",
      '    - globbed',
      "  'web[0-9]+$':",
      '    - match: pcre',
      '    - pcre',
      "  'db1,web1':",
      '    - match: list',
      '    - listed',
      `  'os:${os}':`,
      '    - match: grain',
      '    - grained',
      `  'G@os:${os} and not db*':`,
      '    - compound',
      "  'db*':",
      '    - nope',
      "  '*':",
      '    - dev: fromdev',
      'dev:',
      "  '*':",
      '    - devstate',
      '',
    ].join('\n'),
  }, { envRoots: {} });
  const opts = { ...t.opts, envRoots: { base: [join(t.dir, 'salt')], dev: [join(t.dir, 'salt')] } };
  assert.deepEqual(showTop(opts).top, { base: ['globbed', 'pcre', 'listed', 'grained', 'compound'], dev: ['fromdev', 'devstate'] });
  assert.deepEqual(showTop({ ...opts, saltenv: 'dev' }).top, { dev: ['devstate'] });
});

test('highstate: the top file picks the SLS; no match gives empty high data', () => {
  const t = tree({ 'salt/top.sls': "base:\n  'web*':\n    - w\n", 'salt/w.sls': 'w1:\n  test.nop: []\n' });
  assert.deepEqual(Object.keys(renderHighstate(t.opts).high.states), ['w1']);
  const none = renderHighstate({ ...t.opts, minionId: 'db1' });
  assert.deepEqual([none.errors, none.high.states], [[], {}]);
  const bad = tree({ 'salt/top.sls': "base:\n  '*':\n    - gone\n" });
  assert.deepEqual(renderHighstate(bad.opts).errors, ["No matching sls found for 'gone' in env 'base'"]);
});

test('pillar: top-file order, deep merge, includes, override on top; errors stop the render', () => {
  const t = tree({
    'pillar/top.sls': "base:\n  '*':\n    - a\n  'web*':\n    - b\n",
    'pillar/a.sls': "include:\n  - c\nx:\n  one: 1\n  two: 2\nlist: [1]\nfam: {{ grains['os_family'] }}\n",
    'pillar/b.sls': 'x:\n  two: 20\nlist: [2]\n',
    'pillar/c.sls': 'fromc: yes\n',
  }, { pillarOverride: { x: { three: 3 } } });
  assert.deepEqual(loadPillar(t.opts), { x: { one: 1, two: 20, three: 3 }, list: [2], fam: grains().os_family, fromc: true });
  const bad = tree({ 'pillar/top.sls': "base:\n  '*':\n    - broken\n", 'pillar/broken.sls': 'a: [\n', 'salt/s.sls': 's: {test.nop: []}\n' });
  const r = renderSls(['s'], bad.opts);
  assert.equal(r.errors[0], 'Pillar failed to render with the following messages:');
  assert.equal(r.errors[1], "Rendering SLS 'broken' failed. Please see master log for details.");
  assert.match(r.diagnostics[0]?.span?.file ?? '', /broken\.sls$/);
});

test('file templates render with Salt\'s context plus the state\'s context; errors are positioned', () => {
  const t = tree({ 'pillar/top.sls': "base:\n  '*':\n    - p\n", 'pillar/p.sls': 'greeting: hello\n', 'salt/files/t.conf': 'x' });
  const file = join(t.dir, 'salt/files/t.conf');
  const out = renderTemplateFile("{{ pillar.greeting }} {{ who }} {{ grains.id }} {{ tpldir }}\n", file, { who: 'world' }, t.opts);
  assert.equal(out, 'hello world web1 files\n');
  assert.throws(
    () => renderTemplateFile('ok\n{{ nope.x }}\n', file, {}, t.opts),
    (e: unknown) => DiagnosticError.is(e) && e.diagnostics[0]?.span?.line === 2 && e.diagnostics[0]?.span?.file === file,
  );
});

test('grains from os-release as Salt 3006 names them (os-release alone for Debian and Ubuntu); this machine\'s grains are filled in', () => {
  const deb = osGrains(parseOsRelease('ID=debian\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n'), '12.5\n');
  assert.equal(deb.os, 'Debian');
  assert.equal(deb.os_family, 'Debian');
  // Salt reads Debian's os-release alone: /etc/debian_version's point release is not the osrelease.
  assert.equal(deb.osrelease, '12');
  assert.equal(deb.osfullname, 'Debian GNU/Linux');
  assert.equal(deb.osmajorrelease, 12);
  assert.equal(deb.lsb_distrib_id, null);
  assert.equal(deb.osfinger, 'Debian-12');
  assert.equal(deb.oscodename, 'bookworm');
  const ub = osGrains(parseOsRelease('ID=ubuntu\nNAME="Ubuntu"\nVERSION_ID="22.04"\nVERSION_CODENAME=jammy\n'));
  assert.deepEqual([ub.os, ub.os_family, ub.osfinger, ub.lsb_distrib_release], ['Ubuntu', 'Debian', 'Ubuntu-22.04', '22.04']);
  const rhel = osGrains(parseOsRelease('ID=centos\nNAME="CentOS Stream"\nVERSION_ID="9"\n'));
  assert.equal(rhel.osfinger, 'CentOS Stream-9');
  const g = grains();
  for (const k of ['host', 'fqdn', 'kernel', 'cpuarch', 'num_cpus', 'mem_total', 'path', 'saltversion']) assert.ok(k in g, k);
  assert.equal(g.kernel, 'Linux');
  assert.equal(g.saltversion, '3006.0');
});

test('the digest filters (node:crypto loaded on their first use) give the hex digests', () => {
  const t = tree({ 'salt/d.sls': ["d:", '  test.nop:', "    - md5: {{ 'abc' | md5 }}", "    - sha1: {{ 'abc' | sha1 }}", "    - sha256: {{ 'abc' | sha256 }}"].join('\n') });
  const r = renderSls(['d'], t.opts);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(argsOf(r, 'd'), {
    md5: '900150983cd24fb0d6963f7d28e17f72',
    sha1: 'a9993e364706816aba3e25717850c26c9cd0d89d',
    sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    order: 10000,
  });
});
