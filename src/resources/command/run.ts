/** How a command param becomes a host.exec call, and the guards (onlyif, unless, creates) that skip it. */
import { posix } from 'node:path';
import type { ExecOptions, ExecResult, Host } from '../../host/types.js';
import type { CommandParams } from './schema.js';

/** Splits a command line into words as a POSIX shell would, without expansions (for `shell: false`). */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== null) throw new Error(`unterminated ${quote} quote in command: ${line}`);
  if (inWord) words.push(word);
  return words;
}

/** Quotes one word for a POSIX shell. */
export function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command as shown in comments: a string as written, an argv list joined with shell quoting. */
export function displayCommand(cmd: string | readonly string[]): string {
  return typeof cmd === 'string' ? cmd : cmd.map(shellQuote).join(' ');
}

/** What host.exec receives for `cmd` under the `shell` setting. */
export function toInvocation(cmd: string | readonly string[], shell: boolean | string | undefined): string | readonly string[] {
  if (typeof shell === 'string') return [shell, '-c', displayCommand(cmd)];
  if (typeof cmd === 'string') {
    if (shell === false) {
      const words = splitWords(cmd);
      if (words.length === 0) throw new Error('command: empty command');
      return words;
    }
    return cmd;
  }
  return shell === true ? displayCommand(cmd) : cmd;
}

export function execOptions(p: CommandParams, withStdin: boolean): ExecOptions {
  const options: { env?: Record<string, string>; cwd?: string; stdin?: string; timeout?: number } = {};
  if (p.env !== undefined) options.env = Object.fromEntries(Object.entries(p.env).map(([k, val]) => [k, String(val)]));
  if (p.cwd !== undefined) options.cwd = p.cwd;
  if (withStdin && p.stdin !== undefined) options.stdin = p.stdin;
  if (p.timeout !== undefined) options.timeout = Math.round(p.timeout * 1000);
  return options;
}

export function hasGuards(p: CommandParams): boolean {
  return p.onlyif !== undefined || p.unless !== undefined || p.creates !== undefined;
}

function asList<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

/** Runs one guard command; guards share cwd, env, shell and timeout with the main command, but not stdin. */
async function guardSucceeds(host: Host, guard: string, p: CommandParams): Promise<boolean> {
  const result: ExecResult = await host.exec(toInvocation(guard, p.shell), { ...execOptions(p, false), readOnly: true });
  return result.code === 0 && !result.timedOut;
}

/**
 * Salt's mod_run_check: onlyif first (skip when any of its commands fails), then unless (skip when all of
 * its commands succeed), then creates (skip when all paths exist). Returns the skip comment, or null to run.
 */
export async function guardSkipReason(host: Host, p: CommandParams): Promise<string | null> {
  for (const guard of asList(p.onlyif)) {
    if (!(await guardSucceeds(host, guard, p))) return 'onlyif condition is false';
  }
  const unless = asList(p.unless);
  if (unless.length > 0) {
    let all = true;
    for (const guard of unless) {
      if (!(await guardSucceeds(host, guard, p))) {
        all = false;
        break;
      }
    }
    if (all) return 'unless condition is true';
  }
  const creates = asList(p.creates);
  if (creates.length > 0) {
    for (const path of creates) {
      const full = p.cwd !== undefined && !path.startsWith('/') ? posix.join(p.cwd, path) : path;
      if ((await host.stat(full)) === null) return null;
    }
    return typeof p.creates === 'string' ? `${p.creates} exists` : 'All files in creates exist';
  }
  return null;
}
