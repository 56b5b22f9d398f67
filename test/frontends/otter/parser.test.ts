import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DiagnosticError, formatDiagnostic } from '../../../src/core/diag.js';
import type { Statement } from '../../../src/frontends/otter/ast.js';
import { parseScript } from '../../../src/frontends/otter/parser.js';

function kinds(src: string): string[] {
  return parseScript('p.otter', src).body.body.map((s: Statement) => s.kind);
}

function syntaxError(src: string): string {
  try {
    parseScript('p.otter', src);
  } catch (e) {
    if (DiagnosticError.is(e)) return e.diagnostics.map((d) => formatDiagnostic(d)).join('\n');
    throw e;
  }
  throw new Error('expected a syntax error');
}

test('every statement form parses to its kind', () => {
  const src = `
    set $a = 1; set local @b = @(1, 2); set global %c = %(k: v);
    Log-Debug d; Log-Information i; Log-Warning w; Log-Error e;
    Ensure-File f.txt (Text: x, Exists: true);
    Files::Create-File g.txt;
    Exec "echo hi" (ExitCode => $code);
    if $a == 1 { } else if $a != 2 && !($a == 3 || true) { } else { }
    foreach $i in @b { break; continue; }
    foreach directory in @(x, y) { }
    for directory sub { }
    for role web { }
    with retry=2, timeout=5, async=T, lock=!L, executionPolicy=always, isolation, credentials=C { }
    await T;
    await;
    try { throw boom; } catch { force normal; }
    error; fail; warn; force warn; return;
    call M(A: 1, B => $out);
    call raft::N;
    { Log-Information inner; }
  `;
  assert.deepEqual(kinds(src), [
    'set', 'set', 'set', 'log', 'log', 'log', 'log', 'action', 'action', 'action', 'if', 'foreach', 'foreach', 'context', 'context',
    'with', 'await', 'await', 'try', 'error', 'fail', 'warn', 'force-warn', 'return', 'call', 'call', 'anonymous',
  ]);
});

test('globals, modules with defaults and out parameters, descriptions and editor headers', () => {
  const script = parseScript('p.otter', '##AH:UseTextMode\nglobal $g = 1;\nmodule M<$A, $B = two, out $C> { set $C = $A$B; }\n# Deploy the app\n# second line\n{ }\n');
  assert.equal(script.globals.length, 1);
  const m = script.body.modules[0];
  assert.equal(m?.name, 'M');
  assert.deepEqual(m?.params.map((p) => [p.name, p.out, p.default !== undefined]), [['A', false, false], ['B', false, true], ['C', true, false]]);
  assert.equal(script.body.body[0]?.description, 'Deploy the app\nsecond line');
});

test('strings: implicit, quoted, single-quoted, swim, escapes and references', () => {
  const script = parseScript('p.otter', "set $a = x `$y `n z;\nset $b = 'no $expansion';\nset $c = >>\n  line $a\n>>;\nset $d = \"$Join(-, @(a, b)) ${odd name}\";\n");
  const values = script.body.body.map((s) => (s.kind === 'set' ? s.value : undefined));
  assert.deepEqual(values[0]?.kind === 'text' && values[0].parts, ['x $y \n z']);
  assert.deepEqual(values[1]?.kind === 'text' && values[1].parts, ['no $expansion']);
  const swim = values[2];
  assert.ok(swim?.kind === 'text' && swim.parts[0] === '  line ' && typeof swim.parts[1] === 'object');
  const d = values[3];
  assert.ok(d?.kind === 'text' && d.parts.length === 3);
});

test('syntax errors point at file:line:col', () => {
  assert.equal(syntaxError('Log-Information hi\n'), 'p.otter:1:19: OTTER001 expected ";" at the end of the statement, found the end of the line');
  assert.equal(syntaxError('set $x = "open;\n'), 'p.otter:1:10: OTTER001 unterminated string (quoted strings end on their line; use a swim string >>...>> for several lines)');
  assert.equal(syntaxError('{\n  Log-Debug x;\n'), "p.otter:3:1: OTTER001 expected \"}\" but the script ended");
  assert.equal(syntaxError('with frobnicate { }'), 'p.otter:1:6: OTTER001 unknown directive "frobnicate"');
  assert.equal(syntaxError('set $x 1;'), 'p.otter:1:8: OTTER001 expected "=" after the variable, found "1"');
  // An operation name alone on its line needs its argument list (or ";") next.
  assert.equal(syntaxError('Ensure-File\nLog-Information x;\n'), 'p.otter:1:12: OTTER001 expected ";" at the end of the statement, found the end of the line');
});

test('an argument list may start on the line after the operation name, after a comment too', () => {
  const script = parseScript('p.otter', 'Ensure-File # the config\n(\n    Name: a.conf,\n    Text: x\n);\nSleep\n;\n');
  const [ensure, sleep] = script.body.body;
  assert.ok(ensure?.kind === 'action' && ensure.args.map((a) => a.name).join() === 'Name,Text');
  assert.ok(sleep?.kind === 'action' && sleep.name === 'Sleep' && sleep.args.length === 0);
});

test('nesting deeper than 200 levels is a positioned syntax error', () => {
  assert.equal(syntaxError(`${'{'.repeat(201)}${'}'.repeat(201)}`), 'p.otter:1:201: OTTER001 nesting deeper than 200 levels');
  assert.equal(syntaxError(`if ${'!'.repeat(300)}true { }`), 'p.otter:1:204: OTTER001 nesting deeper than 200 levels');
});
