import assert from 'node:assert/strict';
import { test } from 'node:test';
import { info, run } from './helpers.js';

test('variables: scopes, local and global, vectors, maps, indexing and interpolation', async () => {
  const { log, result } = await run(`
    global $g = G;
    set $outer = o;
    {
      set $outer = changed;
      set $fresh = f;
      set local $g = shadow;
      set @l = @(a, b, c);
      set %m = %(k: v, n: %(x: 1));
      set %m[k] = w;
      set @l[1] = B;
      Log-Information $g $(@l[1]) $(%m.k) $(%m.n.x) $MapItem(%m, k) \${outer};
      set global $g = G2;
    }
    Log-Information $outer $g $IsVariableDefined(fresh) $ListCount(@ListConcat(@(1), @(2, 3)));
    Log-Information escaped: \`$g and \`\`;
  `);
  assert.equal(result.status, 'normal');
  assert.deepEqual(log, ['INFO: shadow B w 1 w changed', 'INFO: changed G2 false 3', 'INFO: escaped: $g and `']);
});

test('functions: lists, maps, strings, math, comparison and $Eval', async () => {
  const { log } = await run(`
    set @r = @Range(2, 3);
    set %m = %MapAdd(%(a: 1), b, 2);
    set $tmpl = x=\`$x;
    set $x = 5;
    Log-Information $Join(",", @r) $ListIndexOf(@r, 3) $ListItem(@ListInsert(@r, z, 0), 0) $Join(+, @MapKeys(%m));
    Log-Information $ToUpper(abc) $Substring(abcdef, 2, 3) $PadLeft(7, 3, 0) $Replace(a-b-c, -, _) $Coalesce("", "", y);
    Log-Information $Expr(2 * (3 + 4)) $Compare(10, >, 9) $Compare(abc, <, abd) $Increment(4) $Eval($tmpl) $MatchesRegex(abc123, "^[a-z]+\\d+$");
    Log-Information $ToJson(%m) $ListCount(@Split(a:b:c, ":"));
  `);
  assert.deepEqual(log, ['INFO: 2,3,4 1 z a+b', 'INFO: ABC cde 007 a_b_c y', 'INFO: 14 true true 5 x=5 true', 'INFO: {"a":"1","b":"2"} 3']);
});

test('if / else if / else with the predicate grammar, foreach with break and continue', async () => {
  const { log } = await run(`
    set $v = b;
    if $v == a { Log-Information is a; } else if $v == b && !($v != b) { Log-Information is b; } else { Log-Information other; }
    if TRUE { Log-Information bare true; }
    set $i = outer;
    foreach $i in @(1, 2, 3, 4) {
      if $i == 2 { continue; }
      if $i == 4 { break; }
      Log-Information item $i;
    }
    Log-Information after $i;
  `);
  assert.deepEqual(log, ['INFO: is b', 'INFO: bare true', 'INFO: item 1', 'INFO: item 3', 'INFO: after outer']);
});

test('modules: defaults, out parameters, return, and raft modules', async () => {
  const { log } = await run(
    `
    module Greet<$Name, $Greeting = Hello, out $Said> {
      set $Said = $Greeting $Name;
      Log-Information $Said;
      return;
      Log-Information unreachable;
    }
    call Greet(Name: world, Said => $s);
    call Greet(Name: you, Greeting: Hi);
    call Remote(Who: $s);
  `,
    { files: { '/w/raft/Remote.otter': 'module Remote<$Who> { Log-Information remote says $Who; }' } },
  );
  assert.deepEqual(log, ['INFO: Hello world', 'INFO: Hi you', 'INFO: remote says Hello world']);
});

test('status: warn, error, force normal; throw halts; fail cannot be caught', async () => {
  let r = await run('Log-Warning w; error; warn; Log-Information still running;');
  assert.equal(r.result.status, 'error');
  assert.deepEqual(info(r.log), ['WARN: w', 'INFO: still running']);
  r = await run('error; force normal; Log-Information ok;');
  assert.equal(r.result.status, 'normal');
  r = await run('throw stop here; Log-Information never;');
  assert.equal(r.result.status, 'error');
  assert.deepEqual(r.log, ['ERROR: stop here']);
  r = await run('try { fail; } catch { Log-Information caught; } Log-Information never;');
  assert.equal(r.result.status, 'error');
  assert.deepEqual(r.log, []);
});

test('try/catch: the handler runs instead of the error changing the status; later errors still count', async () => {
  const r = await run(`
    try { Log-Information in try; Create-File exists.txt; Log-Information not reached; }
    catch { Log-Information handled $ExecutionState; }
    Log-Information after $ExecutionState;
  `, { files: { '/w/exists.txt': 'x' } });
  assert.equal(r.result.status, 'normal');
  assert.deepEqual(r.log, ['INFO: in try', 'DEBUG: File /w/exists.txt already exists.', 'ERROR: exists.txt already exists and overwrite is set to false.', 'INFO: handled normal', 'INFO: after normal']);
});

test('an error in a module propagates to the caller and halts', async () => {
  const r = await run('module M { throw inner failure; }\ncall M;\nLog-Information never;');
  assert.equal(r.result.status, 'error');
  assert.deepEqual(r.log, ['ERROR: inner failure']);
});

test('retry re-runs the block and resets the status on success', async () => {
  const r = await run(`
    set $n = 0;
    with retry = 3 {
      set $n = $Increment($n);
      if $Compare($n, <, 3) { throw attempt $n failed; }
      Log-Information succeeded on $n;
    }
    Log-Information $ExecutionState;
  `);
  assert.equal(r.result.status, 'normal');
  assert.deepEqual(r.log, [
    'ERROR: attempt 1 failed',
    'INFO: Retrying the block (attempt 2 of 4)...',
    'ERROR: attempt 2 failed',
    'INFO: Retrying the block (attempt 3 of 4)...',
    'INFO: succeeded on 3',
    'INFO: normal',
  ]);
});

test('async blocks copy variables, globals are shared, await inherits status and raises errors', async () => {
  const r = await run(`
    global $shared = before;
    set $copied = before;
    with async = A {
      set $copied = changed in child;
      set $shared = changed by child;
      Log-Warning child warns;
    }
    await A;
    Log-Information $copied / $shared / $ExecutionState;
    with async = B { throw child failed; }
    try { await B; } catch { Log-Information caught child error; }
    await Nothing;
  `);
  assert.deepEqual(r.log, [
    'WARN: child warns',
    'INFO: before / changed by child / warning',
    'ERROR: child failed',
    'INFO: caught child error',
    'WARN: There are no asynchronous blocks with the token Nothing to await.',
  ]);
});

test('async blocks overlap; blocks sharing a lock never do', async () => {
  const overlap = await run(`
    with async { Log-Information a start; Sleep 0; Log-Information a end; }
    with async { Log-Information b start; Sleep 0; Log-Information b end; }
    await;
  `);
  // Both started before either ended: the child logs are adopted in order, so look at the op records.
  const starts = overlap.result.results.map((x) => x.start);
  assert.equal(starts.length, 2);
  const locked = await run(`
    global @order = @();
    with async { with lock = L { set global @order = @ListInsert(@order, a1); Sleep 0; set global @order = @ListInsert(@order, a2); } }
    with async { with lock = L { set global @order = @ListInsert(@order, b1); Sleep 0; set global @order = @ListInsert(@order, b2); } }
    await;
    Log-Information $Join(" ", @order);
  `);
  assert.deepEqual(info(locked.log).at(-1), 'INFO: a1 a2 b1 b2');
  const seen = async (lock: string): Promise<string | undefined> => {
    const r = await run(`
      global $a = idle;
      global $seen = none;
      with async { with ${lock} { set global $a = started; Sleep 0; set global $a = ended; } }
      with async { with ${lock} { set global $seen = $a; } }
      await;
      Log-Information $seen;
    `);
    return info(r.log).at(-1);
  };
  // Without a lock the second block runs while the first sleeps; with one it waits for the first to end.
  assert.equal(await seen('retry = 0'), 'INFO: started');
  assert.equal(await seen('lock = L'), 'INFO: ended');
  assert.equal(await seen('lock = !G'), 'INFO: ended');
  const nested = await run('with lock = X { with lock = Y { Log-Information inside; } } Log-Information never;');
  assert.equal(nested.result.status, 'error');
  assert.deepEqual(nested.log, ['ERROR: test.otter:1:17: a lock block cannot be nested inside another lock block']);
});

test('context: directory changes the working directory, role skips, server must be this one', async () => {
  const r = await run(`
    for directory sub { Ensure-File a.txt (Text: in sub); Log-Information $WorkingDirectory; }
    foreach directory in @(x, y) { Create-File b.txt (Text: hi); }
    for role database { Log-Information not a database; }
    for role web { Log-Information is web $RoleName; }
    for server web1 { Log-Information on $ServerName; }
  `, { roles: ['web'] });
  assert.deepEqual(info(r.log), ['INFO: File a.txt configured.', 'INFO: /w/sub/', 'INFO: Creating file...', 'INFO: /w/x/b.txt file created.', 'INFO: Creating file...', 'INFO: /w/y/b.txt file created.', 'INFO: is web web', 'INFO: on web1']);
  assert.equal((await r.host.readFile('/w/sub/a.txt')).toString(), 'in sub');
  assert.equal((await r.host.readFile('/w/y/b.txt')).toString(), 'hi');
  const other = await run('for server db9 { Log-Information never; }');
  assert.equal(other.result.status, 'error');
});

test('a runtime type error is a positioned error that halts', async () => {
  const r = await run('set @l = @(a);\nforeach $i in $Join(",", @l) { }\nLog-Information never;');
  assert.equal(r.result.status, 'error');
  assert.deepEqual(r.log, ['ERROR: test.otter:2:15: foreach needs a vector to iterate, got a scalar']);
});

test('a process started inside `with timeout` is given what is left of the block time, and none outside', async () => {
  const { host } = await run('with timeout = 30 {\n    Exec "true";\n}\nExec "false-free";\n');
  const [inside, outside] = host.execLog;
  const limit = inside?.options.timeout;
  assert.ok(typeof limit === 'number' && limit > 0 && limit <= 30_000, `timeout ${String(limit)}`);
  assert.equal(outside?.options.timeout, undefined);
});

test('a late global declaration is fatal when reached: the statements before it run, try cannot catch it', async () => {
  const { log, result } = await run('Log-Information first;\ntry {\n    global $g = 1;\n}\ncatch {\n    Log-Information never;\n}\nLog-Information never either;\n');
  assert.deepEqual(log, ['INFO: first', 'ERROR: test.otter:3:5: global declarations must come before every other statement of the script']);
  assert.equal(result.status, 'error');
});
