/**
 * A user's home directory: $HOME of the environment (this run's by default, as OpenSSH reads it; a
 * target's when its facts are given), else the password database's. os.homedir() alone reads the process's environment below JavaScript, which a
 * run given its own environment (a test, an embedding program) cannot change.
 */
import { homedir } from 'node:os';

export function userHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME || homedir();
}
