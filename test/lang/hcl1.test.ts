import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DiagnosticError } from '../../src/core/diag.js';
import { parseHcl, plainValue } from '../../src/lang/hcl1/index.js';

const value = (text: string) => plainValue(parseHcl('t.hcl', text).body);

/** The code and position of the first diagnostic a text gets, or `parsed`. */
function first(text: string): string {
  try {
    parseHcl('t.hcl', text);
  } catch (e) {
    if (!(e instanceof DiagnosticError)) throw e;
    const d = e.diagnostics[0];
    return `${d?.code} ${d?.span?.line}:${d?.span?.col}`;
  }
  return 'parsed';
}

test('blocks with labels, nested blocks, assignments and every value type', () => {
  const text = `# hash\n// slashes\n/* block\n comment */\ntask "a" {\n  n = 42\n  f = -1.5\n  b = true\n  l = ["x", 2, false,]\n  m = { k = "v", "q" = 1 }\n  inner { x = "y" }\n}\nparam "p" { default = "d" }\n`;
  assert.deepEqual(value(text), {
    task: { a: { n: 42, f: -1.5, b: true, l: ['x', 2, false], m: { k: 'v', q: 1 }, inner: { x: 'y' } } },
    param: { p: { default: 'd' } },
  });
});

test('string escapes and templates with backticks are kept', () => {
  assert.deepEqual(value('a = "x\\ty\\n\\"q\\" \\u00e9 {{lookup `task.a.status`}}"'), { a: 'x\ty\n"q" é {{lookup `task.a.status`}}' });
});

test('heredocs, plain and indented', () => {
  assert.deepEqual(value('a = <<EOF\nline 1\n  line 2\nEOF\nb = <<-EOT\n    x\n      y\n    EOT\n'), { a: 'line 1\n  line 2\n', b: 'x\n  y\n' });
});

test('positions of items, keys and values', () => {
  const f = parseHcl('t.hcl', '\n  task "a" {\n    check = "x"\n  }\n');
  const item = f.body.items[0];
  assert.deepEqual(item?.span, { file: 't.hcl', line: 2, col: 3 });
  assert.deepEqual(item?.keys[1]?.span, { file: 't.hcl', line: 2, col: 8 });
  const inner = item?.value.kind === 'object' ? item.value.items[0] : undefined;
  assert.deepEqual(inner?.value.span, { file: 't.hcl', line: 3, col: 13 });
});

test('syntax errors are file:line:col diagnostics', () => {
  const cases: Array<[string, RegExp]> = [
    ['task "a" {\n  check = "x"\n', /^t\.hcl:1:10: HCL011 unclosed "\{"/],
    ['a = "open\n', /^t\.hcl:1:5: HCL002 unterminated string/],
    ['a = [1, 2\n', /^t\.hcl:1:5: HCL011 unclosed "\["/],
    ['a = <<EOF\nno end\n', /^t\.hcl:1:5: HCL004 unterminated heredoc/],
    ['a = "\\q"', /^t\.hcl:1:6: HCL003 unknown escape/],
    ['a b = 1', /^t\.hcl:1:5: HCL012/],
    ['a = 1 = 2', /^t\.hcl:1:7: HCL010 expected a new line/],
    ['/* open', /^t\.hcl:1:1: HCL005 unterminated comment/],
    ['a = @', /^t\.hcl:1:5: HCL001 unexpected character "@"/],
  ];
  for (const [text, want] of cases) {
    assert.throws(
      () => parseHcl('t.hcl', text),
      (e: unknown) => DiagnosticError.is(e) && want.test(e.message),
      text,
    );
  }
});

test('items may follow one another on a line, as HCL 1 allows', () => {
  const f = parseHcl('t.hcl', 'env = { B = "2" A = "1" }\n');
  const env = f.body.items[0]?.value;
  assert.equal(env?.kind, 'object');
  assert.deepEqual(env?.kind === 'object' ? env.items.map((i) => i.keys[0]?.name) : [], ['B', 'A']);
});

test('an integer with a leading zero is octal, as Go reads it; others are decimal', () => {
  assert.deepEqual(value('a = 0644\nb = 644\nc = -0755\nd = 0\ne = 0x1f\nf = 0.5\n'), { a: 420, b: 644, c: -493, d: 0, e: 31, f: 0.5 });
});

test('strings in runs: interpolations keep their quotes and braces, escapes between runs, identifiers with . - :', () => {
  assert.deepEqual(value('a = "pre ${ "q" } mid \\\\ \\"x\\" end"\nb.c-d:e = "${a}${b}"\nc = ""\nd = "\\u0041BC\\tz"\n'), {
    a: 'pre ${ "q" } mid \\ "x" end',
    'b.c-d:e': '${a}${b}',
    c: '',
    d: 'ABC\tz',
  });
  // An interpolation may run over a line end; a plain string may not.
  assert.deepEqual(value('a = "${x\n}"\n'), { a: '${x\n}' });
  assert.equal(first('a = "open\nb = 1\n'), 'HCL002 1:5');
  assert.equal(first('a = 1\nb = @\n'), 'HCL001 2:5');
});

test('a lexical error anywhere in the file is reported before a syntax error earlier in it', () => {
  assert.equal(first('a = 1 = 2\nb = "open\n'), 'HCL002 2:5');
  assert.equal(first('a b = 1\n\n\nc = @\n'), 'HCL001 4:5');
  assert.equal(first('a = [1, 2\nb = 0x\n/* open'), 'HCL005 3:1');
  assert.equal(first('a {\n b = 1\n'), 'HCL011 1:3');
  assert.equal(first('a = 1 = 2\nb = "closed"\n'), 'HCL010 1:7');
  // An item and its first key start at the same place: the same position.
  const item = parseHcl('t.hcl', 'task "a" { x = 1 }\n').body.items[0];
  assert.deepEqual(item?.span, item?.keys[0]?.span);
});
