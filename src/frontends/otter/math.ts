/** `$Expr`: arithmetic on numbers with + - * / % and parentheses; nothing else is evaluated. */
import type { Span } from '../../core/diag.js';
import { OtterError } from './errors.js';

export function mathExpression(text: string, span: Span): number {
  const tokens = text.match(/\d+(?:\.\d+)?|[-+*/%()]|\S/g) ?? [];
  let i = 0;
  const fail = (why: string): never => {
    throw new OtterError(`cannot evaluate "${text}": ${why}`, span);
  };
  const primary = (): number => {
    const t = tokens[i++];
    if (t === undefined) return fail('it ends too early');
    if (t === '(') {
      const v = sum();
      if (tokens[i++] !== ')') fail('a ")" is missing');
      return v;
    }
    if (t === '-') return -primary();
    if (t === '+') return primary();
    const n = Number(t);
    return Number.isNaN(n) ? fail(`unexpected "${t}"`) : n;
  };
  const product = (): number => {
    let v = primary();
    while (tokens[i] === '*' || tokens[i] === '/' || tokens[i] === '%') {
      const op = tokens[i++];
      const r = primary();
      if (op !== '*' && r === 0) fail('division by zero');
      v = op === '*' ? v * r : op === '/' ? v / r : v % r;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (tokens[i] === '+' || tokens[i] === '-') v = tokens[i++] === '+' ? v + product() : v - product();
    return v;
  };
  const v = sum();
  if (i < tokens.length) fail(`unexpected "${tokens[i]}"`);
  return v;
}
