/**
 * Commands over SSH exec channels. The server runs one command line through the login shell, and most
 * servers refuse environment requests, so each command is wrapped in a small POSIX script that sets the
 * environment and directory and reports a missing program the way the local host does (exit 127/126).
 */
import { StringDecoder } from 'node:string_decoder';
import type { Client } from 'ssh2';
import type { ExecOptions, ExecResult } from './types.js';

/** Single-quotes a word for a POSIX shell. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** How long after this side's timeout the server's own kill comes (this side reports the timeout). */
const KILL_MARGIN_MS = 250;

/** The script run for one command: environment, directory, then the program (argv run directly, a string by /bin/sh -c). */
export function wrapCommand(command: string | readonly string[], options: ExecOptions): string {
  const lines: string[] = [];
  for (const [k, v] of Object.entries(options.env ?? {})) lines.push(`export ${k}=${shellQuote(v)}`);
  const shown = typeof command === 'string' ? command : (command[0] ?? '');
  const say = (why: string, code: number): string => `{ printf '%s\\n' ${shellQuote(`cannot run ${shown}: ${why}`)} >&2; exit ${code}; }`;
  if (options.cwd !== undefined) lines.push(`cd ${shellQuote(options.cwd)} 2>/dev/null || ${say(`working directory ${options.cwd} does not exist`, 127)}`);
  // Closing the channel when a timeout ends the command leaves the server's processes running. GNU
  // timeout, where the server has it, kills the command's whole process group (what it started in the
  // background too) a moment after this side has given up.
  let run = 'exec';
  if (options.timeout !== undefined) {
    lines.push(`if timeout --version >/dev/null 2>&1; then KILL_AFTER='timeout -s KILL ${((options.timeout + KILL_MARGIN_MS) / 1000).toFixed(3)}'; else KILL_AFTER=; fi`);
    run = 'exec $KILL_AFTER';
  }
  if (typeof command === 'string') {
    lines.push(`${run} /bin/sh -c ${shellQuote(command)}`);
  } else {
    const program = command[0] ?? '';
    if (program.includes('/')) {
      lines.push(`[ -e ${shellQuote(program)} ] || ${say('command not found (ENOENT)', 127)}`);
      lines.push(`[ -x ${shellQuote(program)} ] && [ ! -d ${shellQuote(program)} ] || ${say('permission denied (EACCES)', 126)}`);
    } else {
      lines.push(`command -v ${shellQuote(program)} >/dev/null 2>&1 || ${say('command not found (ENOENT)', 127)}`);
    }
    lines.push(`${run} ${command.map(shellQuote).join(' ')}`);
  }
  return lines.join('\n');
}

/** The command line sent to the server: the script under /bin/sh, through `sudo -n` when becoming root. */
export function commandLine(script: string, become: boolean): string {
  return `${become ? 'sudo -n -- ' : ''}/bin/sh -c ${shellQuote(script)}`;
}

/** Runs a command line on an exec channel; a lost connection rejects. */
export function runOnChannel(client: Client, line: string, options: ExecOptions): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    client.exec(line, (err, channel) => {
      if (err) {
        reject(err);
        return;
      }
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let code: number | null = null;
      let signal: string | null = null;
      let timedOut = false;
      let settled = false;
      const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
      const pass = (stream: 'stdout' | 'stderr', b: Buffer): void => {
        const text = decoders[stream].write(b);
        if (text !== '' && options.onOutput) options.onOutput(stream, text);
      };
      const finish = (): void => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        if (options.onOutput) {
          for (const s of ['stdout', 'stderr'] as const) {
            const rest = decoders[s].end();
            if (rest !== '') options.onOutput(s, rest);
          }
        }
        resolve({ code: timedOut ? null : code, signal: timedOut ? 'SIGKILL' : signal, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8'), timedOut });
      };
      const timer =
        options.timeout !== undefined
          ? setTimeout(() => {
              timedOut = true;
              try {
                channel.signal('KILL');
              } catch {
                // servers may ignore signals; closing the channel ends the session anyway
              }
              channel.close();
              finish();
            }, options.timeout)
          : undefined;
      channel.on('data', (b: Buffer) => {
        stdout.push(b);
        pass('stdout', b);
      });
      channel.stderr.on('data', (b: Buffer) => {
        stderr.push(b);
        pass('stderr', b);
      });
      channel.on('exit', (c: number | null, s?: string) => {
        code = typeof c === 'number' ? c : null;
        signal = s ? `SIG${s}` : null;
      });
      channel.on('close', () => {
        if (!settled && code === null && signal === null && !timedOut) {
          settled = true;
          if (timer) clearTimeout(timer);
          reject(new Error('the connection closed before the command finished'));
          return;
        }
        finish();
      });
      channel.on('error', () => {});
      channel.end(options.stdin ?? '');
    });
  });
}
