// The worker behind test/harness/in-process.ts: it loads the built CLI once and runs one command line per
// request with its own argv, environment, exit code and captured stdout/stderr, restoring them after.
// The caller blocks on `flag` until the result is posted (so the runner stays synchronous, like spawnSync);
// the reply carries the request's number, which is also what goes into `flag`.
import { workerData } from 'node:worker_threads';

const { port, flag, main } = workerData;
const { runCli, rememberLocalFacts } = await import(main);
// The runs of a test file share this machine's facts where their working directory and environment are
// the same, as one process would read them once.
await rememberLocalFacts();

let current;
const stray = [];
const note = (what, e) => {
  const text = `in-process runner: ${what}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`;
  if (current) current.stderr += text;
  else stray.push(text);
};
// What escapes a run (a rejection nobody awaited, a throwing timer) is shown with the run, or the next one.
process.on('uncaughtException', (e) => note('uncaught exception', e));
process.on('unhandledRejection', (e) => note('unhandled rejection', e));
process.exit = (code) => {
  throw new Error(`process.exit(${code}) called inside an in-process run`);
};

function setEnv(env) {
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
}

port.on('message', async ({ seq, argv, env }) => {
  const saved = { argv: process.argv, env: { ...process.env }, out: process.stdout.write, err: process.stderr.write };
  const run = { stdout: '', stderr: stray.splice(0).join('') };
  current = run;
  const text = (chunk, encoding) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8'));
  const capture = (key) =>
    function (chunk, encoding, cb) {
      if (current === run) run[key] += text(chunk, encoding);
      const done = typeof encoding === 'function' ? encoding : cb;
      if (typeof done === 'function') queueMicrotask(() => done());
      return true;
    };
  let code;
  try {
    setEnv(env);
    process.argv = argv;
    process.stdout.write = capture('stdout');
    process.stderr.write = capture('stderr');
    code = await runCli(argv);
  } catch (e) {
    note('runCli threw', e);
    code = 70;
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    process.argv = saved.argv;
    setEnv(saved.env);
    current = undefined;
  }
  port.postMessage({ seq, result: { code, stdout: run.stdout, stderr: run.stderr } });
  Atomics.store(flag, 0, seq);
  Atomics.notify(flag, 0);
});
