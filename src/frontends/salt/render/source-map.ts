/**
 * Maps a line of Jinja output back to the template line it most likely came from: the same text, or a
 * line whose literal parts around `{{ ... }}` match, nearest to the same line number. Good enough to point
 * a YAML error or an ID at the right source line without instrumenting the template engine.
 */

function matches(src: string, out: string): boolean {
  if (src === out) return true;
  if (!src.includes('{{')) return false;
  const parts = src.split(/\{\{.*?\}\}/);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] ?? '';
    if (i === 0) {
      if (!out.startsWith(p)) return false;
      at = p.length;
    } else if (i === parts.length - 1) {
      if (!out.endsWith(p) || out.length - p.length < at) return false;
    } else {
      const j = out.indexOf(p, at);
      if (j < 0) return false;
      at = j + p.length;
    }
  }
  return true;
}

export function mapRenderedLine(source: string, rendered: string, line: number): number {
  const out = (rendered.split('\n')[line - 1] ?? '').trimEnd();
  const srcLines = source.split('\n');
  let best = -1;
  for (let i = 0; i < srcLines.length; i++) {
    if (!matches((srcLines[i] ?? '').trimEnd(), out)) continue;
    if (best < 0 || Math.abs(i + 1 - line) < Math.abs(best + 1 - line)) best = i;
  }
  return best >= 0 ? best + 1 : Math.min(line, srcLines.length);
}
