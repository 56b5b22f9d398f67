// Compiles the TypeScript of src/, test/ and scripts/ once for a test run (scripts/run-tests.mjs) into a
// temporary copy of the tree, so no test process needs a TypeScript loader. Each file is compiled on its
// own (no bundling; imports stay as written, `./x.js` finds the compiled x.ts beside it), with its
// import.meta.url, dirname and filename set to the .ts file's, so a test reads fixtures and finds dist/
// where they are. The copy's node_modules is the tree's. Source maps point at the .ts files.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';

/** The folders compiled, and the folder inside them that holds only test data. */
const TREES = ['src', 'test', 'scripts'];
const SKIP = new Set(['node_modules', 'test/fixtures']);

function walk(root, dir, keep, out) {
  for (const name of readdirSync(join(root, dir)).sort()) {
    const rel = dir ? `${dir}/${name}` : name;
    if (SKIP.has(rel) || name === 'node_modules') continue;
    if (statSync(join(root, rel)).isDirectory()) walk(root, rel, keep, out);
    else if (keep(rel)) out.push(rel);
  }
  return out;
}

/** Every test file (`test/**\/*.test.ts`, fixture folders left out), relative to the root, sorted. */
export function testFiles(root) {
  return walk(root, 'test', (f) => f.endsWith('.test.ts') && !f.split('/').includes('fixtures'), []);
}

/**
 * Compiles the trees into a fresh folder under `base` (the system's temporary folder by default). `unmap`
 * turns paths into the copy back into the .ts files they came from; `remove` deletes the copy.
 */
export async function buildTests(root, base = tmpdir()) {
  const dir = mkdtempSync(join(base, 'cairn-tests-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    const sources = TREES.flatMap((t) => walk(root, t, (f) => f.endsWith('.ts') && !f.endsWith('.d.ts'), []));
    const made = new Set();
    await Promise.all(
      sources.map(async (rel) => {
        const file = join(root, rel);
        const out = join(dir, rel.replace(/\.ts$/, '.js'));
        const r = await transform(readFileSync(file, 'utf8'), {
          loader: 'ts',
          format: 'esm',
          platform: 'node',
          target: 'node20',
          sourcemap: 'inline',
          sourcefile: file,
          define: {
            'import.meta.url': JSON.stringify(pathToFileURL(file).href),
            'import.meta.dirname': JSON.stringify(dirname(file)),
            'import.meta.filename': JSON.stringify(file),
          },
        });
        const folder = dirname(out);
        if (!made.has(folder)) {
          mkdirSync(folder, { recursive: true });
          made.add(folder);
        }
        writeFileSync(out, r.code);
      }),
    );
  } catch (e) {
    remove();
    throw e;
  }
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // The copy's absolute path (or file URL), or the same path relative to the tree (the runner's summary).
  const inCopy = new RegExp(`(file://)?(?:${escape(dir)}|${escape(relative(root, dir))})/([^\\s:)'"]+?)\\.js\\b`, 'g');
  return {
    dir,
    remove,
    unmap: (text) => text.replace(inCopy, (_, url, rel) => `${url ?? ''}${join(root, rel)}.ts`),
  };
}
