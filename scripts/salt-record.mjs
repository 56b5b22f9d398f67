// Records expected outputs of the Salt differential corpus (test/fixtures/salt/diff/<case>/) from a real
// salt-call. Usage: SALT_CALL=/path/to/salt-call node scripts/salt-record.mjs [case ...]
// With no case names every case is recorded. Each case is copied to a fresh temp dir (every `@ROOT@` in its
// files replaced with that dir), setup.sh runs there, then `salt-call --local --id cairn-test <args>` runs with
// `--out json` (unless args choose another --out) and --file-root/--pillar-root (unless args give -c).
// The normalized stdout goes to expected.json (or expected.txt for a text outputter), the exit code to
// expected.exit. Keep this in step with test/frontends/salt/differential.test.ts.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CORPUS = new URL('../test/fixtures/salt/diff/', import.meta.url).pathname;
const CASE_ONLY = new Set(['args', 'note', 'setup.sh', 'expected.json', 'expected.txt', 'expected.exit']);

/** Splits one line as a POSIX shell would (quotes and backslashes; no expansions). */
export function shellWords(line) {
  const words = [];
  let cur = null;
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      cur = (cur ?? '') + line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      cur = cur ?? '';
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) i++;
        cur += line[i++];
      }
      if (i >= line.length) throw new Error(`unterminated " in: ${line}`);
      i++;
    } else if (c === '\\' && i + 1 < line.length) {
      cur = (cur ?? '') + line[i + 1];
      i += 2;
    } else if (/\s/.test(c)) {
      if (cur !== null) words.push(cur);
      cur = null;
      i++;
    } else {
      cur = (cur ?? '') + c;
      i++;
    }
  }
  if (cur !== null) words.push(cur);
  return words;
}

function substitute(dir, root) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) substitute(p, root);
    else if (st.isFile()) {
      const text = readFileSync(p, 'latin1');
      if (text.includes('@ROOT@')) writeFileSync(p, text.replaceAll('@ROOT@', root), 'latin1');
    }
  }
}

/** A fresh copy of the case with @ROOT@ replaced, setup.sh run; returns the root and the salt-call words. */
export function prepare(caseDir) {
  const root = mkdtempSync(join(tmpdir(), 'salt-diff-'));
  for (const name of readdirSync(caseDir)) {
    if (!CASE_ONLY.has(name)) cpSync(join(caseDir, name), join(root, name), { recursive: true });
  }
  substitute(root, root);
  const setup = join(caseDir, 'setup.sh');
  if (existsSync(setup)) {
    const r = spawnSync('sh', ['-e', setup], { cwd: root, env: { ...process.env, ROOT: root }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`setup.sh failed in ${caseDir}: ${r.stderr}`);
  }
  const words = shellWords(readFileSync(join(caseDir, 'args'), 'utf8').trim().replaceAll('@ROOT@', root));
  const extra = ['--local', '--id', 'cairn-test'];
  if (!words.some((w) => w === '--out' || w.startsWith('--out='))) extra.push('--out', 'json');
  if (!words.some((w) => w === '-c' || w === '--config-dir' || w.startsWith('--config-dir='))) {
    extra.push('--file-root', join(root, 'srv/salt'), '--pillar-root', join(root, 'srv/pillar'));
  }
  return { root, words: [...extra, ...words], text: !extra.includes('json') };
}

function replaceRoot(value, root) {
  if (typeof value === 'string') return value.replaceAll(root, '@ROOT@');
  if (Array.isArray(value)) return value.map((v) => replaceRoot(v, root));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[replaceRoot(k, root)] = replaceRoot(v, root);
    return out;
  }
  return value;
}

/** --out json: drop start_time/duration from results, zero pid inside changes, temp root → @ROOT@. */
export function normalizeJson(stdout, root) {
  let data;
  try {
    data = JSON.parse(stdout);
  } catch {
    return { text: normalizeText(stdout, root) };
  }
  const local = data && typeof data === 'object' ? data.local : undefined;
  if (local && typeof local === 'object' && !Array.isArray(local)) {
    // state.low prints one result itself; the others a dict of results.
    const results = '__run_num__' in local && 'result' in local ? [local] : Object.values(local);
    for (const r of results) {
      if (!r || typeof r !== 'object' || Array.isArray(r)) continue;
      delete r.start_time;
      delete r.duration;
      if (r.changes && typeof r.changes === 'object' && 'pid' in r.changes) r.changes.pid = 0;
    }
  }
  return { json: replaceRoot(data, root) };
}

/** Text outputters: start times, durations and pids vary between runs. */
export function normalizeText(stdout, root) {
  return stdout
    .replaceAll(root, '@ROOT@')
    .replace(/(Started: *)\d\d:\d\d:\d\d\.\d+/g, '$1@TIME@')
    .replace(/(Duration: *)[\d.]+ ms/g, '$1@DUR@ ms')
    .replace(/(Total run time: *)[\d.]+ (m?s)/g, 'Total run time: @DUR@ $2')
    .replace(/(start_time: *)'?\d\d:\d\d:\d\d\.\d+'?/g, '$1@TIME@')
    .replace(/("start_time": )"\d\d:\d\d:\d\d\.\d+"/g, '$1"@TIME@"')
    .replace(/("duration": )[\d.]+/g, '$1@DUR@')
    .replace(/(duration: *)[\d.]+/g, '$1@DUR@')
    .replace(/("?pid"?: *)\d+/g, (_m, key) => `${key}0`)
    .replace(/(\bpid:\n +)\d+/g, (_m, key) => `${key}0`)
    .replace(/('pid': )\d+/g, (_m, key) => `${key}0`)
    .replace(/(\bduration:\n +)[\d.]+/g, '$1@DUR@')
    .replace(/(\bstart_time:\n +)\d\d:\d\d:\d\d\.\d+/g, '$1@TIME@')
    .replace(/('duration': )[\d.]+/g, '$1@DUR@')
    // The nested outputter with colours: the key and the value each wrapped in escape sequences.
    .replace(/(duration\x1b\[0;0m:\n +\x1b\[[0-9;]*m)[\d.]+/g, '$1@DUR@')
    .replace(/(start_time\x1b\[0;0m:\n +\x1b\[[0-9;]*m)\d\d:\d\d:\d\d\.\d+/g, '$1@TIME@')
    .replace(/(pid\x1b\[0;0m:\n +\x1b\[[0-9;]*m)\d+/g, (_m, key) => `${key}0`)
    .replace(/('start_time': )'\d\d:\d\d:\d\d\.\d+'/g, '$1@TIME@');
}

export function runCase(caseDir, command) {
  const { root, words, text } = prepare(caseDir);
  try {
    const r = spawnSync(command[0], [...command.slice(1), ...words], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    const norm = text ? { text: normalizeText(r.stdout, root) } : normalizeJson(r.stdout, root);
    return { code: r.status, ...norm, stderr: r.stderr };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function record(name) {
  const dir = join(CORPUS, name);
  const r = runCase(dir, [process.env.SALT_CALL]);
  for (const f of ['expected.json', 'expected.txt']) rmSync(join(dir, f), { force: true });
  if (r.json !== undefined) writeFileSync(join(dir, 'expected.json'), `${JSON.stringify(r.json, null, 4)}\n`);
  else writeFileSync(join(dir, 'expected.txt'), r.text);
  writeFileSync(join(dir, 'expected.exit'), `${r.code}\n`);
  process.stdout.write(`${name}: exit ${r.code}${r.json === undefined ? ' (text)' : ''}\n`);
  if (r.code !== 0 && r.stderr.trim()) process.stdout.write(`  stderr: ${r.stderr.trim().split('\n').slice(-3).join('\n  ')}\n`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  if (!process.env.SALT_CALL) {
    process.stderr.write('salt-record: set SALT_CALL to the path of a real salt-call (3006.0)\n');
    process.exit(2);
  }
  const names = process.argv.slice(2);
  for (const name of names.length > 0 ? names : readdirSync(CORPUS).sort()) record(name.replace(/\/$/, '').split('/').pop());
}
