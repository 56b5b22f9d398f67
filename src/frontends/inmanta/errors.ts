/** Compiler errors named after the real compiler's exception classes, so users can search for them. */
import { type Diagnostic, error, type Span } from '../../core/diag.js';

export type ErrorKind =
  | 'DoubleSetException'
  | 'AttributeException'
  | 'OptionalValueException'
  | 'UnsetException'
  | 'NotFoundException'
  | 'TypeNotFoundException'
  | 'TypingException'
  | 'DuplicateException'
  | 'KeyException'
  | 'IndexException'
  | 'HyphenException'
  | 'ParserException'
  | 'MultiException'
  | 'ModuleNotFoundException'
  | 'RuntimeException';

export class InmantaError extends Error {
  readonly isInmantaError = true;
  constructor(
    readonly kind: ErrorKind,
    readonly msg: string,
    public span?: Span,
    readonly causes: readonly InmantaError[] = [],
  ) {
    super(msg);
    this.name = kind;
  }
  static is(e: unknown): e is InmantaError {
    return typeof e === 'object' && e !== null && (e as { isInmantaError?: unknown }).isInmantaError === true;
  }
  /** Keeps the first location: the innermost statement that knows where it is wins, as in the real compiler. */
  at(span: Span | undefined): this {
    if (!this.span && span) this.span = span;
    return this;
  }
  toDiagnostics(): Diagnostic[] {
    if (this.kind === 'MultiException') return this.causes.flatMap((c) => c.toDiagnostics());
    return [error(this.kind, this.msg, { span: this.span })];
  }
}

export function where(span: Span | undefined): string {
  return span ? `${span.file}:${span.line}` : '<unknown>';
}
