/**
 * The dashboard in a real browser (Debian's chromium driven by playwright-core) over a store filled by
 * real `cairn apply` runs: what a person sees on each page, a live run updating, hostile names and diffs
 * shown as text, the token and the 404 page. With $CAIRN_SCREENSHOT_DIR set, a screenshot of each page goes
 * there (none otherwise: a temporary folder nobody looks at would only cost the time to render them).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { FileRunStore } from '../../src/store/file-store.js';
import { CAIRN, cairn, tempDir } from '../cli/cli-helpers.js';
import { sshdMissing, startSshd, type TestSshd, testClientKey } from '../host/sshd.js';

/** The little of the DOM these tests read inside the page (the test itself is compiled without the DOM types). */
interface DomEl {
  readonly textContent: string | null;
  readonly dataset: Record<string, string | undefined>;
}
interface Win {
  readonly document: { readonly body: DomEl; getElementById(id: string): DomEl | null; querySelector(s: string): DomEl | null };
  getComputedStyle(e: unknown): { readonly fill: string };
}

const CHROMIUM = process.env.CAIRN_CHROMIUM ?? '/usr/bin/chromium';
const HAVE = existsSync(CHROMIUM);
if (!HAVE) console.log(`SKIPPED: dashboard browser tests: no chromium at ${CHROMIUM} (install Debian's chromium; scripts/test-deps.sh does)`);

const work = tempDir('cairn-web-');
const state = join(work, 'state');
const out = join(work, 'out');
const shots = process.env.CAIRN_SCREENSHOT_DIR;

/** A full-page screenshot into $CAIRN_SCREENSHOT_DIR, when it is set. */
async function screenshot(page: Page, name: string): Promise<void> {
  if (shots) await page.screenshot({ path: join(shots, name), fullPage: true });
}
let browser: Browser | undefined;
const servers: ChildProcess[] = [];
const sshds: TestSshd[] = [];
let base = '';

function graph(name: string, nodes: unknown[]): string {
  const file = join(work, name);
  writeFileSync(file, JSON.stringify({ version: 1, nodes }));
  return file;
}

const HOSTILE = '<script>alert(1)</script>';

function siteGraph(version: string): string {
  return graph('site.json', [
    { id: 'site', type: 'directory', params: { path: out, makedirs: true } },
    { id: 'config', type: 'file', params: { path: join(out, 'app.conf'), content: `port = 8080\nversion = ${version}\n` }, require: ['site'] },
    { id: HOSTILE, type: 'file', params: { path: join(out, 'x.html'), content: `<script>alert("${version}")</script>\n` }, require: ['site'] },
    { id: 'reload', type: 'command', params: { cmd: 'true' }, onchanges: ['config'] },
  ]);
}

/** Starts `cairn serve` on a free loopback port and returns its base URL. */
function serve(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CAIRN, 'serve', '--state-dir', state, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  servers.push(child);
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (c: Buffer) => {
      text += c.toString();
      const m = /at (http:\/\/\S+?)\/?(\s|$)/.exec(text);
      if (m?.[1]) resolve({ url: m[1].replace('0.0.0.0', '127.0.0.1'), child });
    });
    child.stderr?.on('data', (c: Buffer) => {
      text += c.toString();
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${text}`)));
  });
}

before(async () => {
  if (!HAVE) return;
  if (shots) mkdirSync(shots, { recursive: true });
  // Real runs: a first apply, a change with a diff, a plan that finds drift, a failing run.
  assert.equal(cairn(['apply', siteGraph('1'), '--state-dir', state]).code, 0);
  assert.equal(cairn(['apply', siteGraph('2'), '--state-dir', state]).code, 0);
  assert.equal(cairn(['plan', siteGraph('3'), '--state-dir', state]).code, 0);
  const bad = graph('bad.json', [{ id: 'broken', type: 'command', params: { cmd: 'echo nope >&2; exit 3' } }]);
  assert.equal(cairn(['apply', bad, '--state-dir', state]).code, 1);
  // A run on two more machines: web1 in shape, web2's config drifted.
  if (sshdMissing() === undefined) await fleetPlan();
  else {
    // Without sshd, the same run as the fleet would record it (its results name their host).
    const store = new FileRunStore(state);
    const h = await store.beginRun({ frontEnd: 'graph', mode: 'check', source: ['fleet.json'], command: 'cairn plan fleet.json --hosts web1,web2' });
    const r = (host: string, id: string, status: 'ok' | 'pending') => ({ id, name: id, type: 'file', result: status === 'ok' ? true : null, status, changes: {}, comment: `${id} on ${host}`, start: h.start, duration: 1, run_num: 0, host });
    await store.finishRun(h, { results: [r('web1', 'config', 'ok'), r('web1', 'site', 'ok'), r('web2', 'config', 'pending'), r('web2', 'site', 'ok')], exitCode: 0 });
  }
  base = (await serve(['--listen', '127.0.0.1:0'])).url;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update'] });
});

after(async () => {
  await browser?.close();
  for (const s of servers) s.kill();
  for (const s of sshds) s.stop();
});

/**
 * A real `cairn plan --hosts web1,web2` over SSH to two OpenSSH servers on loopback, each standing for a
 * machine whose root directory is its CAIRN_TEST_ROOT: web1 holds the wanted config, web2 an older one.
 */
async function fleetPlan(): Promise<void> {
  const lines: string[] = [];
  for (const [name, port] of [['web1', '8080'], ['web2', '9090']] as const) {
    const root = join(work, name);
    mkdirSync(join(root, 'site'), { recursive: true });
    writeFileSync(join(root, 'site', 'app.conf'), `port = ${port}\n`);
    const sshd = await startSshd({ setEnv: { CAIRN_TEST_ROOT: root } });
    sshds.push(sshd);
    lines.push(`  ${name}: {address: 127.0.0.1, port: ${sshd.port}}`);
  }
  const inventory = join(work, 'inventory.yaml');
  writeFileSync(inventory, `defaults:\n  user: root\n  key: ${testClientKey()}\nhosts:\n${lines.join('\n')}\n`);
  const root = { $ref: 'where', field: 'stdout' };
  const fleet = graph('fleet.json', [
    { id: 'where', type: 'wait', params: { check: 'printf %s "$CAIRN_TEST_ROOT"', max_retry: 1 } },
    { id: 'site', type: 'directory', params: { path: { $concat: [root, '/site'] } } },
    { id: 'config', type: 'file', params: { path: { $concat: [root, '/site/app.conf'] }, content: 'port = 8080\n' }, require: ['site'] },
  ]);
  mkdirSync(join(work, 'home'), { recursive: true });
  const r = cairn(['plan', fleet, '--hosts', 'web1,web2', '--inventory', inventory, '--state-dir', state, '--accept-new-host-keys'], {
    env: { HOME: join(work, 'home'), SSH_AUTH_SOCK: '' },
  });
  assert.equal(r.code, 0, r.stderr);
}

/** A page that fails the test on a script dialog (a hostile name that ran) or a CSP violation. */
async function open(path: string, options: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
  const ctx = await (browser as Browser).newContext({ javaScriptEnabled: options.javaScriptEnabled ?? true, viewport: { width: 1280, height: 860 } });
  const page = await ctx.newPage();
  page.on('dialog', (d) => {
    throw new Error(`a script ran and opened a dialog: ${d.message()}`);
  });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/.test(m.text())) problems.push(m.text());
  });
  (page as Page & { problems?: string[] }).problems = problems;
  await page.goto(`${base}${path}`);
  return page;
}

const problemsOf = (p: Page): string[] => (p as Page & { problems?: string[] }).problems ?? [];

test('runs list: every run with outcome, counts, hosts and front end, without JavaScript; filters and links', { skip: !HAVE }, async () => {
  const page = await open('/runs', { javaScriptEnabled: false });
  const rows = page.locator('table.runs tbody tr');
  assert.equal(await rows.count(), 5);
  assert.deepEqual(await page.locator('table.runs tbody tr td:nth-child(5)').allTextContents(), ['changed', 'failed', 'changed', 'changed', 'changed']);
  assert.match((await rows.nth(0).textContent()) ?? '', /web1, web2/);
  assert.match((await rows.nth(1).textContent()) ?? '', /1 failed/);
  await screenshot(page, 'runs.png');
  await page.selectOption('select[name=outcome]', 'failed');
  await page.click('button[type=submit]');
  assert.equal(await page.locator('table.runs tbody tr').count(), 1);
  await page.click('table.runs tbody tr a');
  assert.match(page.url(), /\/runs\/4$/);
  assert.match((await page.locator('main').textContent()) ?? '', /exit 1/);
  await page.context().close();
});

test('a run: per resource status, comment, the rendered diff and the output; a hostile name and diff stay text', { skip: !HAVE }, async () => {
  const page = await open('/runs/2');
  const text = (await page.locator('main').textContent()) ?? '';
  assert.match(text, /Run #2/);
  assert.ok(text.includes(HOSTILE), 'the hostile resource name is shown as text');
  assert.deepEqual(await page.locator('pre.diff .add').allTextContents(), ['+version = 2', '+<script>alert("2")</script>']);
  assert.deepEqual(await page.locator('pre.diff .del').allTextContents(), ['-version = 1', '-<script>alert("1")</script>']);
  // Only the dashboard's own scripts are on the page: the hostile ones are text.
  assert.equal(await page.locator('main script').count(), 0);
  assert.match((await page.locator('details.output pre').textContent()) ?? '', /Applied: 3 changed, 1 ok/);
  assert.deepEqual(problemsOf(page), []);
  await screenshot(page, 'run.png');
  await page.context().close();
});

test('the graph of a run: a node per resource coloured by outcome, edges by requisite kind', { skip: !HAVE }, async () => {
  const page = await open('/runs/2/graph');
  const nodes = page.locator('svg.graph a.node');
  assert.equal(await nodes.count(), 4);
  const status = Object.fromEntries(await nodes.evaluateAll((els) => els.map((e) => [e.getAttribute('data-node'), e.getAttribute('data-status')])));
  assert.deepEqual(status, { site: 'ok', config: 'changed', [HOSTILE]: 'changed', reload: 'changed' });
  const kinds = (await page.locator('svg.graph path.edge').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))).sort();
  assert.deepEqual(kinds, ['onchanges', 'require', 'require']);
  const fill = await page.locator('svg.graph a.node.changed rect').first().evaluate((e) => (globalThis as unknown as Win).getComputedStyle(e).fill);
  const okFill = await page.locator('svg.graph a.node.ok rect').first().evaluate((e) => (globalThis as unknown as Win).getComputedStyle(e).fill);
  assert.notEqual(fill, okFill);
  await screenshot(page, 'graph.png');
  await page.locator('svg.graph a.node[data-node=config]').click();
  assert.match(page.url(), /\/runs\/2#r-/);
  await page.context().close();
});

test('drift: hosts × resources with the latest state, cells linking to their last run, filterable', { skip: !HAVE }, async () => {
  const page = await open('/drift', { javaScriptEnabled: false });
  const hosts = await page.locator('table.drift thead th.host').allTextContents();
  assert.equal(hosts.length, 3);
  assert.ok(hosts.includes('web1') && hosts.includes('web2'));
  const local = hosts.find((h) => h !== 'web1' && h !== 'web2') as string;
  const col = hosts.indexOf(local) + 2;
  const cellOf = (resource: string, c: number) => page.locator(`table.drift tbody tr:has(th:text-is("${resource}")) td:nth-child(${c})`);
  // The plan (run 3) found config drifted; the failing run's command failed.
  assert.equal((await cellOf('config', col).textContent())?.startsWith('drifted'), true);
  assert.equal((await cellOf('broken', col).textContent())?.startsWith('failed'), true);
  assert.equal(await cellOf('config', col).locator('a').getAttribute('href'), await cellOf('config', col).locator('a').getAttribute('href'));
  assert.match((await cellOf('config', col).locator('a').getAttribute('href')) ?? '', /^\/runs\/3#r-/);
  assert.equal((await cellOf('site', col).textContent())?.startsWith('ok'), true);
  await screenshot(page, 'drift.png');
  await page.fill('input[name=host]', 'web2');
  await page.click('button[type=submit]');
  assert.deepEqual(await page.locator('table.drift thead th.host').allTextContents(), ['web2']);
  await page.locator('td.cell.drifted a').first().click();
  assert.match(page.url(), /\/runs\/5#r-/);
  await page.context().close();
});

test('trends: uPlot charts drawn from the package, under the CSP', { skip: !HAVE }, async () => {
  const page = await open('/trends');
  await page.waitForFunction(() => (globalThis as unknown as Win).document.body.dataset.charts === 'drawn');
  assert.equal(await page.locator('.uplot').count(), 2);
  assert.deepEqual(problemsOf(page), []);
  await screenshot(page, 'trends.png');
  await page.context().close();
});

test('a live run: its page fills in over server-sent events, then shows the finished run', { skip: !HAVE }, async () => {
  const flag = join(work, 'go');
  const slow = graph('slow.json', [
    { id: 'first', type: 'command', params: { cmd: 'true' } },
    { id: 'wait', type: 'command', params: { cmd: `while [ ! -e ${flag} ]; do sleep 0.1; done` }, require: ['first'] },
    { id: 'last', type: 'command', params: { cmd: 'true' }, require: ['wait'] },
  ]);
  const run = spawn(process.execPath, [CAIRN, 'apply', slow, '--state-dir', state], { stdio: 'ignore' });
  const finished = new Promise((r) => run.on('exit', r));
  while ((await fetch(`${base}/runs/6`)).status === 404) await new Promise((r) => setTimeout(r, 100));
  const page = await open('/runs/6');
  // The page opened while the run had no results; they arrive over server-sent events.
  await page.waitForFunction(() => ((globalThis as unknown as Win).document.getElementById('results')?.textContent ?? '').includes('first'), undefined, { timeout: 15000 });
  assert.match((await page.locator('h1').textContent()) ?? '', /running/);
  // The live script counts the result batches it received over server-sent events.
  await page.waitForFunction(() => Number((globalThis as unknown as Win).document.getElementById('results')?.dataset.updates ?? 0) >= 1, undefined, { timeout: 15000 });
  await screenshot(page, 'live.png');
  writeFileSync(flag, '');
  await finished;
  await page.waitForFunction(() => ((globalThis as unknown as Win).document.querySelector('h1')?.textContent ?? '').includes('changed'), undefined, { timeout: 15000 });
  assert.match((await page.locator('#results').textContent()) ?? '', /3 results/);
  await page.context().close();
});

test('an unknown run is a 404 page; every response carries the CSP', { skip: !HAVE }, async () => {
  const res = await fetch(`${base}/runs/999`);
  assert.equal(res.status, 404);
  assert.match(await res.text(), /There is no run 999/);
  assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  const css = await fetch(`${base}/assets/uplot.css`);
  assert.equal(css.status, 200);
  assert.equal(await css.text(), readFileSync(join(import.meta.dirname, '../../node_modules/uplot/dist/uPlot.min.css'), 'utf8'));
});

test('another address needs a token, checked on every request; a wrong one is 401', { skip: !HAVE }, async () => {
  const refused = cairn(['serve', '--state-dir', state, '--listen', '0.0.0.0:0']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /give an access token with --token/);
  const { url } = await serve(['--listen', '0.0.0.0:0', '--token', 's3cret']);
  assert.equal((await fetch(`${url}/runs`)).status, 401);
  assert.equal((await fetch(`${url}/runs`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
  assert.equal((await fetch(`${url}/assets/app.css`)).status, 401);
  assert.equal((await fetch(`${url}/runs`, { headers: { authorization: 'Bearer s3cret' } })).status, 200);
  // In a browser: ?token= once, then the cookie carries it.
  const ctx = await (browser as Browser).newContext();
  const page = await ctx.newPage();
  await page.goto(`${url}/drift?token=s3cret`);
  assert.match(page.url(), /\/drift$/);
  await page.click('a[href="/runs"]');
  assert.equal(await page.locator('table.runs tbody tr').count() > 0, true);
  await ctx.close();
});
