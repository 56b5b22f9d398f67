/** Go's text/tabwriter layout as Converge prints node blocks through it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tabwrite } from '../../../src/frontends/converge/tabwriter.js';

test('a block whose tab-ended cells are all empty: each tab is one padding cell', () => {
  const block = 'f1:\n\tMessages:\n\t\tOK\n\tHas Changes: no\n\tChanges: No changes\n\n';
  assert.equal(tabwrite(block), 'f1:\n Messages:\n  OK\n Has Changes: no\n Changes: No changes\n\n');
  assert.equal(tabwrite('\ta\n\t\tb', 2, 3), '   a\n      b');
});

test('a filled cell widens its column for the consecutive lines that share it', () => {
  const block = 'x:\n\tChanges:\n\t\tpath:\t"a"\t=>\t"b"\n\t\tmode:\t"not set"\t=>\t"0644"\n\tEnd\n';
  assert.equal(tabwrite(block), 'x:\n Changes:\n  path: "a"       => "b"\n  mode: "not set" => "0644"\n End\n');
});
