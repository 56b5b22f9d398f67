/**
 * zapusk-tool's service commands: `init` writes a small starter program into a folder that has no
 * program yet, `help` prints how to run programs. Both print in the tool's `*** ` format and run no
 * program.
 */
import { join } from 'node:path';
import type { Host } from '../../host/types.js';
import { Printer } from './output.js';

/** The starter program: params, one component with an info and an os step, state kept beside it. */
const TEMPLATE: ReadonlyArray<readonly [string, string]> = [
  [
    'params.ini',
    [
      '# Params of this program: use them as {{name}} in steps, override them as name=value when running it.',
      '',
      '######################## params ########################',
      'greeting=hello',
      'target=world',
      '',
    ].join('\n'),
  ],
  [
    'main.ini',
    [
      '# Components run in order; a command goes through the steps of each component in order.',
      '',
      '######################## hello ########################',
      '[info]',
      'apply=Saying {{greeting}} to {{target}}',
      'destroy=Taking back the {{greeting}}',
      '',
      '[os]',
      'apply=echo "{{greeting}}, {{target}}" > greeting.txt && cat greeting.txt',
      'destroy=rm -f greeting.txt',
      '',
    ].join('\n'),
  ],
  ['zapusk.conf', 'state_dir=_state\n'],
];

export interface ServiceOptions {
  readonly host: Host;
  readonly write: (text: string) => void;
  readonly color: boolean;
  /** ZAPUSK_PADDING of an enclosing run. */
  readonly padding: string;
  readonly now: () => number;
}

/** `init`: fails (1) when the folder already holds *.ini or *.conf files; creates a missing folder. */
export async function initProgram(dir: string, o: ServiceOptions): Promise<number> {
  const started = o.now();
  const printer = new Printer({ write: o.write, color: o.color, quiet: false });
  printer.info(o.padding, `zapusk init zdb-program in dir [${dir}]`);
  const existing = (await o.host.stat(dir))?.type === 'directory' ? await o.host.readdir(dir) : [];
  if (existing.some((n) => n.endsWith('.ini') || n.endsWith('.conf'))) {
    printer.summary((o.now() - started) / 1000, 'cannot init dir, because it contains *.ini or *.conf files!', o.padding);
    return 1;
  }
  await o.host.mkdir(dir, { recursive: true });
  for (const [name, content] of TEMPLATE) await o.host.writeFileAtomic(join(dir, name), content);
  printer.info(o.padding, 'done');
  return 0;
}

/** `help`: the usage as one `***` message, as zapusk-tool prints its own. */
export function printHelp(text: string, o: Pick<ServiceOptions, 'write' | 'color' | 'padding'>): void {
  new Printer({ write: o.write, color: o.color, quiet: false }).info(o.padding, `\n${text}`);
}
