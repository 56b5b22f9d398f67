// Defaults a constructor call leaves in place: constant ones start a new instance already set (worked out
// once per call shape), others are evaluated and set per instance; both give the same values, positions
// and errors.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileProject } from '../../../src/frontends/inmanta/compiler.js';
import { exportResources, resourceJson } from '../../../src/frontends/inmanta/exporter.js';
import { tempDir } from '../../cli/cli-helpers.js';

function compile(src: string): ReturnType<typeof compileProject> & { dir: string } {
  const dir = tempDir('cairn-inmanta-defaults-');
  writeFileSync(join(dir, 'main.cf'), src);
  return { ...compileProject(dir), dir };
}

test('constant, list, typedef and computed defaults are set on every instance of one call shape', () => {
  const r = compile(
    [
      'import fs',
      'typedef small as int matching self < 10',
      'entity A:',
      '    string name',
      '    int size = 3',
      '    string? note = null',
      '    string[] tags = ["x"]',
      '    small level = 2',
      'end',
      'implement A using std::none',
      'h = std::Host(name="n1", os=std::linux)',
      'for n in ["a", "b", "c"]:',
      '    a = A(name=n)',
      '    std::print("{{ a.name }} {{ a.size }} {{ a.note }} {{ a.tags }} {{ a.level }}")',
      '    fs::File(host=h, path="/x/{{ n }}", content=n)',
      'end',
      '',
    ].join('\n'),
  );
  assert.equal(r.error, undefined);
  assert.deepEqual([...r.printed].sort(), ["a 3 null ['x'] 2", "b 3 null ['x'] 2", "c 3 null ['x'] 2"]);
  const files = exportResources(r.compilation!).map(resourceJson);
  assert.deepEqual(
    files.map((f) => [f.id, f.mode, f.owner, f.purged, f.managed, f.reload]),
    ['a', 'b', 'c'].map((n) => [`fs::File[n1,path=/x/${n}]`, 644, null, false, true, false]),
  );
});

test('a constant default its attribute refuses is reported where it is declared', () => {
  const r = compile(['entity A:', '    string name', '    int size = "big"', 'end', 'implement A using std::none', 'A(name="a")', 'A(name="b")', ''].join('\n'));
  assert.equal(r.error?.kind, 'RuntimeException');
  assert.equal(r.error?.msg, "Invalid value 'big', expected int");
  assert.deepEqual([r.error?.span?.line, r.error?.span?.col], [3, 9]);
});

test('a default a typedef refuses is reported at the call, as setting it there does', () => {
  const r = compile(['typedef small as int matching self < 10', 'entity A:', '    string name', '    small size = 12', 'end', 'implement A using std::none', 'A(name="a")', ''].join('\n'));
  assert.equal(r.error?.kind, 'AttributeException');
  assert.match(r.error?.msg ?? '', /^Could not set attribute `size` on instance `__config__::A \(instantiated at .*main\.cf:7\)`$/);
  assert.deepEqual([r.error?.span?.line, r.error?.span?.col], [4, 18]);
});

test('an index hit gives the defaults again: the instance is the same one', () => {
  const r = compile(['entity A:', '    string name', '    int size = 3', 'end', 'index A(name)', 'implement A using std::none', 'x = A(name="a")', 'y = A(name="a")', 'std::print(x == y)', 'std::print(y.size)', ''].join('\n'));
  assert.equal(r.error, undefined);
  assert.deepEqual(r.printed, ['True', '3']);
});
