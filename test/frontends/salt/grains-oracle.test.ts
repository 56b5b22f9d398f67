// Grains made from a machine's facts against the grains real Salt 3006.0 reported on that machine.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { grainsFromFacts } from '../../../src/frontends/salt/render/grains.js';
import { parseFacts } from '../../../src/host/facts.js';

const DIR = join(import.meta.dirname, '../../fixtures/salt/grains');

/** Grains where cairn differs from this Salt, each listed with its reason in docs/salt.md. */
const KNOWN_DIFFERENT = new Set(['ip4_interfaces', 'init']);

test('grains from the facts script match the grains real Salt reported on the same machine', () => {
  const real = JSON.parse(readFileSync(join(DIR, 'grains-items.json'), 'utf8')) as Record<string, unknown>;
  const mine = grainsFromFacts(parseFacts(readFileSync(join(DIR, 'facts.out'), 'utf8')));
  const compared = Object.keys(real).filter((k) => !KNOWN_DIFFERENT.has(k));
  assert.ok(compared.length >= 25, 'most grains are compared');
  assert.deepEqual(Object.fromEntries(compared.map((k) => [k, mine[k]])), Object.fromEntries(compared.map((k) => [k, real[k]])));
  // Interfaces with IPv4 addresses are Salt's; Salt also lists interfaces that have none (as []).
  const ifaces = real.ip4_interfaces as Record<string, string[]>;
  assert.deepEqual(mine.ip4_interfaces, Object.fromEntries(Object.entries(ifaces).filter(([, a]) => a.length > 0)));
});
