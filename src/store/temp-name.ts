/**
 * The unique part of a temporary file's name in the store (written, then renamed over its target): this
 * process, a count within it, and a random part for stores shared between machines. Not a secret, so no
 * cryptographic randomness is needed. (The run lock has its own token, 16 hex digits, which its leftover
 * sweep recognises.)
 */
let count = 0;

export function uniquePart(): string {
  count += 1;
  return `${process.pid.toString(36)}${count.toString(36)}${Math.floor(Math.random() * 2 ** 32).toString(36)}`;
}
