/**
 * The command line as cairn records it (run history, lock file): values that may be secret are masked,
 * their names kept. A `name=value` word (Salt `pillar=…`, Zapusk params) and the value of a param option
 * (`-p k=v`, `--var k=v`, `--secret-var k=v`, also written `--var=k=v`) keep `name=` and lose the rest.
 */

export const MASK = '********';
/** Options whose value is a `name=value` that may hold a secret. */
const VALUE_OPTIONS = new Set(['-p', '--params', '--var', '--secret-var']);

function maskAssignment(word: string): string {
  const eq = word.indexOf('=');
  return eq < 0 ? MASK : `${word.slice(0, eq + 1)}${MASK}`;
}

export function maskArgs(args: readonly string[]): string[] {
  return args.map((a, i) => {
    const prev = args[i - 1];
    if (prev !== undefined && VALUE_OPTIONS.has(prev)) return maskAssignment(a);
    if (a.startsWith('-')) {
      const eq = a.indexOf('=');
      if (eq > 0 && VALUE_OPTIONS.has(a.slice(0, eq))) return `${a.slice(0, eq + 1)}${maskAssignment(a.slice(eq + 1))}`;
      // `-pk=v`: a short option with its value attached.
      if (a.startsWith('-p') && !a.startsWith('--') && a.length > 2) return `-p${maskAssignment(a.slice(2))}`;
      return a;
    }
    return /^[A-Za-z_][\w.:-]*=/.test(a) ? maskAssignment(a) : a;
  });
}

/** `cairn ARGS…` with the values that may be secret masked. */
export function recordedCommandLine(args: readonly string[] = process.argv.slice(2)): string {
  return ['cairn', ...maskArgs(args)].join(' ');
}
