// Builds throwaway Salt trees (file_roots, pillar_roots) in a temp dir for the render tests, and the bare
// translate context of the tests that run chunks without a tree.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TranslateContext } from '../../../src/frontends/salt/states/index.js';
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

/** A translate context with no file roots and no pillar, run as root: for chunks that read no files. */
export const translate: TranslateContext = {
  opts: { fileRoots: [], pillarRoots: [], minionId: 'm' },
  pillar: () => ({}),
  renderTemplate: (t) => t,
  resolveUrl: () => ({ error: 'no file roots' }),
  readText: () => '',
  isRoot: true,
};
