/** `with` blocks (retry, timeout, lock, async, executionPolicy) and `await`. */
import type { Span } from '../../core/diag.js';
import type { WithStatement } from './ast.js';
import type { Cancel, Frame } from './engine-types.js';
import { Cancelled, ControlSignal, OtterError } from './errors.js';
import { acquireTokenFile } from './token-lock.js';
import type { Child, Engine } from './executer.js';

/** `!token` locks are shared by every execution in this process, and through lock files by other processes. */
const globalLocks = new Map<string, Promise<void>>();

const NEVER = new AbortController().signal;

/** Waits for the token's current holder in this process; returns the release function. */
async function acquire(registry: Map<string, Promise<void>>, token: string, signal: AbortSignal): Promise<() => void> {
  const key = token.toLowerCase();
  const previous = registry.get(key) ?? Promise.resolve();
  let release = (): void => {};
  const mine = new Promise<void>((r) => {
    release = r;
  });
  const tail = previous.then(() => mine);
  registry.set(key, tail);
  const free = (): void => {
    release();
    if (registry.get(key) === tail) registry.delete(key);
  };
  let onAbort = (): void => {};
  const aborted = new Promise<'aborted'>((r) => {
    onAbort = () => r('aborted');
    if (signal.aborted) r('aborted');
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const outcome = await Promise.race([previous.then(() => 'held' as const), aborted]);
  signal.removeEventListener('abort', onAbort);
  if (outcome === 'aborted') {
    // Whoever waits behind this block must not wait for it.
    free();
    throw new Cancelled();
  }
  return free;
}

/** Aborted when any enclosing `with timeout` expires. */
export function signalOf(frame: Frame): AbortSignal {
  if (frame.cancels.length === 0) return NEVER;
  const signals = frame.cancels.map((c) => c.controller.signal);
  return signals.length === 0 ? NEVER : signals.length === 1 ? (signals[0] as AbortSignal) : AbortSignal.any(signals);
}

async function withLock(engine: Engine, stmt: WithStatement, frame: Frame, body: (f: Frame) => Promise<void>): Promise<void> {
  const token = stmt.directives.lock;
  if (token === undefined) return body(frame);
  if (frame.locked) throw new OtterError('a lock block cannot be nested inside another lock block', stmt.span, true);
  const global = token.startsWith('!');
  const name = global ? token.slice(1) : token;
  const signal = signalOf(frame);
  const releases: (() => void)[] = [];
  try {
    releases.push(await acquire(global ? globalLocks : engine.shared.locks, name, signal));
    const dir = engine.shared.options.lockDir;
    if (global && dir !== undefined) releases.push(await acquireTokenFile(dir, name, signal));
  } catch (e) {
    for (const r of releases.reverse()) r();
    if (e instanceof Cancelled) throw Object.assign(new OtterError('cancelled', stmt.span), { logged: true });
    throw e;
  }
  try {
    await body({ ...frame, locked: true });
  } finally {
    for (const r of releases.reverse()) r();
  }
}

/**
 * Seed: a timeout signals the running task to abort. When it expires, the running operation is cancelled
 * (its process killed, its sleep cut short), no further statement of the block starts, and once the body
 * has stopped the block raises the timeout error.
 */
async function withTimeout(stmt: WithStatement, frame: Frame, body: (f: Frame) => Promise<void>): Promise<void> {
  const seconds = stmt.directives.timeout;
  if (seconds === undefined) return body(frame);
  const cancel: Cancel = { deadline: Date.now() + seconds * 1000, controller: new AbortController() };
  const running = body({ ...frame, cancels: [...frame.cancels, cancel] });
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), seconds * 1000);
  });
  try {
    if ((await Promise.race([running.then(() => 'done' as const), expired])) === 'done') return;
  } finally {
    clearTimeout(timer);
  }
  cancel.reason = `the block did not finish within its timeout of ${seconds} seconds`;
  cancel.controller.abort();
  // Whatever the cancelled body raises now is the timeout's doing.
  await running.catch(() => {});
  throw new OtterError(cancel.reason, stmt.span);
}

async function withRetry(engine: Engine, stmt: WithStatement, body: () => Promise<void>): Promise<void> {
  const attempts = (stmt.directives.retry ?? 0) + 1;
  const entry = engine.status;
  for (let attempt = 1; ; attempt++) {
    try {
      return await body();
    } catch (e) {
      if (!(e instanceof OtterError) || e.fatal || attempt >= attempts) throw e;
      // Seed: the status is reset to its value at the block's entry before the next attempt.
      engine.status = entry;
      engine.write('INFO', `Retrying the block (attempt ${attempt + 1} of ${attempts})...`);
    }
  }
}

export async function runWith(engine: Engine, stmt: WithStatement, frame: Frame): Promise<void> {
  const d = stmt.directives;
  const inner: Frame = d.executionPolicy === undefined ? frame : { ...frame, policyAlways: d.executionPolicy === 'always' };
  const run = async (e: Engine, f: Frame): Promise<void> => {
    const close = e.scope(stmt.description);
    try {
      f = enterIsolationAndCredentials(e, stmt, f);
      await withRetry(e, stmt, () => withTimeout(stmt, f, (t) => withLock(e, stmt, t, (l) => e.block(stmt.body, l))));
    } finally {
      close();
    }
  };
  if (!d.async) return run(engine, inner);
  const child = new (engine.constructor as new (shared: Engine['shared']) => Engine)(engine.shared);
  child.nested = true;
  const forked: Frame = { ...inner, scope: inner.scope.fork(engine.shared.global) };
  const entry: Child = { token: d.asyncToken, engine: child, done: Promise.resolve() };
  entry.done = (async () => {
      try {
        // Only blocks started by the script itself take a slot: a nested block waits for its parent, so
        // letting it queue behind its own parent could never end.
        await (engine.nested ? run(child, forked) : engine.shared.asyncSlots.run(() => run(child, forked)));
      } catch (e) {
        if (e instanceof ControlSignal && e.kind !== 'fail') return;
        if (e instanceof OtterError || e instanceof ControlSignal) entry.error = e;
        else throw e;
      } finally {
        await runAwait(child, undefined, undefined, true).catch((e: unknown) => {
          if (e instanceof OtterError || e instanceof ControlSignal) entry.error ??= e;
        });
      }
    })();
  engine.children.push(entry);
}

/**
 * Waits for asynchronous blocks (all, or those of a token), adopts their log, inherits Warning or Error,
 * and raises a child's error here, where a `try` around the await can catch it.
 */
export async function runAwait(engine: Engine, token: string | undefined, span: Span | undefined, implicit: boolean): Promise<void> {
  const matching = engine.children.filter((c) => token === undefined || c.token?.toLowerCase() === token.toLowerCase());
  if (matching.length === 0) {
    if (!implicit) engine.write('WARN', token === undefined ? 'There are no asynchronous blocks to await.' : `There are no asynchronous blocks with the token ${token} to await.`);
    return;
  }
  let raised: OtterError | ControlSignal | undefined;
  for (const c of matching) {
    await c.done;
    engine.children.splice(engine.children.indexOf(c), 1);
    engine.log.adopt(c.engine.log);
    if (c.engine.status === 'error') engine.status = 'error';
    else if (c.engine.status === 'warning' && engine.status === 'normal') engine.status = 'warning';
    raised ??= c.error;
  }
  if (raised instanceof ControlSignal) throw raised;
  if (raised) {
    const e = new OtterError(raised.message, span ?? raised.span, raised.fatal);
    e.logged = true;
    throw e;
  }
}

/**
 * `isolation`: Otter starts a new agent process for the block's remote operations. cairn has no agent:
 * operations already run on this machine, in cairn's own process, so the block runs in place; the debug
 * log says so. `credentials=NAME`: the named credentials must exist (credentials file or environment);
 * the user name is logged, the secret is never shown (it is masked in every log line).
 */
function enterIsolationAndCredentials(engine: Engine, stmt: WithStatement, frame: Frame): Frame {
  const d = stmt.directives;
  if (d.isolation) engine.write('DEBUG', 'Isolation requested: cairn has no agent process to isolate operations in; they run in this process on this machine.');
  if (d.credentials === undefined) return frame;
  const found = [...(engine.shared.options.credentials ?? new Map())].find(([k]) => k.toLowerCase() === d.credentials?.toLowerCase());
  if (!found) throw new OtterError(`credentials ${d.credentials} were not found (define them in the credentials file or as the environment variable CAIRN_OTTER_CREDENTIAL_${d.credentials.toUpperCase()}=user:password)`, stmt.span);
  engine.shared.secrets.add(found[1].password);
  engine.write('DEBUG', `Using credentials ${found[0]} (user ${found[1].userName}); processes still start as the user running cairn.`);
  return { ...frame, credentials: found[0] };
}
