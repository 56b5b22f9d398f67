/**
 * Maps a line of Jinja output back to the template line it most likely came from: the same text, or a
 * line whose literal parts around `{{ ... }}` match, nearest to the same line number. Good enough to point
 * a YAML error or an ID at the right source line without instrumenting the template engine.
 *
 * A rendered file may have as many IDs as lines, so a mapper reads both texts once: template lines
 * without `{{` are found by their text (nearest by binary search), template lines with `{{` are tried
 * nearest first and only while they are nearer than the best match so far. A loop that writes many
 * lines from a few template lines, and a template whose lines stay where they were, both map each line
 * in about constant time.
 */

/** The literal parts of a template line around its `{{ ... }}` expressions. */
function partsOf(src: string): string[] {
  return src.split(/\{\{.*?\}\}/);
}

function matchesParts(parts: readonly string[], out: string): boolean {
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

/** The first index of `xs` (ascending) whose value is >= `x`. */
function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((xs[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class RenderedLines {
  private readonly out: string[];
  private readonly count: number;
  /** 0-based template lines by their (trimmed) text. */
  private readonly byText = new Map<string, number[]>();
  /** 0-based template lines holding `{{`, ascending, with their literal parts. */
  private readonly templated: number[] = [];
  private readonly parts: string[][] = [];
  /** Template lines tried for a match (tests use it to check the work stays bounded). */
  tried = 0;

  constructor(source: string, rendered: string) {
    this.out = rendered.split('\n');
    const srcLines = source.split('\n');
    this.count = srcLines.length;
    srcLines.forEach((raw, i) => {
      const src = raw.trimEnd();
      const same = this.byText.get(src);
      if (same) same.push(i);
      else this.byText.set(src, [i]);
      if (src.includes('{{')) {
        this.templated.push(i);
        this.parts.push(partsOf(src));
      }
    });
  }

  /** The 1-based template line that 1-based rendered `line` most likely came from. */
  map(line: number): number {
    const out = (this.out[line - 1] ?? '').trimEnd();
    const want = line - 1;
    const dist = (i: number) => Math.abs(i - want);
    let best = -1;
    // `best` is replaced only by a strictly nearer line, or an equally near one above it (the scan of
    // every line in order kept the first of two equally near lines).
    const consider = (i: number) => {
      if (best < 0 || dist(i) < dist(best) || (dist(i) === dist(best) && i < best)) best = i;
    };
    const same = this.byText.get(out);
    if (same) {
      const k = lowerBound(same, want);
      if (k > 0) consider(same[k - 1] as number);
      if (k < same.length) consider(same[k] as number);
    }
    const t = this.templated;
    let below = lowerBound(t, want);
    let above = below - 1;
    while (above >= 0 || below < t.length) {
      const up = above >= 0 ? want - (t[above] as number) : Infinity;
      const down = below < t.length ? (t[below] as number) - want : Infinity;
      const k = up <= down ? above-- : below++;
      const i = t[k] as number;
      if (best >= 0 && (dist(i) > dist(best) || (dist(i) === dist(best) && i > best))) break;
      this.tried++;
      if (matchesParts(this.parts[k] as string[], out)) {
        consider(i);
        break;
      }
    }
    return best >= 0 ? best + 1 : Math.min(line, this.count);
  }
}

export function mapRenderedLine(source: string, rendered: string, line: number): number {
  return new RenderedLines(source, rendered).map(line);
}
