/**
 * Param values: `{{name}}` references first, then `` {`command`} `` parts replaced by the command's
 * stdout. A name is looked up level by level (the spec's order: program params with the request's, the
 * step's own keys, zapusk.conf, special params); the first level that has it wins. A level may hold raw
 * values that are computed on demand, so a step key may refer to another key of the same step.
 */
import type { Code, Span } from '../../core/diag.js';
import type { Params } from './program.js';
import type { Value } from './reader.js';
import { hasMismatch, refsIn, ValuePositions } from './refs.js';

export class ZapuskError extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly span?: Span,
  ) {
    super(message);
  }
}

/** One level of the lookup: computed values, or raw params computed on first use. */
export type Level = { readonly kind: 'computed'; readonly values: ReadonlyMap<string, Value> } | { readonly kind: 'raw'; readonly params: Params };

export interface Evaluator {
  /** Runs a `` {`…`} `` command; stdout and exit code. */
  shell(command: string): Promise<{ code: number | null; stdout: string }>;
  warn(message: string): void;
}

const SHELL = /\{`([^`]+)`\}/g;

/** A value that computes to itself: `{{…}}`, `` {`…`} `` and the `{}`-mismatch warning all need a `{`. */
export function isLiteral(value: Value): boolean {
  return value === true || !value.includes('{');
}

/** The longest value a param may compute to. */
export const MAX_VALUE = 16 * 1024 * 1024;

export class Scope {
  private readonly cache = new Map<string, Value>();

  constructor(
    private readonly levels: readonly Level[],
    private readonly ev: Evaluator,
    /** Names the owner in messages: `step [os] of component web`. */
    private readonly owner: string,
  ) {}

  /** Computes raw param `key` of level `levelIndex` (a key of the owner). */
  async computeKey(levelIndex: number, key: string): Promise<Value> {
    return this.computeRaw(levelIndex, key, new Set());
  }

  private async computeRaw(levelIndex: number, key: string, computing: Set<string>): Promise<Value> {
    const cacheKey = `${levelIndex}\0${key}`;
    const cached = this.cache.get(cacheKey);
    if (cached !== undefined) return cached;
    const level = this.levels[levelIndex];
    if (level?.kind !== 'raw') throw new Error(`level ${levelIndex} is not raw`);
    const param = level.params.get(key);
    if (!param) throw new Error(`no key ${key}`);
    if (computing.has(cacheKey)) {
      throw new ZapuskError('Z021', `cycle while computing ${[...computing].map((k) => k.split('\0')[1]).join(' -> ')} -> ${key} (${this.owner})`, param.span);
    }
    const next = new Set(computing).add(cacheKey);
    const value = param.value === true ? true : await this.compute(param.value, param.valueSpan, key, next);
    this.cache.set(cacheKey, value);
    return value;
  }

  /** Computes a value text: references, then shell parts. */
  async compute(text: string, start: Span | undefined, usedIn: string, computing: Set<string> = new Set()): Promise<string> {
    let out = '';
    let last = 0;
    const positions = start ? new ValuePositions(start, text) : undefined;
    for (const m of refsIn(text)) {
      const name = m.raw.trim();
      const piece = text.slice(last, m.index) + String(await this.lookup(name, () => positions?.at(m.index), usedIn, computing));
      // Params that each repeat the one before grow without bound (2^n): stop at a size no value needs.
      if (out.length + piece.length > MAX_VALUE) {
        throw new ZapuskError('Z023', `the value of ${usedIn} grows past ${MAX_VALUE} characters (${this.owner})`, positions?.at(m.index));
      }
      out += piece;
      last = m.end;
    }
    out += text.slice(last);
    if (hasMismatch(out)) this.ev.warn(`check value for {}-mismatch errors! [${out}]`);
    let result = '';
    last = 0;
    for (const m of out.matchAll(SHELL)) {
      const command = (m[1] as string).trim();
      const r = await this.ev.shell(command);
      if (r.code !== 0) {
        throw new ZapuskError('Z022', `{\`…\`} command exited with code ${r.code ?? 'signal'}: ${command} (in ${usedIn}, ${this.owner})`, start);
      }
      result += out.slice(last, m.index) + r.stdout.replace(/\r?\n$/, '');
      last = (m.index ?? 0) + m[0].length;
    }
    return result + out.slice(last);
  }

  private async lookup(name: string, where: () => Span | undefined, usedIn: string, computing: Set<string>): Promise<Value> {
    for (let i = 0; i < this.levels.length; i++) {
      const level = this.levels[i] as Level;
      if (level.kind === 'computed') {
        const v = level.values.get(name);
        if (v !== undefined) return v;
      } else if (level.params.has(name)) {
        return this.computeRaw(i, name, computing);
      }
    }
    throw new ZapuskError('Z020', `unknown param ${JSON.stringify(name)} in ${usedIn} (${this.owner})`, where());
  }
}
