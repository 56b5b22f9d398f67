/** The dashboard's responses without a browser: escaping, headers, the token, 404s, paging, the live stream. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FileRunStore } from '../../src/store/file-store.js';
import { createDashboard, CSP } from '../../src/web/server.js';
import { tempDir } from '../store/helpers.js';

const EVIL = '<img src=x onerror=alert(1)>"\'&';

async function filled(t: { after: (fn: () => void) => void }): Promise<FileRunStore> {
  const store = new FileRunStore(tempDir(t));
  for (let i = 0; i < 3; i++) {
    const h = await store.beginRun({ frontEnd: 'graph', mode: i === 1 ? 'check' : 'apply', source: [`/srv/${EVIL}.json`], command: `cairn apply ${EVIL}` });
    await store.finishRun(h, {
      exitCode: 0,
      output: `output ${EVIL}\n`,
      edges: [{ from: 'dir', to: EVIL, kind: 'require' }],
      results: [
        { id: 'dir', name: 'dir', type: 'directory', result: true, status: 'ok', changes: {}, comment: 'ok', start: h.start, duration: 1, run_num: 0 },
        { id: EVIL, name: EVIL, type: 'file', result: null, status: i === 1 ? 'pending' : 'changed', changes: { diff: `--- a\n+++ b\n@@ -1 +1 @@\n-${EVIL}\n+${EVIL}!\n`, [EVIL]: EVIL }, comment: EVIL, start: h.start, duration: 1, run_num: 1 },
      ],
    });
  }
  return store;
}

test('every page escapes what it shows and carries the CSP', async (t) => {
  const store = await filled(t);
  const app = createDashboard(store);
  const host = (await store.getRun(1))?.hosts[0] ?? '';
  for (const path of ['/runs', '/runs/3', '/runs/3/graph', '/drift', '/trends', `/resources?host=${encodeURIComponent(host)}&resource=${encodeURIComponent(EVIL)}`, `/runs?source=${encodeURIComponent(EVIL)}`]) {
    const res = await app.request(path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('content-security-policy'), CSP);
    const body = await res.text();
    assert.ok(!body.includes('<img src=x'), `${path} holds the raw markup`);
    assert.ok(!/<script(?![^>]*src="\/assets\/)/.test(body), `${path} has an inline script`);
    assert.ok(!/ style=/.test(body), `${path} has an inline style`);
  }
  const run = await (await app.request('/runs/3')).text();
  assert.ok(run.includes('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;'));
  assert.match(run, /<span class="add">\+&lt;img src=x onerror=alert\(1\)&gt;&quot;&#39;&amp;!<\/span>/);
});

test('an unknown run or page is a 404 page; paging links follow the cursor', async (t) => {
  const app = createDashboard(await filled(t));
  for (const path of ['/runs/99', '/runs/abc', '/runs/99/graph', '/nowhere']) {
    const res = await app.request(path);
    assert.equal(res.status, 404, path);
    assert.match(await res.text(), /<h1>Not found<\/h1>/);
  }
  const page = await (await app.request('/runs?limit=2')).text();
  assert.match(page, /href="\/runs\?before=2"/);
  const next = await (await app.request('/runs?before=2')).text();
  assert.match(next, /href="\/runs\/1"/);
  assert.doesNotMatch(next, /href="\/runs\/3"/);
});

test('with a token: 401 without it or with a wrong one, on pages and assets alike; ?token= becomes a cookie', async (t) => {
  const app = createDashboard(await filled(t), { token: 'right' });
  assert.equal((await app.request('/runs')).status, 401);
  assert.equal((await app.request('/assets/app.css')).status, 401);
  assert.equal((await app.request('/runs', { headers: { authorization: 'Bearer wrong' } })).status, 401);
  assert.equal((await app.request('/runs', { headers: { cookie: 'cairn_token=wrong' } })).status, 401);
  assert.equal((await app.request('/runs', { headers: { authorization: 'Bearer right' } })).status, 200);
  const login = await app.request('/drift?token=right&state=ok');
  assert.equal(login.status, 303);
  assert.equal(login.headers.get('location'), '/drift?state=ok');
  assert.match(login.headers.get('set-cookie') ?? '', /^cairn_token=right; Path=\/; HttpOnly; SameSite=Strict/);
  assert.equal((await app.request('/drift', { headers: { cookie: 'cairn_token=right' } })).status, 200);
});

test('the live stream sends the results and ends when the run has finished', async (t) => {
  const store = await filled(t);
  const app = createDashboard(store, { pollMs: 20 });
  const res = await app.request('/runs/3/events');
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const text = await res.text();
  assert.match(text, /^event: results\ndata: .*&lt;img src=x/m);
  assert.match(text, /event: done\ndata: finished/);
  assert.equal((await app.request('/runs/99/events')).status, 404);
});
