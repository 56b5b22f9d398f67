/** Loads the Jinja corpus (test/fixtures/jinja/corpus/*.cases) and renders cases with our engine. */

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Environment } from '../../src/lang/jinja/index.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'jinja');

export interface CorpusCase {
  name: string;
  template: string;
  ctx: Record<string, unknown>;
  files: Record<string, string>;
}

export type CaseResult = { out: string } | { error: string };

/** Same format as render.py: `### name {json meta}` headers, the template up to the next header. */
export function loadCorpus(): CorpusCase[] {
  const dir = join(FIXTURES, 'corpus');
  const cases: CorpusCase[] = [];
  for (const fname of readdirSync(dir).filter((f) => f.endsWith('.cases')).sort()) {
    const stem = fname.slice(0, -'.cases'.length);
    let cur: { name: string; meta: Record<string, unknown>; lines: string[] } | null = null;
    const flush = () => {
      if (!cur) return;
      const lines = cur.lines;
      while (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
      let template = lines.join('\n');
      if (cur.meta.nl) template += '\n';
      cases.push({
        name: cur.name,
        template,
        ctx: (cur.meta.ctx as Record<string, unknown>) ?? {},
        files: (cur.meta.files as Record<string, string>) ?? {},
      });
    };
    for (const line of readFileSync(join(dir, fname), 'utf8').split('\n')) {
      if (line.startsWith('### ')) {
        flush();
        const head = line.slice(4).trim();
        const sp = head.indexOf(' ');
        const name = sp < 0 ? head : head.slice(0, sp);
        const meta = sp < 0 ? '' : head.slice(sp + 1).trim();
        cur = { name: `${stem}/${name}`, meta: meta ? (JSON.parse(meta) as Record<string, unknown>) : {}, lines: [] };
      } else cur?.lines.push(line);
    }
    flush();
  }
  return cases;
}

export function renderCase(c: CorpusCase): CaseResult {
  const env = new Environment({ loader: (name) => c.files[name] });
  try {
    return { out: env.render(c.template, c.ctx, `${c.name}.j2`) };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** Compares our result with Jinja2's: equal output, or both failing. Returns a description of a mismatch. */
export function mismatch(c: CorpusCase, want: CaseResult, got: CaseResult): string | undefined {
  if ('error' in want && 'error' in got) return undefined;
  if ('out' in want && 'out' in got && want.out === got.out) return undefined;
  return `${c.name}\n  template: ${JSON.stringify(c.template)}\n  jinja2:   ${JSON.stringify(want)}\n  cairn:    ${JSON.stringify(got)}`;
}
