/**
 * What a Zapusk run prints, line for line as zapusk-tool does: `*** message` lines indented two spaces
 * per nested program, warnings kept for the summary, step output between colour codes. Colour only on a
 * terminal (and never with NO_COLOR): a log file or a pipe gets plain text.
 */

/** One change a run made, for the list at its end. */
export interface Change {
  readonly kind: 'wrote' | 'removed' | 'restored' | 'ran';
  /** A path, or a command. */
  readonly what: string;
  /** `component [step] in global_name`. */
  readonly where: string;
  readonly failed?: boolean;
}

export interface OutputOptions {
  readonly write: (text: string) => void;
  readonly color: boolean;
  /** Quiet: nothing is printed (JSON output prints the record at the end instead). */
  readonly quiet: boolean;
  /** --changes-only: a dry run leaves out the files it would leave as they are, and counts them. */
  readonly changesOnly?: boolean;
}

const CYAN = '\x1b[96m';
const GREEN = '\x1b[32m';
const RESET = '\x1b[0m';

export class Printer {
  readonly warnings: string[] = [];
  /** Lines of things left as they are that --changes-only did not print. */
  private hidden = 0;

  constructor(private readonly o: OutputOptions) {}

  info(padding: string, message: string): void {
    this.line(this.o.color ? `${CYAN}${padding}*** ${message}${RESET}` : `${padding}*** ${message}`);
  }

  warning(padding: string, message: string): void {
    this.warnings.push(message);
    this.line(`${padding}*** WARNING: ${message}`);
  }

  /**
   * A step's command starts writing: zapusk-tool lets the command write to its own terminal between a
   * colour switch and a reset, so output is shown live and unchanged (a nested zapusk run indents its
   * own lines from ZAPUSK_PADDING).
   */
  streamBegin(line = false): void {
    if (!this.o.quiet && (this.o.color || line)) this.o.write(`${this.o.color ? GREEN : ''}${line ? '\n' : ''}`);
  }

  /** A piece of a step's stdout, as it came. */
  streamChunk(text: string): void {
    if (!this.o.quiet && text !== '') this.o.write(text);
  }

  /** `line`: the colour switches on lines of their own, as zapusk-tool prints them around a deferred task. */
  streamEnd(line = false): void {
    if (!this.o.quiet && (this.o.color || line)) this.o.write(`${this.o.color ? RESET : ''}${line ? '\n' : ''}`);
  }

  /** A dry run's line for one change it would make, with detail lines (a diff) under it. */
  planned(padding: string, c: Change, detail: readonly string[] = []): void {
    const verb = { wrote: 'would write', removed: 'would remove', restored: 'would restore', ran: 'would run' }[c.kind];
    this.info(padding, `${verb} ${c.what} (${c.where})`);
    for (const d of detail) this.line(`${padding}    ${d}`);
  }

  /** A dry run's line for something it would leave as it is: left out, and counted, with --changes-only. */
  unchanged(padding: string, message: string): void {
    if (this.o.changesOnly) this.hidden++;
    else this.info(padding, message);
  }

  /** A dry run's count line. */
  planSummary(list: readonly Change[], padding = ''): void {
    const n = (kind: Change['kind']): number => list.filter((c) => c.kind === kind).length;
    if (this.o.changesOnly) this.info(padding, `${this.hidden} unchanged not shown (--changes-only)`);
    this.info(padding, `Plan: ${n('wrote')} to write, ${n('removed')} to remove, ${n('restored')} to restore, ${n('ran')} to run; nothing was changed.`);
  }

  /**
   * Ours, not zapusk-tool's: what the run changed, one line each (files written, removed or restored,
   * commands run), then one line of counts.
   */
  changes(list: readonly Change[], padding = ''): void {
    // One line each: a multi-line command shows its line breaks as \n.
    for (const c of list) this.info(padding, `${c.kind} ${c.what.replace(/\n/g, '\\n')} (${c.where})`);
    const count = (kind: Change['kind'], one: string, many = `${one}s`): string => {
      const n = list.filter((c) => c.kind === kind).length;
      return `${n} ${n === 1 ? one : many}`;
    };
    const failed = list.filter((c) => c.failed).length;
    this.info(padding, `Summary: ${count('wrote', 'file written', 'files written')}, ${count('removed', 'removed', 'removed')}, ${count('restored', 'restored', 'restored')}, ${count('ran', 'command run', 'commands run')}, ${failed} failed.`);
  }

  /** zapusk-tool's closing summary: warnings (and the error), then the Achievements line. */
  summary(seconds: number, error?: string, padding = ''): void {
    const extra = [...this.warnings, ...(error !== undefined ? [`ERROR: ${error}`] : [])];
    if (extra.length === 1) this.info(padding, extra[0] as string);
    else extra.forEach((e, i) => this.info(padding, `${i + 1}. ${e}`));
    const parts = [`runtime ${seconds.toFixed(3)} seconds`, `${this.warnings.length} warnings`, ...(error !== undefined ? ['1 error'] : [])];
    this.info(padding, `Achievements: ${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}.`);
  }

  private line(text: string): void {
    if (!this.o.quiet) this.o.write(`${text}\n`);
  }
}
