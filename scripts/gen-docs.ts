// Regenerates the docs pages that come from registries: the diagnostic catalogue and the graph kinds.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { catalogueMarkdown } from '../src/engine/explain.js';

const root = resolve(import.meta.dirname, '..');
writeFileSync(resolve(root, 'docs/diagnostics.md'), catalogueMarkdown());
