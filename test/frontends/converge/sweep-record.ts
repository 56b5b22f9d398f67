/**
 * Records the sweep fixtures from the real converge: `CONVERGE_BIN=... node --import tsx
 * test/frontends/converge/sweep-record.ts [NAME...]` runs each program's steps through converge in a fresh
 * work dir and writes `N-VERB.txt` and `recorded.json`. With `--compare` it records nothing and prints where
 * cairn (dist/) differs from the recording instead; `--write-cairn` also keeps cairn's text for each such
 * step as `N-VERB.cairn.txt` (only for differences judged deliberate, each explained in `DIFFERENCE`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cairn } from '../../cli/cli-helpers.js';
import { expectedFor, fixtures, materialize, normalize, outName, type Recorded, steps, SWEEP } from './sweep-lib.js';

const argv = process.argv.slice(2);
const writeCairn = argv.includes('--write-cairn');
const compare = argv.includes('--compare') || writeCairn;
const names = argv.filter((a) => !a.startsWith('--'));
const BIN = process.env.CONVERGE_BIN ?? '';
if (!compare && BIN === '') {
  console.error('set CONVERGE_BIN to a converge binary');
  process.exit(1);
}

let failures = 0;
for (const name of names.length > 0 ? names : fixtures()) {
  const dir = materialize(name);
  const recorded: Recorded[] = [];
  const prior: Recorded[] = compare ? (JSON.parse(readFileSync(join(SWEEP, name, 'recorded.json'), 'utf8')) as Recorded[]) : [];
  steps(name).forEach((step, i) => {
    const out = outName(i, step);
    if (compare) {
      const r = cairn(['converge', step.verb, join(dir, 'main.hcl'), ...step.args, '--state-dir', join(dir, '.cairn-state')], { cwd: dir });
      const expected = expectedFor(name, i, step, prior[i], dir);
      const want = expected.text;
      const ok = r.code === expected.code && normalize(r.stdout, step.verb) === normalize(want, step.verb);
      if (!ok) {
        failures++;
        console.log(`=== ${name} ${step.line}: code ${r.code} want ${expected.code}`);
        writeFileSync('/tmp/sweep-ours.txt', normalize(r.stdout, step.verb));
        writeFileSync('/tmp/sweep-want.txt', normalize(want, step.verb));
        console.log(spawnSync('diff', ['/tmp/sweep-want.txt', '/tmp/sweep-ours.txt'], { encoding: 'utf8' }).stdout);
        if (r.stderr) console.log(r.stderr);
        // After judging a difference deliberate: keep cairn's text next to converge's.
        if (writeCairn) {
          writeFileSync(join(SWEEP, name, out.replace(/\.txt$/, '.cairn.txt')), r.stdout.replaceAll(dir, '@DIR@'));
          const entry = prior[i];
          if (entry && r.code !== entry.code) prior[i] = { ...entry, cairnCode: r.code ?? -1 };
        }
      }
      return;
    }
    const port = 20000 + Math.floor(Math.random() * 20000);
    const args = [step.verb, '--local', '--local-addr', `127.0.0.1:${port}`, '--nocolor', ...step.args, join(dir, 'main.hcl')];
    const r = spawnSync(BIN, args, { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    writeFileSync(join(SWEEP, name, out), r.stdout.replaceAll(dir, '@DIR@'));
    const fatal = /level="FATAL".* error="((?:[^"\\]|\\.)*)"/.exec(r.stderr)?.[1];
    recorded.push({ step: step.line, code: r.status ?? -1, out, ...(fatal ? { fatal: fatal.replaceAll(dir, '@DIR@') } : {}) });
    console.log(`${name} ${step.line}: ${r.status}${fatal ? ` ${fatal}` : ''}`);
  });
  if (!compare) writeFileSync(join(SWEEP, name, 'recorded.json'), `${JSON.stringify(recorded, null, 2)}\n`);
  if (writeCairn) writeFileSync(join(SWEEP, name, 'recorded.json'), `${JSON.stringify(prior, null, 2)}\n`);
  rmSync(dir, { recursive: true, force: true });
}
if (compare) console.log(failures === 0 ? 'all match' : `${failures} differences`);
