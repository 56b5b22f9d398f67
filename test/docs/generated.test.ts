/** The docs pages' generated tables are the registries' (`npm run docs` rewrites them). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { blockIn, generatedBlocks, withBlock } from '../../scripts/doc-tables.js';
import { kinds } from '../../src/resources/index.js';
import { ROOT } from '../cli/cli-helpers.js';

for (const block of generatedBlocks()) {
  test(`${block.page} holds the ${block.name} generated from the registry`, () => {
    const page = readFileSync(join(ROOT, block.page), 'utf8');
    const found = blockIn(page, block.name);
    assert.notEqual(found, undefined, `${block.page} has the markers of its ${block.name}`);
    assert.equal(found, block.content, `${block.page} is out of date: run npm run docs`);
  });
}

test('the resource kinds table names every kind and marks optional params', () => {
  const table = generatedBlocks().find((b) => b.name === 'resource kinds')?.content ?? '';
  for (const type of kinds.keys()) assert.match(table, new RegExp(`^\\| \`${type}\` \\|`, 'm'));
  assert.match(table, /^\| `symlink` \| `path`, `target`, `force\?`, `makedirs\?` \|$/m);
});

test('a block is replaced in place, or appended with its markers', () => {
  const page = 'intro\n<!-- t: generated -->\nold\n<!-- end of t -->\nafter\n';
  assert.equal(withBlock(page, 't', 'new\nrows'), 'intro\n<!-- t: generated -->\nnew\nrows\n<!-- end of t -->\nafter\n');
  assert.equal(withBlock('intro\n', 't', 'x'), 'intro\n\n<!-- t: generated -->\nx\n<!-- end of t -->\n');
  assert.equal(blockIn('no markers', 't'), undefined);
  assert.equal(withBlock('<!-- t: generated -->\n<!-- end of t -->\n', 't', 'x'), '<!-- t: generated -->\nx\n<!-- end of t -->\n');
});
