/** Compiler errors named after the real compiler's exception classes, so users can search for them. */
import { type Diagnostic, error, type Span } from '../../core/diag.js';

export type ErrorKind =
  | 'DoubleSetException'
  | 'AttributeException'
  | 'OptionalValueException'
  | 'UnsetException'
  | 'NotFoundException'
  | 'TypeNotFoundException'
  | 'AmbiguousTypeException'
  | 'MissingImportException'
  | 'ExternalException'
  | 'WrappingRuntimeException'
  | 'ExplicitPluginException'
  | 'CompilerException'
  | 'TypingException'
  | 'DuplicateException'
  | 'KeyException'
  | 'IndexException'
  | 'HyphenException'
  | 'ParserException'
  | 'MultiException'
  | 'ModuleNotFoundException'
  | 'ModuleLoadingException'
  | 'IndexAttributeMissingInConstructorException'
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
  /**
   * Where to point the user when the compiler itself gives no location (an incomplete object, an empty
   * optional read by a plugin argument): shown in the diagnostic, not part of the compiler's own report.
   */
  shownAt: Span | undefined;
  showAt(span: Span | undefined): this {
    if (!this.shownAt) this.shownAt = span;
    return this;
  }
  /** A value arrived after its list was frozen: the real compiler reports it at the owning instance. */
  frozen = false;
  markFrozen(): this {
    this.frozen = true;
    return this;
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
    const because = this.causes.map((c) => `\ncaused by: ${c.msg}`).join('');
    return [error(this.kind, this.msg + because, { span: this.span ?? this.shownAt })];
  }
}

export function where(span: Span | undefined): string {
  return span ? `${span.file}:${span.line}` : '<unknown>';
}
