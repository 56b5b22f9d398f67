// Builds throwaway Salt trees (file_roots, pillar_roots) in a temp dir for the render tests.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SaltOptions } from '../../../src/frontends/salt/types.js';
import { tempDir } from '../../cli/cli-helpers.js';

export interface Tree {
  dir: string;
  opts: SaltOptions;
}

/** `files` maps paths under the temp dir (`salt/top.sls`, `pillar/top.sls`) to their text. */
export function tree(files: Record<string, string>, extra: Partial<SaltOptions> = {}): Tree {
  const dir = tempDir('cairn-salt-render-');
  mkdirSync(join(dir, 'salt'), { recursive: true });
  mkdirSync(join(dir, 'pillar'), { recursive: true });
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return { dir, opts: { fileRoots: [join(dir, 'salt')], pillarRoots: [join(dir, 'pillar')], minionId: 'web1', ...extra } };
}
