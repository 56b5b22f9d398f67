/** `package`: Debian packages, read with dpkg-query and changed with apt-get (Salt's pkg states). */
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { Host } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith } from '../kind.js';
import { aptGet, candidateVersions, hasTraces, isInstalled, type PackageStatus, queryPackages, tail } from './dpkg.js';
import { type PackageParams, packageNames, packageSchema } from './schema.js';

const TYPE = 'package';

type Changes = Record<string, { old: string; new: string }>;

interface Plan {
  /** Arguments for apt-get (a name, or name=version). */
  readonly targets: string[];
  /** The names those targets stand for. */
  readonly names: string[];
  readonly changes: Changes;
  readonly before: Map<string, PackageStatus>;
}

function parse(params: Params): PackageParams {
  return parseParams(TYPE, packageSchema, params);
}

/** What apt-get would have to do to reach the state, from the current dpkg status. */
async function plan(host: Host, p: PackageParams): Promise<Plan> {
  const names = packageNames(p);
  const before = await queryPackages(host, names);
  const targets: string[] = [];
  const chosen: string[] = [];
  const changes: Changes = {};
  const status = (n: string): PackageStatus => before.get(n) as PackageStatus;
  if (p.state === 'installed' || p.state === 'latest') {
    const wanted =
      p.state === 'latest'
        ? names
        : names.filter((n) => !isInstalled(status(n)) || (p.version !== undefined && status(n).version !== p.version));
    const candidates = await candidateVersions(host, wanted);
    for (const n of wanted) {
      const candidate = candidates.get(n);
      if (p.state === 'latest') {
        if (candidate === undefined) throw new Error(`No information found for '${n}'.`);
        if (isInstalled(status(n)) && status(n).version === candidate) continue;
      }
      chosen.push(n);
      targets.push(p.version !== undefined ? `${n}=${p.version}` : n);
      changes[n] = { old: status(n).version, new: p.version ?? candidate ?? 'latest' };
    }
  } else {
    for (const n of names) {
      const s = status(n);
      if (p.state === 'removed' ? !isInstalled(s) : !hasTraces(s)) continue;
      chosen.push(n);
      targets.push(n);
      changes[n] = { old: s.version, new: '' };
    }
  }
  return { targets, names: chosen, changes, before };
}

function inSyncComment(p: PackageParams, names: readonly string[]): string {
  switch (p.state) {
    case 'installed':
      if (names.length > 1) return 'All specified packages are already installed';
      return p.version !== undefined ? `Version ${p.version} of package '${names[0]}' is already installed` : `Package ${names[0]} is already installed`;
    case 'latest':
      return names.length > 1 ? 'All packages are up-to-date' : `Package ${names[0]} is already up-to-date`;
    case 'removed':
      return 'None of the targeted packages are installed';
    case 'purged':
      return 'None of the targeted packages are installed or partially installed';
  }
}

function pendingComment(p: PackageParams, names: readonly string[]): string {
  const list = names.join(', ');
  switch (p.state) {
    case 'installed':
      return `The following packages would be installed/updated: ${list}`;
    case 'latest':
      return `The following packages would be installed/upgraded: ${list}`;
    case 'removed':
      return `The following packages will be removed: ${list}`;
    case 'purged':
      return `The following packages will be purged: ${list}`;
  }
}

function doneComment(p: PackageParams, names: readonly string[]): string {
  const list = names.join(', ');
  switch (p.state) {
    case 'installed':
      return `The following packages were installed/updated: ${list}`;
    case 'latest':
      return `The following packages were successfully installed/upgraded: ${list}`;
    case 'removed':
      return 'All targeted packages were removed.';
    case 'purged':
      return 'All targeted packages were purged.';
  }
}

/** Whether a package's status after apt-get satisfies the params. */
function reached(p: PackageParams, s: PackageStatus, candidate: string | undefined): boolean {
  switch (p.state) {
    case 'installed':
      return isInstalled(s) && (p.version === undefined || s.version === p.version);
    case 'latest':
      return isInstalled(s) && (candidate === undefined || s.version === candidate);
    case 'removed':
      return !isInstalled(s);
    case 'purged':
      return !hasTraces(s);
  }
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, packageSchema, params, node),
  schema: packageSchema,
  async check(ctx, params): Promise<CheckOutcome> {
    const p = parse(params);
    const planned = await plan(ctx.host, p);
    const outputs = Object.fromEntries([...planned.before].map(([n, s]) => [n, s.version]));
    if (planned.targets.length === 0) return { inSync: true, comment: inSyncComment(p, packageNames(p)), outputs };
    return { inSync: false, changes: planned.changes, comment: pendingComment(p, planned.names), outputs };
  },
  async apply(ctx, params): Promise<ApplyOutcome> {
    const p = parse(params);
    // Plan again: the dpkg database may have changed since the check (another node installed a dependency).
    const planned = await plan(ctx.host, p);
    if (planned.targets.length === 0) return { ok: true, comment: inSyncComment(p, packageNames(p)) };
    const action = p.state === 'removed' ? 'remove' : p.state === 'purged' ? 'purge' : 'install';
    const result = await aptGet(ctx.host, action, planned.targets);
    // A simulating host records apt-get without running it: report what it would have done.
    if (ctx.host.simulated === true && result.code === 0) return { ok: true, changes: planned.changes, comment: doneComment(p, planned.names) };
    const after = await queryPackages(ctx.host, planned.names);
    const changes: Changes = {};
    for (const n of planned.names) {
      const old = planned.before.get(n)?.version ?? '';
      const now = after.get(n)?.version ?? '';
      if (old !== now || (planned.before.get(n)?.state ?? '') !== (after.get(n)?.state ?? '')) changes[n] = { old, new: now };
    }
    const outputs = Object.fromEntries([...after].map(([n, s]) => [n, s.version]));
    const missed = planned.names.filter((n) => !reached(p, after.get(n) as PackageStatus, planned.changes[n]?.new));
    if (result.code !== 0 || missed.length > 0) {
      const verb = action === 'install' ? 'install/update' : action;
      const failedNames = missed.length > 0 ? missed : planned.names;
      return { ok: false, changes, outputs, comment: `The following packages failed to ${verb}: ${failedNames.join(', ')}\n${tail(result)}` };
    }
    return { ok: true, changes, outputs, comment: doneComment(p, planned.names) };
  },
};
