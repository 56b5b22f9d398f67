/**
 * `unarchive`: unpacks a tar (any compression tar detects) or zip archive from a local path or file:// URL
 * into an existing directory, with the system's tar and unzip (Converge's unarchive). Like Converge it
 * cannot tell from outside whether the archive was unpacked, so a check always proposes the unpacking;
 * unpacking again is harmless. A file already there with other content is not replaced unless `force`.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { Host, ResourceContext } from '../../host/types.js';
import { sourceFile, sourceWithHashSchema } from '../fetch/index.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';

const TYPE = 'unarchive';

/** The destination is an existing directory. */
export const unarchiveSchema = lazySchema(() => sourceWithHashSchema());

type UnarchiveParams = v.InferOutput<typeof unarchiveSchema>;

function parse(params: Params): UnarchiveParams {
  return parseParams(TYPE, unarchiveSchema, params);
}

async function checkDestination(host: Host, destination: string): Promise<void> {
  const st = await host.stat(destination);
  if (!st) throw new Error(`destination ${JSON.stringify(destination)} does not exist`);
  if (st.type !== 'directory') throw new Error(`invalid destination ${JSON.stringify(destination)}, must be directory`);
}

async function check(ctx: ResourceContext, p: UnarchiveParams): Promise<CheckOutcome> {
  await checkDestination(ctx.host, p.destination);
  return {
    inSync: false,
    changes: { unarchive: { old: p.source, new: p.destination } },
    comment: `fetch and unarchive ${JSON.stringify(p.source)}`,
    outputs: { source: p.source, destination: p.destination },
  };
}

/** Regular files under a directory, as paths relative to it. */
async function walk(host: Host, root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await host.readdir(rel === '' ? root : `${root}/${rel}`)).sort()) {
    const path = rel === '' ? name : `${rel}/${name}`;
    const st = await host.lstat(`${root}/${path}`);
    if (st?.type === 'directory') out.push(...(await walk(host, root, path)));
    else if (st?.type === 'file') out.push(path);
  }
  return out;
}

async function run(host: Host, argv: readonly string[]): Promise<string> {
  const r = await host.exec(argv);
  if (r.code !== 0) throw new Error(`${argv[0]} failed: ${(r.stderr || r.stdout).trim() || `exit ${r.code}`}`);
  return r.stdout;
}

async function apply(ctx: ResourceContext, p: UnarchiveParams): Promise<ApplyOutcome> {
  const { host } = ctx;
  await checkDestination(host, p.destination);
  const archive = sourceFile(ctx, p.source);
  const st = await host.stat(archive);
  if (st?.type !== 'file') return { ok: false, comment: `failed to fetch: source ${archive} ${st ? 'is not a regular file' : 'does not exist'}` };
  if (p.hash !== undefined && p.hash_type !== undefined) {
    const got = process.getBuiltinModule('node:crypto').createHash(p.hash_type).update(await host.readFile(archive)).digest('hex');
    if (got !== p.hash.toLowerCase()) return { ok: false, comment: `failed to fetch: checksums did not match (expected ${p.hash}, got ${got})` };
  }
  const done = { unarchive: { old: p.source, new: p.destination } };
  // A simulation unpacks nothing: what would be unpacked is not known without running tar.
  if (host.simulated === true) return { ok: true, changes: done, comment: `completed fetch and unarchive ${JSON.stringify(p.source)}`, outputs: { source: p.source, destination: p.destination } };
  const tmp = (await run(host, ['mktemp', '-d', '/tmp/cairn-unarchive.XXXXXX'])).trim();
  try {
    if (/\.zip$/i.test(archive)) await run(host, ['unzip', '-q', '-o', archive, '-d', tmp]);
    else await run(host, ['tar', '-xf', archive, '-C', tmp]);
    const files = await walk(host, tmp);
    if (!p.force) {
      for (const rel of files) {
        const there = await host.lstat(`${p.destination}/${rel}`);
        if (there?.type !== 'file') continue;
        const [a, b] = await Promise.all([host.readFile(`${tmp}/${rel}`), host.readFile(`${p.destination}/${rel}`)]);
        if (!a.equals(b)) return { ok: false, comment: `will not replace, ${JSON.stringify(rel)} exists at ${JSON.stringify(p.destination)}: checksum mismatch` };
      }
    }
    await run(host, ['cp', '-a', `${tmp}/.`, `${p.destination}/`]);
    return {
      ok: true,
      changes: done,
      comment: `completed fetch and unarchive ${JSON.stringify(p.source)}`,
      outputs: { source: p.source, destination: p.destination, files },
    };
  } finally {
    await host.remove(tmp, { recursive: true });
  }
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, unarchiveSchema, params, node),
  schema: unarchiveSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params) => apply(ctx, parse(params)),
};
