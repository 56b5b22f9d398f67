/**
 * The conformance suite of every front end, driven by the CLI's front-end registry (src/cli/front-ends.ts)
 * plus the graph file (`cairn plan|apply`): a front end without a sample here fails the suite. For each, in
 * a temp dir, through the in-process CLI:
 *
 * - bad input gives a positioned diagnostic (`file:line:col: CODE message`, the file being the bad one),
 *   exit 1, no stack trace, and nothing changed on disk;
 * - apply makes its change, and a plan after it is a no-op (`--detailed-exitcode` gives 0);
 * - every run (the apply and the plan) appears in `cairn history`, under its front end.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { FRONT_ENDS } from '../../src/cli/front-ends.js';
import { assertNoStack, cairn, tempDir } from '../cli/cli-helpers.js';

interface Sample {
  /** Files of the good program and of the bad one, by path relative to the work dir; `@T@` is the target dir. */
  readonly files: Record<string, string>;
  /** Arguments after `cairn`, run in the work dir. */
  readonly apply: readonly string[];
  readonly plan: readonly string[];
  readonly bad: readonly string[];
  /** The file the bad input's diagnostic must point into. */
  readonly badFile: string;
  /** The target file the good program writes (relative to the target dir) and its content. */
  readonly writes: readonly [string, string];
  /** The name history gives the front end. */
  readonly historyName: string;
}

const SAMPLES: Record<string, Sample> = {
  graph: {
    files: {
      'g.json': '{"version":1,"nodes":[{"id":"f","type":"file","params":{"path":"@T@/g.txt","content":"x\\n"}}]}\n',
      'bad.json': '{"version":1,"nodes":[\n  {"id":"f","type":"nosuch","params":{}}\n]}\n',
    },
    apply: ['apply', 'g.json'],
    plan: ['plan', 'g.json'],
    bad: ['apply', 'bad.json'],
    badFile: 'bad.json',
    writes: ['g.txt', 'x\n'],
    historyName: 'graph',
  },
  salt: {
    files: {
      'srv/salt/top.sls': "base:\n  '*':\n    - web\n",
      'srv/salt/web.sls': 'conf:\n  file.managed:\n    - name: @T@/salt.conf\n    - contents: x\n',
      'bad/salt/top.sls': "base:\n  '*':\n    - web\n",
      'bad/salt/web.sls': 'conf:\n  file.managed:\n    - name: [x\n',
    },
    apply: ['salt', 'state.apply', '--file-root', 'srv/salt'],
    plan: ['salt', 'state.apply', 'test=True', '--file-root', 'srv/salt'],
    bad: ['salt', 'state.apply', '--file-root', 'bad/salt'],
    badFile: 'bad/salt/web.sls',
    writes: ['salt.conf', 'x\n'],
    historyName: 'salt',
  },
  converge: {
    files: {
      'main.hcl': 'file.content "c" {\n  destination = "@T@/cv.txt"\n  content = "x"\n}\n',
      'bad.hcl': 'file.content "c" {\n  destination =\n}\n',
    },
    apply: ['converge', 'apply', 'main.hcl'],
    plan: ['converge', 'plan', 'main.hcl'],
    bad: ['converge', 'apply', 'bad.hcl'],
    badFile: 'bad.hcl',
    writes: ['cv.txt', 'x'],
    historyName: 'converge',
  },
  zapusk: {
    files: {
      'z.zdb/main.ini': '######## web\n[file]\npath=@T@/z.txt\ncontent=hello\n',
      'bad.zdb/main.ini': '######## web\n[os]\napply=echo fine\n  port: 8080\n',
    },
    apply: ['zapusk', 'z.zdb', 'apply', '--state_dir', 'zstate'],
    plan: ['zapusk', 'z.zdb', 'plan', '--state_dir', 'zstate'],
    bad: ['zapusk', 'bad.zdb', 'apply', '--state_dir', 'zstate'],
    badFile: 'bad.zdb/main.ini',
    writes: ['z.txt', 'hello'],
    historyName: 'zapusk',
  },
  otter: {
    files: {
      'p.otter': 'Ensure-File @T@/o.txt (Text: hello);\n',
      'bad.otter': 'Ensure-File @T@/o.txt (Text: hello;\n',
    },
    apply: ['otter', 'run', 'p.otter'],
    plan: ['otter', 'run', 'p.otter', '--mode', 'collect'],
    bad: ['otter', 'run', 'bad.otter'],
    badFile: 'bad.otter',
    writes: ['o.txt', 'hello'],
    historyName: 'otter',
  },
  inmanta: {
    files: {
      'inm/main.cf': 'import fs\nh = std::Host(name="node1", os=std::linux)\nfs::File(host=h, path="@T@/inm.conf", content="a=1\\n", mode=640)\n',
      'badinm/main.cf': 'h = std::Host(name="node1" os=std::linux)\n',
    },
    apply: ['inmanta', 'deploy', 'inm'],
    plan: ['inmanta', 'deploy', 'inm', '--dry-run'],
    bad: ['inmanta', 'deploy', 'badinm'],
    badFile: 'badinm/main.cf',
    writes: ['inm.conf', 'a=1\n'],
    historyName: 'inmanta',
  },
};

/** Everything under a dir, with content: equal snapshots mean nothing changed. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((e) => {
      const p = join(e.parentPath ?? e.path, e.name);
      return e.isFile() ? `${p} ${readFileSync(p, 'utf8')}` : p;
    })
    .sort();
}

function setup(sample: Sample): { dir: string; target: string; env: Record<string, string> } {
  const dir = tempDir('cairn-conf-');
  const target = join(dir, 't');
  mkdirSync(target);
  for (const [rel, text] of Object.entries(sample.files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text.replaceAll('@T@', target));
  }
  return { dir, target, env: { CAIRN_STATE_DIR: join(dir, 'cairn-state') } };
}

function history(dir: string, env: Record<string, string>): { front_end?: string; frontEnd?: string; mode: string }[] {
  const r = cairn(['history', '--out', 'json'], { cwd: dir, env });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const names = ['graph', ...FRONT_ENDS.map((f) => f.name)];

test('every front end of the registry (and the graph file) has a conformance sample, and every sample a front end', () => {
  assert.deepEqual(Object.keys(SAMPLES).sort(), [...names].sort());
});

for (const name of names) {
  const sample = SAMPLES[name];
  describe(`front end ${name}: conformance`, { skip: sample ? false : `no conformance sample for ${name}` }, () => {
    if (!sample) return;

    test('bad input: a positioned diagnostic in the bad file, exit 1, nothing changed', () => {
      const { dir, target, env } = setup(sample);
      const before = snapshot(target);
      const r = cairn([...sample.bad], { cwd: dir, env });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assertNoStack(r.stderr);
      const m = /^(.+?):(\d+):(\d+): ([A-Z][A-Za-z0-9]*) \S/m.exec(r.stderr);
      assert.ok(m, `no positioned diagnostic \`file:line:col: CODE message\` in:\n${r.stderr}`);
      assert.equal(resolve(dir, m[1] as string), join(dir, sample.badFile), `the diagnostic points elsewhere:\n${r.stderr}`);
      assert.ok(Number(m[2]) >= 1 && Number(m[3]) >= 1, 'line and column count from 1');
      assert.deepEqual(snapshot(target), before, 'bad input changed the target');
    });

    test('apply makes the change; a plan after it is a no-op; both runs are in history', () => {
      const { dir, target, env } = setup(sample);
      assert.deepEqual(history(dir, env), []);
      const applied = cairn([...sample.apply, '--detailed-exitcode'], { cwd: dir, env });
      assert.equal(applied.code, 2, `apply must report a change (exit 2):\n${applied.stdout}${applied.stderr}`);
      assert.equal(readFileSync(join(target, sample.writes[0]), 'utf8'), sample.writes[1]);
      const after = snapshot(target);
      const planned = cairn([...sample.plan, '--detailed-exitcode'], { cwd: dir, env });
      assert.equal(planned.code, 0, `a plan after apply must find nothing to change (exit 0):\n${planned.stdout}${planned.stderr}`);
      assert.deepEqual(snapshot(target), after, 'the plan changed the target');
      const runs = history(dir, env);
      assert.equal(runs.length, 2, JSON.stringify(runs));
      for (const run of runs) assert.equal(run.front_end ?? run.frontEnd, sample.historyName, JSON.stringify(run));
    });
  });
}
