/**
 * Host-key checking against OpenSSH's known_hosts format: plain and hashed (`|1|salt|hash`) host fields,
 * `[host]:port` for non-standard ports, wildcard and negated patterns, `@revoked` lines. Keys cairn
 * accepts (only with --accept-new-host-keys) go to a file of its own, never to the user's OpenSSH files.
 */
import { createHash, createHmac } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface KnownKey {
  readonly file: string;
  readonly line: number;
  readonly marker: 'revoked' | 'cert-authority' | undefined;
  readonly hosts: string;
  readonly type: string;
  readonly key: Buffer;
}

export type HostKeyVerdict =
  | { readonly status: 'known'; readonly entry: KnownKey }
  | { readonly status: 'unknown' }
  | { readonly status: 'changed'; readonly entry: KnownKey }
  | { readonly status: 'revoked'; readonly entry: KnownKey };

/** The name OpenSSH looks up: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** The key type named inside an SSH public key blob (its first string). */
export function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  const len = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + len).toString('latin1');
}

/** `SHA256:…` as `ssh-keygen -l` prints it. */
export function fingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

export function parseKnownHosts(text: string, file: string): KnownKey[] {
  const out: KnownKey[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split(/\s+/);
    let marker: KnownKey['marker'];
    if (fields[0] === '@revoked' || fields[0] === '@cert-authority') marker = (fields.shift() ?? '').slice(1) as KnownKey['marker'];
    const [hosts, type, key] = fields;
    if (hosts === undefined || type === undefined || key === undefined) return;
    out.push({ file, line: i + 1, marker, hosts, type, key: Buffer.from(key, 'base64') });
  });
  return out;
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

/** Whether a known_hosts host field names `name` (hashed entries compared by HMAC-SHA1, as OpenSSH does). */
export function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|');
    if (salt === undefined || hash === undefined) return false;
    return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash;
  }
  let matched = false;
  for (const pattern of field.split(',')) {
    const negated = pattern.startsWith('!');
    const p = negated ? pattern.slice(1) : pattern;
    if (!globToRegExp(p).test(name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

export class KnownHosts {
  private readonly entries: KnownKey[] = [];

  /** `files` are read in order (missing ones skipped); accepted keys are appended to `managedFile`. */
  constructor(
    readonly files: readonly string[],
    readonly managedFile: string,
  ) {
    for (const file of [...files, managedFile]) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      this.entries.push(...parseKnownHosts(text, file));
    }
  }

  /** The key types known for a name, so the connection can ask the server for one of them first. */
  typesFor(name: string): string[] {
    return [...new Set(this.entries.filter((e) => e.marker === undefined && hostFieldMatches(e.hosts, name)).map((e) => e.type))];
  }

  verify(name: string, blob: Buffer): HostKeyVerdict {
    const type = keyTypeOf(blob);
    const revoked = this.entries.find((e) => e.marker === 'revoked' && e.key.equals(blob));
    if (revoked) return { status: 'revoked', entry: revoked };
    const mine = this.entries.filter((e) => e.marker === undefined && hostFieldMatches(e.hosts, name));
    const same = mine.find((e) => e.type === type && e.key.equals(blob));
    if (same) return { status: 'known', entry: same };
    // Any other key on record for this name (of this type or not) means the server's identity changed.
    const other = mine.find((e) => e.type === type) ?? mine[0];
    return other ? { status: 'changed', entry: other } : { status: 'unknown' };
  }

  /** Records an accepted key in the managed file (created 0600 with its directory). */
  accept(name: string, blob: Buffer): void {
    const line = `${name} ${keyTypeOf(blob)} ${blob.toString('base64')}\n`;
    mkdirSync(dirname(this.managedFile), { recursive: true, mode: 0o700 });
    appendFileSync(this.managedFile, line, { mode: 0o600 });
    this.entries.push(...parseKnownHosts(line, this.managedFile));
  }
}
