// Regenerates the docs that come from registries: the diagnostic catalogue, and the tables inside the
// front-end pages (resource kinds, Converge resources, Salt state functions, Otter operations and
// functions, Inmanta's bundled modules).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { catalogueMarkdown } from '../src/engine/explain.js';
import { generatedBlocks, withBlock } from './doc-tables.js';

const root = resolve(import.meta.dirname, '..');
writeFileSync(resolve(root, 'docs/diagnostics.md'), catalogueMarkdown());
for (const block of generatedBlocks()) {
  const file = resolve(root, block.page);
  const page = readFileSync(file, 'utf8');
  const next = withBlock(page, block.name, block.content);
  if (next !== page) writeFileSync(file, next);
}
