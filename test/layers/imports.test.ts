// Fails when a source file imports against the layer direction of DESIGN.md:
// cli → frontends → lang → core; frontends → resources → host; store → core; front ends never import each other.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = resolve(import.meta.dirname, '../../src');

const ALLOWED: Record<string, readonly string[]> = {
  core: ['core'],
  lang: ['lang', 'core'],
  host: ['host', 'core'],
  resources: ['resources', 'host', 'core'],
  store: ['store', 'core'],
  frontends: ['frontends', 'lang', 'resources', 'host', 'core'],
  web: ['web', 'store', 'core'],
  engine: ['engine', 'frontends', 'lang', 'resources', 'host', 'store', 'core'],
  cli: ['cli', 'engine', 'frontends', 'lang', 'resources', 'host', 'store', 'core', 'web'],
};

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) files(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

function layerOf(file: string): { layer: string; frontend?: string } {
  const parts = relative(SRC, file).split('/');
  return parts[0] === 'frontends' && parts.length > 2 ? { layer: 'frontends', frontend: parts[1] } : { layer: parts[0] ?? '' };
}

export function violations(srcFiles: readonly string[], read: (f: string) => string): string[] {
  const bad: string[] = [];
  const importRe = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const file of srcFiles) {
    const from = layerOf(file);
    for (const m of read(file).matchAll(importRe)) {
      const spec = m[1] ?? m[2] ?? '';
      if (!spec.startsWith('.')) continue;
      const to = layerOf(resolve(dirname(file), spec));
      const rel = relative(SRC, file);
      if (!(ALLOWED[from.layer] ?? []).includes(to.layer)) bad.push(`${rel}: ${from.layer} may not import ${to.layer} (${spec})`);
      else if (from.frontend && to.frontend && from.frontend !== to.frontend) bad.push(`${rel}: front end ${from.frontend} may not import front end ${to.frontend} (${spec})`);
    }
  }
  return bad;
}

test('every import in src/ follows the layer direction', () => {
  const all = files(SRC);
  assert.ok(all.length > 10, 'found the source files');
  assert.deepEqual(violations(all, (f) => readFileSync(f, 'utf8')), []);
});

test('the check catches an import against the direction and between front ends', () => {
  const fake: Record<string, string> = {
    [join(SRC, 'core/x.ts')]: "import { a } from '../cli/main.js';",
    [join(SRC, 'frontends/salt/y.ts')]: "import { b } from '../converge/z.js';\nexport { c } from '../../lang/jinja/index.js';",
    [join(SRC, 'resources/r.ts')]: "const m = await import('../store/index.js');",
  };
  assert.deepEqual(violations(Object.keys(fake), (f) => fake[f] ?? ''), [
    'core/x.ts: core may not import cli (../cli/main.js)',
    'frontends/salt/y.ts: front end salt may not import front end converge (../converge/z.js)',
    'resources/r.ts: resources may not import store (../store/index.js)',
  ]);
});
