/** `--out yaml` against PyYAML's safe_dump (the python3 yaml module, when present) on Salt-shaped data. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { dumpYaml } from '../../../src/lang/python/yaml-emit.js';

const python = spawnSync('python3', ['-c', 'import yaml'], { encoding: 'utf8' });
const havePyYaml = python.status === 0;

/** PyYAML's output as Salt's yaml outputter calls it (floats for `duration`). */
function pyyaml(data: unknown): string {
  const script = [
    'import json, sys, yaml',
    'def fix(v, k=None):',
    '    if isinstance(v, dict): return {a: fix(b, a) for a, b in v.items()}',
    '    if isinstance(v, list): return [fix(x) for x in v]',
    '    if k == "duration" and isinstance(v, int) and not isinstance(v, bool): return float(v)',
    '    return v',
    'd = fix(json.load(sys.stdin))',
    'sys.stdout.write(yaml.safe_dump(d, default_flow_style=False, allow_unicode=True))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(data), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

const CASES: unknown[] = [
  {
    local: {
      'test_|-conf_|-conf_|-succeed_with_changes': {
        changes: { testing: { old: 'Unchanged', new: 'Something pretended to change' } },
        comment: 'Success!',
        name: 'conf',
        result: true,
        __sls__: 'w',
        __run_num__: 0,
        start_time: '08:04:37.843000',
        duration: 0.481,
        __id__: 'conf',
      },
      'cmd_|-x_|-echo hi_|-run': { changes: { pid: 12, retcode: 0, stdout: 'hi', stderr: '' }, comment: 'Command "echo hi" run', result: null, duration: 12, skip_watch: true },
    },
  },
  { local: ['Rendering SLS \'base:bad\' failed: mapping values are not allowed here', "ID x in SLS y is not a dictionary"] },
  {
    local: {
      a: 'The file /tmp/x is set to be changed\nNote: No changes made, actual changes may\nbe different due to other states.',
      b: '--- \n+++ \n@@ -1,2 +1,2 @@\n [main]\n-beta = 2\n+beta = 20\n',
      c: 'word '.repeat(40).trim(),
      d: ['yes', 'no', 'on', '1', '1.5', '0o7', '0x1f', '~', 'null', '2024-01-02', '', ' lead', 'trail ', '- dash', 'a: b', 'a #b', '#c', '@x', "it's", 'tab\there', 'ünïcode', '10:20', '=', '<<', '---x'],
      e: [{ k: 1, l: [1, 2, [3, []]] }, {}, [], [[{ z: null }]]],
      f: { 'key with: colon': 1, 'yes': 2, '': 3 },
      g: 'The following requisites were not found:\n                   require:\n                       test: ghost\n',
      h: `${'x'.repeat(70)} ${'y'.repeat(20)} ${'z'.repeat(5)}\nsecond line that is also rather long ${'w'.repeat(60)} end`,
      order: 10001.0001,
    },
  },
];

test('--out yaml prints what PyYAML safe_dump prints', { skip: havePyYaml ? false : 'python3 yaml module not present' }, () => {
  for (const data of CASES) assert.equal(dumpYaml(data), pyyaml(data));
});
