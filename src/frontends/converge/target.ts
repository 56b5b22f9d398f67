/**
 * What Converge reads from the machine it acts on, taken from the target host rather than the controller:
 * `platform` from the host's facts, and the syntax check of each task's check script, run on the host.
 */
import { type Diagnostic, error, type Span } from '../../core/diag.js';
import type { Host, HostFacts } from '../../host/types.js';

/** converge's `platform`: the OS as Go names it, and on Linux the fields it reads from /etc/os-release. */
export function convergePlatform(facts: HostFacts): Record<string, unknown> {
  const os = facts.os.toLowerCase().replace(/^windows.*/, 'windows');
  const p: Record<string, unknown> = { Build: '', OS: os, LinuxDistribution: '', LinuxLSBLike: [], Name: '', PrettyName: '', Version: '' };
  if (os !== 'linux') return p;
  const r = facts.osRelease;
  const keys: Record<string, string> = { NAME: 'Name', ID: 'LinuxDistribution', VERSION_ID: 'Version', BUILD_ID: 'Build' };
  for (const [k, field] of Object.entries(keys)) if (r[k] !== undefined) p[field] = r[k];
  if (r.ID_LIKE !== undefined) p.LinuxLSBLike = r.ID_LIKE.split(' ');
  return p;
}

/** A check script to syntax-check before anything runs, as converge does when it prepares a task. */
export interface SyntaxCheck {
  /** The program and its arguments; the script goes to its standard input. */
  readonly argv: readonly string[];
  readonly script: string;
  readonly span: Span;
}

/**
 * The check for a task's check script: /bin/sh -n by default, the interpreter with its check_flags when both
 * are given, none for an interpreter without check_flags. A string is converge's error for the fields.
 */
export function syntaxCheckFor(interpreter: unknown, flags: unknown, script: unknown, span: Span): SyntaxCheck | string | undefined {
  if (typeof script !== 'string') return undefined;
  const given = Array.isArray(flags) ? flags.map(String) : [];
  if (interpreter === undefined && given.length > 0) return 'custom syntax check_flags given without an interpreter';
  if (interpreter !== undefined && given.length === 0) return undefined;
  return { argv: interpreter === undefined ? ['/bin/sh', '-n'] : [String(interpreter), ...given], script, span };
}

/** Runs the syntax checks on the target; each script that does not pass is a CV041 with converge's text. */
export async function runSyntaxChecks(checks: readonly SyntaxCheck[], host: Host): Promise<Diagnostic[]> {
  const diags: Diagnostic[] = [];
  for (const c of checks) {
    const r = await host.exec(c.argv, { stdin: c.script, readOnly: true });
    if (r.code === 0) continue;
    // A program the host could not start (exit 127/126 with the host's own message and nothing else).
    const notStarted = (r.code === 127 || r.code === 126) && r.stdout === '' && /^cannot run /.test(r.stderr);
    const text = notStarted
      ? `unable to start subprocess: ${r.stderr.trim()}`
      : `syntax error: ${r.stdout ? `Command Stdout:\n${r.stdout}` : ''}${r.stderr ? `Command Stderr:\n${r.stderr}` : ''}: exit status ${r.code ?? 1}`;
    diags.push(error('CV041', text, { span: c.span }));
  }
  return diags;
}
