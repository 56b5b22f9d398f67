/** `with` blocks (retry, timeout, lock, async, executionPolicy) and `await`. */
import type { Span } from '../../core/diag.js';
import type { WithStatement } from './ast.js';
import type { Frame } from './engine-types.js';
import { ControlSignal, OtterError } from './errors.js';
import type { Child, Engine } from './executer.js';

/** `!token` locks are shared by every execution in this process. */
const globalLocks = new Map<string, Promise<void>>();

/** Waits for the token's current holder; returns the release function. */
async function acquire(registry: Map<string, Promise<void>>, token: string): Promise<() => void> {
  const key = token.toLowerCase();
  const previous = registry.get(key) ?? Promise.resolve();
  let release = (): void => {};
  const mine = new Promise<void>((r) => {
    release = r;
  });
  const tail = previous.then(() => mine);
  registry.set(key, tail);
  await previous;
  return () => {
    release();
    if (registry.get(key) === tail) registry.delete(key);
  };
}

async function withLock(engine: Engine, stmt: WithStatement, frame: Frame, body: (f: Frame) => Promise<void>): Promise<void> {
  const token = stmt.directives.lock;
  if (token === undefined) return body(frame);
  if (frame.locked) throw new OtterError('a lock block cannot be nested inside another lock block', stmt.span, true);
  const global = token.startsWith('!');
  const release = await acquire(global ? globalLocks : engine.shared.locks, global ? token.slice(1) : token);
  try {
    await body({ ...frame, locked: true });
  } finally {
    release();
  }
}

async function withTimeout(stmt: WithStatement, frame: Frame, body: (f: Frame) => Promise<void>): Promise<void> {
  const seconds = stmt.directives.timeout;
  if (seconds === undefined) return body(frame);
  const cancel: { reason?: string } = {};
  const running = body({ ...frame, cancels: [...frame.cancels, cancel] });
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      cancel.reason = `the block did not finish within its timeout of ${seconds} seconds`;
      reject(new OtterError(cancel.reason, stmt.span));
    }, seconds * 1000);
  });
  // The body may still settle after the timeout; its outcome no longer matters.
  running.catch(() => {});
  try {
    await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
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
      await withRetry(e, stmt, () => withTimeout(stmt, f, (t) => withLock(e, stmt, t, (l) => e.block(stmt.body, l))));
    } finally {
      close();
    }
  };
  if (!d.async) return run(engine, inner);
  const child = new (engine.constructor as new (shared: Engine['shared']) => Engine)(engine.shared);
  const forked: Frame = { ...inner, scope: inner.scope.fork(engine.shared.global) };
  const entry: Child = { token: d.asyncToken, engine: child, done: Promise.resolve() };
  entry.done = (async () => {
      try {
        await run(child, forked);
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
