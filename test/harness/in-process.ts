/**
 * Runs the built CLI (dist/) inside this test process instead of spawning `node bin/cairn.js` for every
 * command line. A worker thread loads the CLI once; each call hands it argv and the environment, moves this
 * process to the run's working directory, and blocks until the run is done, so the call is synchronous
 * like spawnSync and the callers need no change. Exit code, stdout and stderr come back as a spawn's would.
 * Per-run state is the worker's: argv, environment and process.exitCode are set and restored around each run.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

interface Runner {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly flag: Int32Array;
}

/** A run that takes longer than this is reported as hung rather than waited for forever. */
const HUNG_MS = 10 * 60 * 1000;
let runner: Runner | undefined;
let dead: string | undefined;

function start(root: string): Runner {
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(new URL('./cli-worker.mjs', import.meta.url), {
    workerData: { port: port2, flag, main: pathToFileURL(join(root, 'dist/cairn.cjs')).href },
    transferList: [port2],
    execArgv: [],
  });
  worker.on('error', (e) => {
    dead = e instanceof Error ? (e.stack ?? e.message) : String(e);
  });
  worker.on('exit', () => {
    dead ??= 'the in-process CLI worker exited';
    runner = undefined;
  });
  worker.unref();
  port1.unref();
  return { worker, port: port1, flag };
}

let sequence = 0;

/**
 * Runs `cairn ARGS…` in-process, in `cwd`, with exactly `env` as its environment.
 * Each request carries a number the worker echoes in its reply and stores in `flag` once the reply is
 * posted. The reply is taken only by that number: a reply can become visible to receiveMessageOnPort a
 * moment after the flag changes, and one left behind by a call that threw must never answer the next.
 */
export function runInProcess(root: string, cli: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): InProcessResult {
  if (dead) throw new Error(`in-process runner is gone: ${dead}`);
  runner ??= start(root);
  const { port, flag } = runner;
  const seq = (sequence = (sequence % 0x7ffffffe) + 1);
  const before = process.cwd();
  process.chdir(cwd);
  try {
    port.postMessage({ seq, argv: [process.execPath, cli, ...args], env });
    const deadline = Date.now() + HUNG_MS;
    for (;;) {
      const reply = receiveMessageOnPort(port);
      if (reply) {
        const { seq: answered, result } = reply.message as { seq: number; result: InProcessResult };
        if (answered === seq) return result;
        continue; // the reply to an earlier call that gave up: dropped
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`in-process cairn ${args.join(' ')} did not finish in ${HUNG_MS / 1000} s`);
      const seen = Atomics.load(flag, 0);
      // Done but not yet visible: look again in a millisecond. Otherwise sleep until the worker stores.
      Atomics.wait(flag, 0, seen, seen === seq ? 1 : left);
    }
  } finally {
    process.chdir(before);
  }
}
