// State tags split as Salt's `tag.split('_|-')` splits them, for the record and the highstate outputter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tagParts, tagType } from '../../../src/frontends/salt/tag.js';

test('tagParts gives the parts split() gives, for whole, short and odd tags', () => {
  const tags = ['file_|-f1_|-/tmp/f1_|-managed', 'cmd_|-a_|-echo _|- x_|-run', 'test_|-x', 'plain', '', 'a_|-_|-_|-', '_|-_|-_|-_|-_|-', 'no_|-states_|-states_|-None'];
  for (const tag of tags) {
    const p = tag.split('_|-');
    assert.deepEqual(tagParts(tag), { state: p[0] ?? '', id: p[1] ?? '', name: p[2] ?? '', fourth: p[3] ?? '', last: p[p.length - 1] ?? '' }, tag);
  }
  assert.deepEqual(tagParts('cmd_|-a_|-echo _|- x_|-run'), { state: 'cmd', id: 'a', name: 'echo ', fourth: ' x', last: 'run' });
});

test('tagParts gives what split() gives for every tag of up to 7 characters of _, |, - and x (separators next to each other, at the ends, up to two more than four parts)', () => {
  const chars = ['_', '|', '-', 'x'];
  let tags = [''];
  for (let len = 1; len <= 7; len++) {
    tags = tags.flatMap((t) => chars.map((c) => t + c));
    for (const tag of tags) {
      const p = tag.split('_|-');
      assert.deepEqual(tagParts(tag), { state: p[0] ?? '', id: p[1] ?? '', name: p[2] ?? '', fourth: p[3] ?? '', last: p[p.length - 1] ?? '' }, tag);
    }
  }
  const many = 'a_|-b_|-c_|-d_|-e_|-f';
  assert.deepEqual(tagParts(many), { state: 'a', id: 'b', name: 'c', fourth: 'd', last: 'f' });
});

test('tagType is the state and fourth part of tagParts, for whole, short and odd tags', () => {
  const tags = ['file_|-f1_|-/tmp/f1_|-managed', 'cmd_|-a_|-echo _|- x_|-run', 'test_|-x', 'a_|-b_|-c', 'plain', '', 'a_|-_|-_|-', '_|-_|-_|-_|-_|-', 'no_|-states_|-states_|-None'];
  for (const tag of tags) {
    const p = tagParts(tag);
    assert.equal(tagType(tag), `${p.state}.${p.fourth}`, tag);
  }
  assert.equal(tagType('cmd_|-a_|-echo _|- x_|-run'), 'cmd. x');
  assert.equal(tagType('file_|-f1_|-/tmp/f1_|-managed'), 'file.managed');
});
