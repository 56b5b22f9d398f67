/** Shared setup for the filesystem kind tests: a LocalHost in a temp dir and a FakeHost, and a way to run a kind. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Span } from '../../src/core/diag.js';
import type { ApplyOutcome, CheckOutcome, GraphNode } from '../../src/core/model.js';
import { FakeHost } from '../../src/host/fake.js';
import { LocalHost } from '../../src/host/local.js';
import type { ResourceContext } from '../../src/host/types.js';
import type { Kind } from '../../src/resources/kind.js';

export interface Env {
  readonly name: 'local' | 'fake';
  readonly ctx: ResourceContext;
  /** An existing, empty directory to work in. */
  readonly root: string;
  /** Everything under root (type, mode, owner, content): compare two to prove nothing changed. */
  snapshot(): string;
}

const temps: string[] = [];
export function cleanupTemps(): void {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

function walk(dir: string, out: string[]): void {
  for (const name of fs.readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = fs.lstatSync(p);
    const body = st.isFile() ? fs.readFileSync(p, 'utf8') : st.isSymbolicLink() ? `-> ${fs.readlinkSync(p)}` : 'dir';
    out.push(`${p} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid} ${body}`);
    if (st.isDirectory()) walk(p, out);
  }
}

export function localEnv(): Env {
  const root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'cairn-res-')));
  temps.push(root);
  return {
    name: 'local',
    ctx: { host: new LocalHost(), baseDir: root },
    root,
    snapshot: () => {
      const out: string[] = [];
      walk(root, out);
      return out.join('\n');
    },
  };
}

export const FAKE_PASSWD = 'root:x:0:0:root:/root:/bin/bash\ndeploy:x:1001:1001::/home/deploy:/bin/sh\n';
export const FAKE_GROUP = 'root:x:0:\ndeploy:x:1001:\nweb:x:2000:deploy\n';

export function fakeEnv(): Env & { readonly host: FakeHost } {
  const host = new FakeHost({ files: { '/etc/passwd': FAKE_PASSWD, '/etc/group': FAKE_GROUP } });
  host.addDir('/srv/work');
  return { name: 'fake', host, ctx: { host, baseDir: '/srv/work' }, root: '/srv/work', snapshot: () => JSON.stringify(host.snapshot(), null, 1) };
}

export const envs: ReadonlyArray<() => Env> = [localEnv, fakeEnv];

export function node(type: string, params: Record<string, unknown>, paramSpans?: Record<string, Span>): GraphNode {
  return { id: `${type}-1`, type, name: String(params.path ?? type), params, ...(paramSpans ? { paramSpans } : {}) };
}

/** Validates (must be clean), checks without changing anything, applies. */
export async function converge(kind: Kind, env: Env, params: Record<string, unknown>): Promise<{ check: CheckOutcome; applied: ApplyOutcome }> {
  const n = node(kind.type, params);
  assert.deepEqual(kind.validate(params, n), []);
  const before = env.snapshot();
  const check = await kind.check(env.ctx, params, n);
  assert.equal(env.snapshot(), before, 'check changed the machine');
  const applied = await kind.apply(env.ctx, params, check, n);
  return { check, applied };
}

/** Converges, then asserts that a second check is in sync and that applying again changes nothing. */
export async function convergeIdempotent(kind: Kind, env: Env, params: Record<string, unknown>): Promise<{ check: CheckOutcome; applied: ApplyOutcome; recheck: CheckOutcome }> {
  const { check, applied } = await converge(kind, env, params);
  assert.equal(applied.ok, true, applied.comment);
  const n = node(kind.type, params);
  const recheck = await kind.check(env.ctx, params, n);
  assert.equal(recheck.inSync, true, `not in sync after apply: ${JSON.stringify(recheck.changes)}`);
  const after = env.snapshot();
  const again = await kind.apply(env.ctx, params, await kind.check(env.ctx, params, n), n);
  assert.deepEqual(again.changes ?? {}, {});
  assert.equal(env.snapshot(), after, 'a second apply changed the machine');
  return { check, applied, recheck };
}
