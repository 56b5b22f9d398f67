// Go's fmt printing (src/lang/go) against Go itself: %v and %s of float64, int, bool, nil, slices and
// maps. The expected texts were recorded from Go 1.19 (test/fixtures/go/fmt.json) and are checked in every
// run; where a `go` toolchain is on PATH the corpus is also printed by Go live and compared.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { goFloat, goS, goV } from '../../src/lang/go/fmt.js';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/go/fmt.json');

const floats = [0.1, 1e-7, 1e-5, 1e-4, 0.0001234, 1e6, 999999, 1234567, 123456789, 1e20, 1e21, 1.5e21, 100000, 0.5, -0, 3, 1e100, 2.5e-10, -1234.5678, 1 / 3, 5e-324, 1.7976931348623157e308];
/** Values as HCL decodes them: whole numbers are Go ints there. */
const values: unknown[] = [null, 'text', 7, -3, true, false, [1, 'a', null], { b: 1, a: [null, 'x'], c: { d: 2.5 } }, [], {}, 2.5, 1e-7];

interface Recorded {
  floats: string[];
  v: string[];
  s: string[];
}

function ours(): Recorded {
  return { floats: floats.map(goFloat), v: values.map((x) => goV(x, 'hcl')), s: values.map((x) => goS(x, 'hcl')) };
}

/** The same corpus as a Go program; whole numbers become int, others float64, as HCL decodes them. */
function goLiteral(v: unknown): string {
  if (v === null) return 'nil';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? `int(${v})` : `float64(${v})`;
  if (Array.isArray(v)) return `[]interface{}{${v.map(goLiteral).join(', ')}}`;
  return `map[string]interface{}{${Object.entries(v as object).map(([k, x]) => `${JSON.stringify(k)}: ${goLiteral(x)}`).join(', ')}}`;
}

function program(): string {
  const fl = floats.map((f) => (Object.is(f, -0) ? 'math.Copysign(0, -1)' : `float64(${f})`)).join(', ');
  return `package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

func main() {
	out := map[string][]string{"floats": {}, "v": {}, "s": {}}
	for _, f := range []float64{${fl}} {
		out["floats"] = append(out["floats"], fmt.Sprintf("%v", f))
	}
	for _, x := range []interface{}{${values.map(goLiteral).join(', ')}} {
		out["v"] = append(out["v"], fmt.Sprintf("%v", x))
		out["s"] = append(out["s"], fmt.Sprintf("%s", x))
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
`;
}

test('src/lang/go prints as Go 1.19 printed the corpus', () => {
  assert.deepEqual(ours(), JSON.parse(readFileSync(FIXTURE, 'utf8')));
});

const hasGo = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;
if (!hasGo) console.log('SKIP: no go toolchain on PATH: the live comparison of src/lang/go with Go did not run (the recorded one did)');

test('src/lang/go prints as the Go on this machine does (live)', { skip: !hasGo && 'no go toolchain' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-gofmt-'));
  try {
    writeFileSync(join(dir, 'main.go'), program());
    const r = spawnSync('go', ['run', 'main.go'], { cwd: dir, encoding: 'utf8', env: { ...process.env, GO111MODULE: 'off', GOCACHE: join(dir, 'cache'), GOPATH: join(dir, 'gopath') } });
    assert.equal(r.status, 0, r.stderr);
    const live = JSON.parse(r.stdout) as Recorded;
    if (process.env.CAIRN_RECORD_GO) writeFileSync(FIXTURE, `${JSON.stringify(live, null, 2)}\n`);
    assert.deepEqual(ours(), live);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
