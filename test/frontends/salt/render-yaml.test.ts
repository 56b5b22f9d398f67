// The fast SLS YAML reader agrees with the full parser wherever it answers, and gives up elsewhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fastLoad } from '../../../src/frontends/salt/render/yaml-fast.js';
import { renderSls } from '../../../src/frontends/salt/render/index.js';
import { loadSlow, resolvePlain } from '../../../src/frontends/salt/render/yaml-load.js';
import { tree } from './render-helpers.js';

const ANSWERED = [
  'a:\n  file.managed:\n    - name: /etc/x\n    - mode: 0644\n    - makedirs: yes\n    - contents: "a \\"q\\" b"\n',
  'pkgs:\n  pkg.installed:\n    - names:\n      - vim\n      - curl\n    - require:\n      - file: a\n',
  'x:\n  test.nop: []\ny: {}\nz: ~\nw: [a, 1, on]\n',
  "k:\n- 1\n- 'it''s'\n- 1.5\n- -3\n",
  '/etc/motd:\n  file.managed:\n  - contents: hello world\n',
  // Quoted keys, an item with only spaces after its dash, lines without ': ' between ones with it.
  '"a b": 1\n\'c d\':\n  -   \n    - x\n  - y\n  -    z: 1\n       w: 2\ne:\n  - f\n  - g\nh: i\n',
  '',
  // Quoted scalars with what only looks special inside, a plain one with a colon not followed by a space.
  'a: "x: y"\nb: c:d\nd: \'x"y\'\ne: "it\'s"\nf: "a\u00e9 b"\ng: :x\n',
  // Lines that start like document markers without being one.
  'a:\n  - -x\n  - --y\n  - ..z\n--b: 1\n..c: 2\n',
];
const REFUSED = ['a: &x 1\nb: *x\n', 'a: |\n  text\n', 'a: 1 # c\n', 'a: 1\na: 2\n', 'a:\n\tb: 1\n', 'a: b: c\n', 'a:\n  - - 1\n', 'a: "\\x41"\n', 'a : 1\n', 'a: \u00a01\n', 'a: 1\u00a0\n', '\u00a0a: 1\n', '- x\n- y :\n', 'a:\n  b: 1\n  b: 2\n', 'x:\n  y: 1\nz: 2\nx:\n  y: 1\n', 'true: 1\n"true": 2\n', 'a: "x\u0001"\n', 'a: "x\\\\y"\n', "a: 'x'y'\n", 'a: x: y\n', 'a: -x: 1\n', 'a: 1\n---\nb: 2\n', 'a: 1\n...\n', '%YAML 1.1\n---\na: 1\n', 'a:\n  ---\n'];

test('fast and full YAML readers give the same data and top keys', () => {
  for (const text of ANSWERED) {
    const fast = fastLoad(text, resolvePlain);
    assert.ok(fast, `fast reader answered: ${JSON.stringify(text)}`);
    const slow = loadSlow(text);
    assert.ok(slow.ok);
    assert.deepEqual(fast.data ?? {}, slow.data, text);
    assert.deepEqual(fast.topKeys, slow.topKeys, text);
    assert.equal(fast.entries, undefined, text);
    // Asked for its entries, a mapping comes as a Map of them instead: one per top key, in their order,
    // the very data the object holds.
    const asEntries = fastLoad(text, resolvePlain, true);
    assert.ok(asEntries, text);
    const data = fast.data as Record<string, unknown> | null;
    if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
      assert.ok(asEntries.entries, text);
      assert.equal(asEntries.data, undefined, text);
      assert.deepEqual([...asEntries.entries.keys()], asEntries.topKeys.map((k) => k.key), text);
      assert.deepEqual(Object.fromEntries(asEntries.entries), data, text);
    } else {
      assert.equal(asEntries.entries, undefined, text);
      assert.deepEqual(asEntries.data, fast.data, text);
    }
  }
});

test('an SLS read by the fast reader and one the full parser reads render the same declarations in the same order', () => {
  const ids = (text: string) => {
    const t = tree({ 'salt/x.sls': text });
    const r = renderSls(['x'], t.opts);
    assert.deepEqual(r.errors, []);
    return JSON.stringify(r.high.states);
  };
  const body = 'b:\n  test.nop: []\n"true":\n  test.nop: []\na:\n  test.nop:\n    - name: x\n';
  assert.ok(fastLoad(body, resolvePlain, true)?.entries);
  // An anchor makes the fast reader give up: the same data from the full parser.
  const anchored = body.replace('- name: x', '- name: &n x');
  assert.equal(fastLoad(anchored, resolvePlain), undefined);
  assert.equal(ids(body), ids(anchored));
  assert.deepEqual(Object.keys(JSON.parse(ids(body))), ['b', 'true', 'a']);
});

test('the fast reader gives up on anything it does not fully handle', () => {
  for (const text of REFUSED) {
    assert.equal(fastLoad(text, resolvePlain), undefined, JSON.stringify(text));
    // A repeated top key too when the entries go into a Map.
    assert.equal(fastLoad(text, resolvePlain, true), undefined, JSON.stringify(text));
  }
});

test('plain scalars of every first character resolve as the full parser reads them', () => {
  const scalars = ['~', 'null', 'Null', 'nil', 'no', 'No', 'nO', 'yes', 'y', 'Y', 'true', 'True', 'tRue', 'on', 'ON', 'oN', 'off', 'false', 'F', '0', '00', '0644', '-0644', '+12', '1_000', '0x1F', '0b101', '1:30', '-1:30', '1.5', '.5', '1e3', '1.0e+3', '-.inf', '.NaN', '.', '+', 'abc', 'Zeta', '_x', '/etc/x', 'é', '2024-01-02', '=', '<<'];
  for (const s of scalars) {
    const slow = loadSlow(`k: ${s}\n`);
    if (!slow.ok) continue;
    const want = (slow.data as Record<string, unknown>).k;
    assert.deepEqual(resolvePlain(s), want, s);
  }
});
