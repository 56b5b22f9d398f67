/** Sensitive values (credential secrets, sensitive variables): masked wherever a log line would show them. */
export const MASK = '********';

export class Secrets {
  private readonly values = new Set<string>();

  add(value: string): void {
    if (value !== '') this.values.add(value);
  }

  get size(): number {
    return this.values.size;
  }

  /** The text with every known secret replaced by the mask (longest first, so that one secret inside another is masked whole). */
  mask(text: string): string {
    if (this.values.size === 0) return text;
    let out = text;
    for (const v of [...this.values].sort((a, b) => b.length - a.length)) out = out.split(v).join(MASK);
    return out;
  }
}
