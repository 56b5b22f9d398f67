/**
 * File diffs as Salt prints them: a unified diff like Python's difflib (empty file names after `---` and
 * `+++`, ranges without `,1`), or a fixed phrase for binary content. The diff library is loaded only
 * when a diff is actually needed: most runs change nothing and must start fast.
 */

function looksBinary(data: Uint8Array): boolean {
  const n = Math.min(data.length, 8000);
  for (let i = 0; i < n; i++) if (data[i] === 0) return true;
  return false;
}

function range(start: number, length: number): string {
  if (length === 1) return String(start);
  return `${length === 0 ? start - 1 : start},${length}`;
}

export async function unifiedDiff(before: Uint8Array, after: Uint8Array): Promise<string> {
  if (looksBinary(before) || looksBinary(after)) return 'Replace binary file';
  const { structuredPatch } = await import('diff');
  const oldText = Buffer.from(before).toString('utf8');
  const newText = Buffer.from(after).toString('utf8');
  const patch = structuredPatch('', '', oldText, newText, '', '', { context: 3 });
  let out = '--- \n+++ \n';
  for (const h of patch.hunks) {
    out += `@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@\n`;
    for (const line of h.lines) out += `${line}\n`;
  }
  return out;
}
