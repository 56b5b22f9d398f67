/** Inventory files (cairn's YAML and Salt rosters) and host patterns. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DiagnosticError, formatDiagnostic } from '../../src/core/diag.js';
import { parseInventory } from '../../src/host/inventory.js';
import { selectHosts } from '../../src/host/targeting.js';

const INVENTORY = `defaults:
  user: deploy
  key: /keys/id_ed25519
  vars: {tier: none}
hosts:
  web1: {address: 10.0.0.1}
  web2:
    address: 10.0.0.2
    port: 2222
    vars: {tier: front}
  db1: {address: 10.0.0.3, user: admin, become: true, jump: bastion}
  bastion: {address: 10.0.0.9}
groups:
  web:
    hosts: [web1, web2]
    vars: {tier: web, role: http}
  db:
    hosts: [db1]
  prod:
    children: [web, db]
    vars: {env: prod, role: any}
`;

function diagsOf(text: string): string[] {
  try {
    parseInventory('inv.yaml', text);
  } catch (e) {
    assert.ok(DiagnosticError.is(e), String(e));
    return e.diagnostics.map((d) => formatDiagnostic(d));
  }
  assert.fail('expected diagnostics');
}

describe('inventory', () => {
  test('hosts get defaults, group vars (parents first) and their own vars', () => {
    const inv = parseInventory('inv.yaml', INVENTORY);
    assert.equal(inv.format, 'cairn');
    assert.deepEqual(
      inv.hosts.map((h) => [h.name, h.address, h.port, h.user, h.key, h.become, h.jump]),
      [
        ['web1', '10.0.0.1', 22, 'deploy', '/keys/id_ed25519', false, undefined],
        ['web2', '10.0.0.2', 2222, 'deploy', '/keys/id_ed25519', false, undefined],
        ['db1', '10.0.0.3', 22, 'admin', '/keys/id_ed25519', true, 'bastion'],
        ['bastion', '10.0.0.9', 22, 'deploy', '/keys/id_ed25519', false, undefined],
      ],
    );
    const web1 = inv.hosts[0];
    assert.deepEqual(web1?.groups, ['prod', 'web']);
    assert.deepEqual(web1?.vars, { tier: 'web', env: 'prod', role: 'http' });
    assert.deepEqual(inv.hosts[1]?.vars, { tier: 'front', env: 'prod', role: 'http' });
  });

  test('a Salt roster is told apart by its shape', () => {
    const inv = parseInventory('roster', 'minion1:\n  host: 192.0.2.1\n  user: salt\n  priv: /k/salt\n  sudo: True\nminion2:\n  host: 192.0.2.2\n  port: 2200\n  thin_dir: /tmp\n');
    assert.equal(inv.format, 'salt-roster');
    assert.deepEqual(
      inv.hosts.map((h) => [h.name, h.address, h.port, h.user, h.key, h.become]),
      [
        ['minion1', '192.0.2.1', 22, 'salt', '/k/salt', true],
        ['minion2', '192.0.2.2', 2200, 'root', undefined, false],
      ],
    );
  });

  test('malformed inventories are positioned diagnostics', () => {
    assert.deepEqual(diagsOf('hosts:\n  web1: {port: http}\n'), ['inv.yaml:2:16: INV002 port: expected a port number from 1 to 65535, found string "http"']);
    assert.deepEqual(diagsOf('hosts:\n  web1:\n    adress: x\n'), ['inv.yaml:3:5: INV003 unknown key "adress" (expected one of address, port, user, key, become, jump, connection, vars)']);
    assert.deepEqual(diagsOf('hosts: {a: {}}\ngroups:\n  g: {hosts: [a, b]}\n'), ['inv.yaml:3:18: INV004 group "g": unknown host "b"']);
    assert.deepEqual(diagsOf('hosts:\n  a: {address: [x\n'), [
      'inv.yaml:3:1: INV005 invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
      'inv.yaml:3:1: INV005 invalid YAML: Flow map in block collection must be sufficiently indented and end with a }',
    ]);
    assert.deepEqual(diagsOf('m1:\n  host: h\n  passwd: secret\n'), ['inv.yaml:3:3: INV006 passwd: cairn does not log in with passwords or decrypt keys; use a key file or ssh-agent']);
    assert.deepEqual(diagsOf('groups:\n  a: {children: [b]}\n  b: {children: [a]}\n'), ['inv.yaml:2:6: INV007 groups contain themselves: a → b → a']);
    assert.deepEqual(diagsOf('servers:\n  - a\n'), ['inv.yaml:1:1: INV001 not an inventory: expected hosts: (cairn inventory) or ID: {host: …} entries with a host each (Salt roster)']);
  });
});

describe('host patterns', () => {
  const inv = parseInventory('inv.yaml', INVENTORY);
  const names = (p: string): string[] => selectHosts(inv, p).map((h) => h.name);
  test('names, globs, groups, unions, exclusions and intersections', () => {
    assert.deepEqual(names('all'), ['web1', 'web2', 'db1', 'bastion']);
    assert.deepEqual(names('web2,db1'), ['web2', 'db1']);
    assert.deepEqual(names('web*'), ['web1', 'web2']);
    assert.deepEqual(names('prod'), ['web1', 'web2', 'db1']);
    assert.deepEqual(names('prod,!web1'), ['web2', 'db1']);
    assert.deepEqual(names('prod,&web'), ['web1', 'web2']);
    assert.deepEqual(names('!db'), ['web1', 'web2', 'bastion']);
    assert.deepEqual(names('*[12]'), ['web1', 'web2', 'db1']);
  });
  test('an unknown name and a glob matching nothing are errors', () => {
    assert.throws(() => names('web3'), { message: 'unknown host or group "web3" in inv.yaml (it has web1, web2, db1, bastion, web, db, prod)' });
    assert.throws(() => names('cache*'), { message: 'pattern "cache*" matches no host or group in inv.yaml' });
  });
});
