/** Runs OtterScript in process against a FakeHost rooted at /w. */
import { FakeHost } from '../../../src/host/fake.js';
import { checkScript, type ExecutionMode, type OtterRunResult, parseScript, plainLines, RaftLoader, runOtter, type Value } from '../../../src/frontends/otter/index.js';

export interface Ran {
  readonly result: OtterRunResult;
  readonly log: string[];
  readonly host: FakeHost;
}

export async function run(
  source: string,
  options: { mode?: ExecutionMode; host?: FakeHost; files?: Record<string, string>; vars?: Record<string, Value>; roles?: string[] } = {},
): Promise<Ran> {
  const host = options.host ?? new FakeHost({ files: { '/w/.keep': '', ...options.files } });
  const script = parseScript('test.otter', source);
  const vars = new Map(Object.entries(options.vars ?? {}));
  const problems = await checkScript(script, new RaftLoader('/w/raft', host), new Set(vars.keys()));
  // Errors stop a script before it runs; warnings are raised by the run itself when reached.
  const errors = problems.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((d) => `${d.code} ${d.message}`).join('\n'));
  const result = await runOtter(script, {
    mode: options.mode ?? 'execute',
    simulation: false,
    host,
    root: '/w',
    raftDir: '/w/raft',
    variables: vars,
    serverName: 'web1',
    roles: options.roles ?? [],
    environmentName: 'test',
  });
  return { result, log: plainLines(result.log), host };
}

/** Only the messages at INFO and above. */
export function info(log: readonly string[]): string[] {
  return log.filter((l) => !l.startsWith('DEBUG: '));
}
