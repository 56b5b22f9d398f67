/** The registry of front ends the CLI offers, in the order of DESIGN.md; main.ts loops over it. */
import type { Command } from 'commander';
import { register as converge } from './converge-command.js';
import { register as inmanta } from './inmanta-command.js';
import { register as otter } from './otter-command.js';
import { register as salt } from './salt-command.js';
import { register as zapusk } from './zapusk-command.js';

export interface FrontEndCommand {
  /** The subcommand, e.g. `salt` for `cairn salt …`. */
  readonly name: string;
  /** Declares the subcommand, its options and its action; the work itself is loaded only when it runs. */
  readonly register: (program: Command) => void;
}

export const FRONT_ENDS: readonly FrontEndCommand[] = [
  { name: 'salt', register: salt },
  { name: 'converge', register: converge },
  { name: 'zapusk', register: zapusk },
  { name: 'otter', register: otter },
  { name: 'inmanta', register: inmanta },
];
