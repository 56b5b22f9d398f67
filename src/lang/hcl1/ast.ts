/** The HCL1 syntax tree: plain readonly objects with a `kind` tag; every node knows where it starts. */
import type { Span } from '../../core/diag.js';

export type HclValue = HclString | HclNumber | HclBool | HclList | HclObject;

export interface HclString {
  readonly kind: 'string';
  readonly value: string;
  readonly span: Span;
  /** Written as `<<EOF` heredoc rather than a quoted string. */
  readonly heredoc: boolean;
}

export interface HclNumber {
  readonly kind: 'number';
  readonly value: number;
  readonly span: Span;
}

export interface HclBool {
  readonly kind: 'bool';
  readonly value: boolean;
  readonly span: Span;
}

export interface HclList {
  readonly kind: 'list';
  readonly items: readonly HclValue[];
  readonly span: Span;
}

/** A `{ ... }` body: a block body or a map literal; HCL1 does not tell them apart. */
export interface HclObject {
  readonly kind: 'object';
  readonly items: readonly HclItem[];
  readonly span: Span;
}

/**
 * One entry of a body: `key = value`, `key { ... }` or `key "label" "label" { ... }`. `keys` holds the key
 * and then the labels, each with its span.
 */
export interface HclItem {
  readonly keys: readonly HclKey[];
  readonly value: HclValue;
  /** True for `key = value`, false for a block. */
  readonly assign: boolean;
  readonly span: Span;
}

export interface HclKey {
  readonly name: string;
  readonly span: Span;
  readonly quoted: boolean;
}

export interface HclFile {
  readonly file: string;
  readonly body: HclObject;
}

/** The plain JavaScript value of an HCL value (objects by last key wins, as HCL1 decodes into a map). */
export function plainValue(v: HclValue): unknown {
  switch (v.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return v.value;
    case 'list':
      return v.items.map(plainValue);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const item of v.items) {
        let target = out;
        const names = item.keys.map((k) => k.name);
        for (const name of names.slice(0, -1)) {
          const next = target[name];
          if (typeof next === 'object' && next !== null && !Array.isArray(next)) target = next as Record<string, unknown>;
          else target = target[name] = {};
        }
        target[names[names.length - 1] as string] = plainValue(item.value);
      }
      return out;
    }
  }
}
