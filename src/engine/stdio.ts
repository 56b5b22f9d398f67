/**
 * Standard output and standard error of the CLI process. Node makes `process.stdout` and `process.stderr`
 * on first use, and making either loads its stream modules: some 3 ms of CPU, a tenth of what cairn adds
 * to a small run's start-up. So the CLI (`main`, through `guardStdio`) writes to the file descriptor itself
 * for as long as nothing else has made the stream, and tells a terminal from anything else by fstat where
 * that is certain. Once the stream exists (a library or a front end wrote to it) every write goes through
 * it, so that the order of what is written never changes. A process that runs many command lines (the
 * tests' in-process runner) never turns this on: there every write goes through the streams it watches.
 * A reader that goes away (`cairn plan x | head -1`) is not an error either way: output stops quietly while
 * the run finishes and is recorded.
 */
import { fstatSync, writeSync } from 'node:fs';

type Fd = 1 | 2;
const STREAM = { 1: 'stdout', 2: 'stderr' } as const;

let direct = false;
/** The streams Node has made since guardStdio (seen through their getters). */
const made = new Set<Fd>();
/** A reader went away: what is written there is dropped. */
const gone = new Set<Fd>();
/** Whether each descriptor is a terminal, once asked (while its stream is not made). */
const terminal = new Map<Fd, boolean>();
/** Standard output's text while a capture is on (captureStdout). */
let captured: { text: string; readonly cap: number } | undefined;
/** What a capture must do to the stdout stream if it is made while the capture is on. */
let onStdoutMade: ((stream: NodeJS.WriteStream) => void) | undefined;

function stream(fd: Fd): NodeJS.WriteStream {
  return process[STREAM[fd]];
}

/**
 * For the process that runs one command (the CLI): direct writes while the streams are not made, and a
 * stream made later gets the same handling of a reader that went away. `fatal` gets any other stream error.
 */
export function guardStdio(fatal: (e: unknown) => void): void {
  direct = true;
  for (const fd of [1, 2] as const) {
    const name = STREAM[fd];
    const descriptor = Object.getOwnPropertyDescriptor(process, name);
    const attach = (s: NodeJS.WriteStream): void => {
      made.add(fd);
      s.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code !== 'EPIPE') return void fatal(e);
        gone.add(fd);
        s.write = (() => true) as typeof s.write;
      });
      if (fd === 1) onStdoutMade?.(s);
    };
    const getter = descriptor?.get;
    if (!getter || !descriptor.configurable) {
      attach(process[name]);
      continue;
    }
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: descriptor.enumerable ?? true,
      get() {
        const s = getter.call(process) as NodeJS.WriteStream;
        // Made now: from here on the getter is Node's own again.
        Object.defineProperty(process, name, descriptor);
        attach(s);
        return s;
      },
    });
  }
}

function usesStream(fd: Fd): boolean {
  return !direct || made.has(fd);
}

function write(fd: Fd, text: string): void {
  if (usesStream(fd)) {
    stream(fd).write(text);
    return;
  }
  if (fd === 1 && captured && captured.text.length < captured.cap) captured.text += text;
  if (gone.has(fd)) return;
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(fd, bytes, done);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') {
      gone.add(fd);
      return;
    }
    // A descriptor someone made non-blocking (EAGAIN), or anything else the stream knows how to handle:
    // the rest goes through the stream, made now. A capture has the whole text already, so the stream
    // gets the capture's hook only after this write.
    const hook = fd === 1 ? onStdoutMade : undefined;
    if (fd === 1) onStdoutMade = undefined;
    const s = stream(fd);
    s.write(bytes.subarray(done));
    hook?.(s);
  }
}

/** Writes to standard output. */
export function writeOut(text: string): void {
  write(1, text);
}

/** Writes to standard error. */
export function writeErr(text: string): void {
  write(2, text);
}

/**
 * Whether the descriptor is a terminal. Only a character device can be one, and on Linux never one of the
 * memory devices (major 1: /dev/null, /dev/zero); for anything else the stream is asked (and made).
 */
export function isTerminal(fd: Fd): boolean {
  if (usesStream(fd)) return stream(fd).isTTY === true;
  // Asked once per descriptor: the output is coloured, or not, line after line.
  let known = terminal.get(fd);
  if (known === undefined) terminal.set(fd, (known = descriptorIsTerminal(fd)));
  return known;
}

/** What a descriptor's fstat tells; the stream is asked (and made) only for a character device that may be a terminal. */
function descriptorIsTerminal(fd: Fd): boolean {
  try {
    const st = fstatSync(fd);
    if (!st.isCharacterDevice()) return false;
    if (process.platform === 'linux' && ((st.rdev >> 8) & 0xfff) === 1) return false;
  } catch {
    return false;
  }
  return stream(fd).isTTY === true;
}

/**
 * Calls `print`, passing standard output through and keeping a copy of it, from `cap` characters on no
 * more: what writeOut writes, and what is written to the stdout stream, whether it exists already or is
 * made during the call.
 */
export function captureStdout(print: () => void, cap = Number.POSITIVE_INFINITY): string {
  const kept = { text: '', cap };
  let restore: (() => void) | undefined;
  const patch = (s: NodeJS.WriteStream): void => {
    const original = s.write;
    s.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
      if (kept.text.length < kept.cap) kept.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
      return (original as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof s.write;
    restore = () => {
      s.write = original;
    };
  };
  if (usesStream(1)) patch(process.stdout);
  else onStdoutMade = patch;
  captured = kept;
  try {
    print();
  } finally {
    captured = undefined;
    onStdoutMade = undefined;
    restore?.();
  }
  return kept.text;
}
