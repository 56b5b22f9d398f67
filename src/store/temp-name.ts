/**
 * The unique part of a temporary file's name in the store (written, then renamed over its target) and of
 * a lock's token: this process, a count within it, and a random part for stores shared between machines.
 * Not a secret, so no cryptographic randomness (and no loading of crypto at start-up) is needed.
 */
let count = 0;

export function uniquePart(): string {
  count += 1;
  return `${process.pid.toString(36)}${count.toString(36)}${Math.floor(Math.random() * 2 ** 32).toString(36)}`;
}
