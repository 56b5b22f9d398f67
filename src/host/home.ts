/**
 * The home directory of the user running cairn: $HOME as the process sees it (as OpenSSH reads it), else
 * the password database's. os.homedir() alone reads the process's environment below JavaScript, which a
 * run given its own environment (a test, an embedding program) cannot change.
 */
import { homedir } from 'node:os';

export function userHome(): string {
  return process.env.HOME || homedir();
}
