/** Params of the `package` kind (Salt's pkg.installed / removed / purged / latest, on Debian). */
import * as v from 'valibot';
import { lazySchema } from '../kind.js';

/** Debian package names, optionally with an architecture (`libc6:amd64`). */
const packageName = v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9+.-]+(:[a-z0-9-]+)?$/, 'expected a Debian package name'));

export const packageSchema = lazySchema(() =>
  v.pipe(
    v.strictObject({
      name: v.optional(packageName),
      names: v.optional(v.pipe(v.array(packageName), v.minLength(1, 'expected at least one package name'))),
      state: v.optional(v.picklist(['installed', 'removed', 'purged', 'latest']), 'installed'),
      /** An exact Debian version; only with a single `name` and state installed. */
      version: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9.+~:-]+$/, 'expected a Debian version'))),
    }),
    v.check((p) => p.name !== undefined || p.names !== undefined, 'give the package as `name` or `names`'),
    v.check((p) => p.version === undefined || (p.names === undefined && p.state === 'installed'), '`version` needs a single `name` and state installed'),
  ),
);

export type PackageParams = v.InferOutput<typeof packageSchema>;

export function packageNames(p: PackageParams): string[] {
  const names = [...(p.name !== undefined ? [p.name] : []), ...(p.names ?? [])];
  return [...new Set(names)];
}
