/**
 * The dashboard: a read-only Hono app over a run store. Every response carries a strict
 * Content-Security-Policy (scripts and styles only from the dashboard itself); with a token, every request
 * must carry it (Authorization: Bearer, or the cookie set by opening any page with ?token=…).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { RunStore, StoredRun } from '../store/types.js';
import { asset } from './assets.js';
import { notFound, unauthorized } from './layout.js';
import { driftPage } from './pages/drift.js';
import { graphPage } from './pages/graph.js';
import { resourcePage } from './pages/resource.js';
import { resultsFragment, runPage } from './pages/run.js';
import { runsPage } from './pages/runs.js';
import { trendData, trendsPage } from './pages/trends.js';

export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const COOKIE = 'cairn_token';

export interface DashboardOptions {
  readonly token?: string | undefined;
  /** How often the live view looks for new results (ms). */
  readonly pollMs?: number;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

function cookieToken(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

export function createDashboard(store: RunStore, options: DashboardOptions = {}): Hono {
  const app = new Hono();
  const want = options.token ? digest(options.token) : undefined;
  const pollMs = options.pollMs ?? 500;

  app.use('*', async (c, next) => {
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cache-Control', 'no-store');
    if (!want) return next();
    const auth = c.req.header('authorization');
    const fromQuery = c.req.query('token');
    const given = auth?.startsWith('Bearer ') ? auth.slice(7) : (fromQuery ?? cookieToken(c.req.header('cookie')));
    if (given === undefined || !timingSafeEqual(digest(given), want)) return c.html(unauthorized(), 401);
    if (fromQuery !== undefined) {
      // The token moves from the address bar into a cookie the page's own requests carry.
      c.header('Set-Cookie', `${COOKIE}=${encodeURIComponent(fromQuery)}; Path=/; HttpOnly; SameSite=Strict`);
      const url = new URL(c.req.url);
      url.searchParams.delete('token');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    return next();
  });

  app.get('/', (c) => c.redirect('/runs', 302));
  app.get('/runs', async (c) => c.html(await runsPage(store, c.req.query())));
  const getRun = async (id: string): Promise<StoredRun | undefined> => (/^\d{1,15}$/.test(id) ? store.getRun(Number(id)) : undefined);
  app.get('/runs/:id', async (c) => {
    const run = await getRun(c.req.param('id'));
    return run ? c.html(runPage(run)) : c.html(notFound(`There is no run ${c.req.param('id')} in this store.`), 404);
  });
  app.get('/runs/:id/graph', async (c) => {
    const run = await getRun(c.req.param('id'));
    return run ? c.html(graphPage(run, c.req.query('host'))) : c.html(notFound(`There is no run ${c.req.param('id')} in this store.`), 404);
  });
  app.get('/runs/:id/events', async (c) => {
    const id = c.req.param('id');
    if (!(await getRun(id))) return c.text('no such run', 404);
    return streamSSE(c, async (stream) => {
      let last = '';
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      while (open) {
        const run = await getRun(id);
        if (!run) break;
        const key = `${run.state}:${run.results.length}`;
        if (key !== last) {
          last = key;
          await stream.writeSSE({ event: 'results', data: resultsFragment(run).text.replace(/\n/g, ' ') });
        }
        if (run.state !== 'running') {
          await stream.writeSSE({ event: 'done', data: run.state });
          break;
        }
        await stream.sleep(pollMs);
      }
    });
  });
  app.get('/drift', async (c) => c.html(await driftPage(store, c.req.query())));
  app.get('/resources', async (c) => {
    const host = c.req.query('host');
    const resource = c.req.query('resource');
    if (!host || !resource) return c.html(notFound('Give a host and a resource.'), 404);
    return c.html(await resourcePage(store, host, resource, c.req.query('before')));
  });
  app.get('/trends', async (c) => c.html(await trendsPage(store)));
  app.get('/trends.json', async (c) => c.json(await trendData(store)));
  app.get('/assets/:name', (c) => {
    const a = asset(c.req.param('name'));
    if (!a) return c.text('not found', 404);
    c.header('Content-Type', a.type);
    c.header('Cache-Control', 'max-age=3600');
    return c.body(typeof a.body === 'string' ? a.body : new Uint8Array(a.body));
  });
  app.notFound((c) => c.html(notFound(`Nothing at ${new URL(c.req.url).pathname}.`), 404));
  app.onError((e, c) => {
    const store = typeof e === 'object' && e !== null && (e as { isStoreError?: boolean }).isStoreError;
    return c.html(notFound(store ? e.message : 'The dashboard hit a bug; the server log has the details.'), store ? 503 : 500);
  });
  return app;
}
