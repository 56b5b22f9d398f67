/** `cairn serve`: the dashboard on 127.0.0.1 by default; any other address needs an access token. */
import { serve } from '@hono/node-server';
import { openRunStore } from '../store/index.js';
import { createDashboard } from '../web/server.js';
import { UserError } from '../engine/errors.js';
import { writeOut } from '../engine/stdio.js';

export interface ServeOptions {
  listen: string;
  token?: string;
  store?: string;
  stateDir?: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*))(?::(\d{1,5}))?$/.exec(text.trim());
  const host = m?.[1] ?? m?.[2] ?? '';
  const port = m?.[3] === undefined ? 7707 : Number(m[3]);
  if (!m || port > 65535) throw new UserError(`--listen ${JSON.stringify(text)}: expected ADDRESS:PORT, e.g. 127.0.0.1:7707 or [::]:8080`);
  return { host: host === '' ? '127.0.0.1' : host, port };
}

export async function serveCommand(opts: ServeOptions): Promise<number> {
  const { host, port } = parseListen(opts.listen);
  const token = opts.token ?? process.env.CAIRN_SERVE_TOKEN;
  if (!LOOPBACK.has(host) && !token) {
    throw new UserError(`serve: listening on ${host} lets other machines in; give an access token with --token (or $CAIRN_SERVE_TOKEN)`);
  }
  const store = await openRunStore({ store: opts.store, stateDir: opts.stateDir });
  const app = createDashboard(store, { token });
  const server = serve({ fetch: app.fetch, hostname: host, port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (e: NodeJS.ErrnoException) => reject(new UserError(`serve: cannot listen on ${opts.listen}: ${e.code === 'EADDRINUSE' ? 'address in use' : e.message}`)));
  });
  const addr = server.address();
  const shown = typeof addr === 'object' && addr ? `${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}` : opts.listen;
  writeOut(`cairn: dashboard for ${store.location} at http://${shown}/${token ? ' (token required)' : ''}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      server.close(() => resolve());
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await store.close();
  return 0;
}
