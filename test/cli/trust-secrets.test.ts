/** A planted secret never reaches any output, stderr, or file under the state dir. */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir } from './cli-helpers.js';

const SECRETS = ['PLANTED-from-file-7f3a', 'PLANTED-from-env-91bc', 'PLANTED-flagged-c0de', 'PLANTED-old-5e5e'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

function assertClean(what: string, text: string): void {
  for (const s of SECRETS) assert.ok(!text.includes(s), `${what} shows the secret ${s}:\n${text}`);
}

test('$secret values (env, file), secret nodes and what flows from them are never printed or stored', () => {
  const dir = tempDir();
  const out = join(dir, 'out');
  mkdirSync(out);
  writeFileSync(join(dir, 'pw.txt'), SECRETS[0]!);
  writeFileSync(join(out, 'conf'), `password=${SECRETS[3]}\n`);
  const graph = join(dir, 'graph.json');
  writeFileSync(
    graph,
    JSON.stringify({
      version: 1,
      nodes: [
        { id: 'conf', type: 'file', params: { path: join(out, 'conf'), content: { $concat: ['password=', { $secret: { file: 'pw.txt' } }, '\n'] } } },
        { id: 'env', type: 'file', params: { path: join(out, 'env'), content: { $secret: { env: 'CAIRN_TEST_SECRET' } } } },
        { id: 'flag', type: 'file', secret: true, params: { path: join(out, 'flag'), content: `${SECRETS[2]}\n` } },
        { id: 'copy', type: 'file', params: { path: join(out, 'copy'), content: { $ref: 'env', field: 'content' } } },
      ],
    }),
  );
  const state = join(dir, 'state');
  const env = { CAIRN_TEST_SECRET: SECRETS[1]! };
  const runs = [
    ['plan', graph, '--state-dir', state],
    ['plan', graph, '--state-dir', state, '--out', 'json'],
    ['apply', graph, '--state-dir', state],
    ['history', '--state-dir', state],
    ['history', '2', '--state-dir', state],
    ['history', '3', '--state-dir', state, '--out', 'json'],
  ];
  for (const args of runs) {
    const r = cairn(args, { env });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assertClean(`${args.join(' ')} stdout`, r.stdout);
    assertClean(`${args.join(' ')} stderr`, r.stderr);
  }
  // The files were written with the secrets: they are hidden, not lost.
  assert.equal(readFileSync(join(out, 'conf'), 'utf8'), `password=${SECRETS[0]}\n`);
  assert.equal(readFileSync(join(out, 'env'), 'utf8'), SECRETS[1]);
  assert.equal(readFileSync(join(out, 'copy'), 'utf8'), SECRETS[1]);
  const apply = cairn(['history', '3', '--state-dir', state], { env });
  assert.match(apply.stdout, /^ {4}diff: secret content changed: sha256 [0-9a-f]{12}… → [0-9a-f]{12}…$/m);
  for (const f of filesUnder(state)) assertClean(f, readFileSync(f, 'utf8'));
});

test('a secret that cannot be read, or written wrong, is a positioned diagnostic that does not quote it', () => {
  const dir = tempDir();
  const graph = join(dir, 'graph.json');
  writeFileSync(
    graph,
    `{"version": 1, "nodes": [\n  {"id": "a", "type": "file", "params": {"path": "${join(dir, 'a')}", "content": {"$secret": {"env": "CAIRN_TEST_UNSET_VAR"}}}},\n  {"id": "b", "type": "file", "secret": "yes", "params": {"path": "${join(dir, 'b')}", "content": {"$secret": {"file": "nope.txt", "env": "X"}}}}\n]}\n`,
  );
  const r = cairn(['apply', graph, '--state-dir', join(dir, 'state')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /graph\.json:2:\d+: F015 the secret's environment variable CAIRN_TEST_UNSET_VAR is not set/);
  assert.match(r.stderr, /graph\.json:3:\d+: F016 node "b": "secret" must be true or false/);
  assert.match(r.stderr, /graph\.json:3:\d+: F014 a secret is written/);
  assert.deepEqual(readdirSync(dir).sort(), ['graph.json']);
});

test('Salt show_changes: False prints as Salt does and keeps no diff in the run store', () => {
  const dir = tempDir();
  const root = join(dir, 'srv');
  mkdirSync(root);
  const conf = join(dir, 'conf');
  writeFileSync(conf, `password=${SECRETS[3]}\n`);
  writeFileSync(join(root, 'site.sls'), `conf:\n  file.managed:\n    - name: ${conf}\n    - contents: password=${SECRETS[0]}\n    - show_changes: False\n`);
  const state = join(dir, 'state');
  const r = cairn(['salt', 'state.apply', 'site', '--file-root', root, '--state-dir', state]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ {14}diff:\n {18}<show_changes=False>$/m);
  assertClean('salt stdout', r.stdout);
  assert.equal(readFileSync(conf, 'utf8'), `password=${SECRETS[0]}\n`);
  const record = JSON.parse(readFileSync(join(state, 'runs', '1.json'), 'utf8'));
  // The record keeps Salt's placeholder, never the diff.
  assert.equal(record.results[0].changes.diff, '<show_changes=False>');
  for (const f of filesUnder(state)) assertClean(f, readFileSync(f, 'utf8'));
});
