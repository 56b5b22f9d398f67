/**
 * The special step types of the spec (os, info, commands, once, guard, load, when, file) and zapusk-tool's
 * `disabled`; any other type is a zdb type: a program found in the lookup folders, run as a sub-program.
 */
import { join, resolve } from 'node:path';
import { fileStep, warnNeverPerformed } from './file-step.js';
import { refusedDir } from './lookup.js';
import type { Interpreter, Outcome, StepCall } from './run.js';
import { formatShell, rubyJoin } from './state-files.js';

type Handler = (it: Interpreter, call: StepCall) => Promise<Outcome>;

/** The value of the step key named by the command, else `default`. */
function forCommand(call: StepCall): string | undefined {
  const v = call.vars.get(call.cmd) ?? call.vars.get('default');
  return v === undefined ? undefined : String(v);
}

function isRelative(path: string): boolean {
  return !path.startsWith('/');
}

/** A step that ends its component: the steps after it never run, which zapusk-tool warns about. */
function endComponent(it: Interpreter, call: StepCall): Outcome {
  warnNeverPerformed(it, call);
  return 'done';
}

const os: Handler = async (it, call) => {
  const started = it.o.now();
  let command = forCommand(call);
  if (command === undefined) {
    it.record(call, 'skipped', `no ${call.cmd} or default command`, started);
    return 'ok_no_cmd_record';
  }
  // The first word may name a script of the program folder: run that file.
  const first = /^(\S+)/.exec(command)?.[1];
  if (first && !first.startsWith('/') && !first.startsWith('.')) {
    const candidate = join(call.inst.program.dir, first);
    if (await it.machine.exists(candidate)) command = candidate + command.slice(first.length);
  }
  if (!it.o.dry) await it.machine.writeMark(join(call.inst.stateDir, 'params.sh'), formatShell(call.inst.stateParams));
  const result = await runOs(it, call, command, started);
  return result === 'stop' ? 'stop' : endComponent(it, call);
};

/** Runs an os (or run) step's command in the state dir, output shown live; exit 100 is `stop`. */
async function runOs(it: Interpreter, call: StepCall, command: string, started: number, detail: readonly string[] = []): Promise<'ok' | 'stop'> {
  // zapusk-tool's Ruby cannot start an empty command: the step fails.
  if (command.trim() === '') it.fail(call, 'Z030', `os command execution failed. cmd=[${command}], pwd=[${call.inst.stateDir}]`);
  if (it.o.dry) {
    // Its exit code cannot be known: a dry run goes on as after a success.
    it.note(call, 'ran', command, false, detail);
    it.record(call, 'pending', `Command "${command}" would run`, started, { changes: { command } });
    return 'ok';
  }
  const r = await it.shell(call.inst, command, { cwd: call.inst.stateDir, colored: true });
  const code = r.code;
  it.note(call, 'ran', command, code !== 0 && code !== 100);
  const outputs = { command, retcode: code, stdout: r.stdout, stderr: r.stderr };
  const comment = `Command "${command}" run`;
  if (code === null || (code !== 0 && code !== 100)) {
    it.record(call, 'failed', code === null ? `Command "${command}" was killed by signal ${r.signal ?? 'unknown'}` : comment, started, { outputs });
    it.fail(call, 'Z030', `unsupported non-zero exit code [${code ?? 'signal'}]. cmd=[${command}], pwd=[${call.inst.stateDir}]`);
  }
  if (code === 100) {
    it.record(call, 'changed', `exit 100: stop the components of ${call.inst.globalName}`, started, { outputs });
    return 'stop';
  }
  it.record(call, 'changed', comment, started, { outputs });
  return 'ok';
}

/**
 * zapusk-tool's [run]: the code for the command (or `default`) is saved as `script-<command>` in the
 * state dir, headed `#!/usr/bin/env <lang>` (default bash) unless it has its own `#!` line, and run there
 * like an os step, params in params.sh and params.json beside it; then the command goes on to the next
 * step. No code for the command: it goes on at once.
 */
const run: Handler = async (it, call) => {
  const started = it.o.now();
  let code = forCommand(call);
  if (code === undefined) return call.next();
  const { inst, cmd } = call;
  if (it.o.dry) {
    const result = await runOs(it, call, join(inst.stateDir, `script-${cmd}`), started, code.split('\n'));
    return result === 'stop' ? 'stop' : call.next();
  }
  await it.machine.writeMark(join(inst.stateDir, 'params.sh'), formatShell(inst.stateParams));
  await it.machine.writeMark(join(inst.stateDir, 'params.json'), `${JSON.stringify(Object.fromEntries(inst.stateParams))}\n`);
  let head = '';
  if (!code.startsWith('#!')) {
    const langValue = call.vars.get('lang');
    const lang = typeof langValue === 'string' ? langValue : 'bash';
    head = `#!/usr/bin/env ${lang}\n`;
    // Old rubies need rubygems asked for.
    if (lang === 'ruby') code = `require 'rubygems'\n${code}`;
  }
  const script = join(inst.stateDir, `script-${cmd}`);
  await it.machine.writeScript(script, `${head}${code}${code.endsWith('\n') ? '' : '\n'}`);
  const result = await runOs(it, call, script, started);
  if (result === 'stop') return 'stop';
  return call.next();
};

const info: Handler = async (it, call) => {
  const message = forCommand(call);
  if (message !== undefined) {
    it.o.printer.info(call.inst.padding, message);
    it.record(call, 'ok', message, it.o.now());
  }
  return call.rest.length > 0 ? call.next() : 'done';
};

const commands: Handler = async (it, call) => {
  const { cmd, vars } = call;
  if (cmd === 'destroy' && !vars.has(cmd)) return call.next();
  const route = vars.get(cmd) ?? vars.get('default');
  if (route === undefined) {
    it.record(call, 'skipped', `no route for ${cmd}`, it.o.now());
    return 'skipped_no_route';
  }
  // As Ruby's split: an empty part between two separators is a command too (`a, b` runs a, "" and b);
  // trailing empty parts are dropped.
  const parts = route === true ? ['apply'] : route.split(/[\s,]/);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  it.record(call, 'ok', `${cmd} -> ${parts.join(',')}`, it.o.now());
  let result: Outcome = 'pending';
  for (const part of parts) result = await call.next(part);
  return result;
};

function flagsDir(call: StepCall): string {
  const dir = call.vars.get('dir');
  if (typeof dir !== 'string' || dir === '') return call.inst.stateDir;
  return isRelative(dir) ? join(call.inst.stateDir, dir) : dir;
}

const once: Handler = async (it, call) => {
  const { cmd, comp } = call;
  const dir = flagsDir(call);
  const refused = refusedDir(dir);
  if (refused) return it.fail(call, 'Z034', `once: dir ${dir} refused: ${refused}`);
  const prefix = `once-${comp.name}-`;
  if (cmd === 'destroy') {
    if (!it.o.dry) for (const f of await it.machine.list(dir)) if (f.startsWith(prefix) && f.endsWith('.flag')) await it.machine.remove(join(dir, f));
    return call.next();
  }
  if (!call.vars.has(cmd) || it.o.force) return call.next();
  const flag = join(dir, `${prefix}${cmd}.flag`);
  if (await it.machine.exists(flag)) {
    it.o.printer.info(call.inst.padding, `ONCE filter: cmd=${cmd} skipped due to \`once\` setting in ${call.inst.globalName}/${comp.name}`);
    it.record(call, 'skipped', `${cmd} already done once`, it.o.now());
    return 'skipped_due_to_once';
  }
  const result = await call.next();
  if (it.o.dry) return result;
  // Written only after the rest succeeded: a failed first run is retried next time.
  await it.machine.mkdirp(dir);
  await it.machine.writeMark(flag, `${new Date(it.o.now()).toISOString()}\n`);
  return result;
};

const guard: Handler = async (it, call) => {
  const { cmd, vars, inst, comp } = call;
  const key = vars.get('key');
  if (typeof key !== 'string' || key === '') return it.fail(call, 'Z031', 'guard: param "key" is required');
  const dirValue = vars.get('dir');
  const guardsDir = typeof dirValue === 'string' && dirValue !== '' ? dirValue : '/zapusk/_guards/';
  if (key === '.' || key === '..' || key.includes('/')) return it.fail(call, 'Z034', `guard: key ${JSON.stringify(key)} must be one folder name (destroy removes <dir>/<key>)`);
  const refused = refusedDir(resolve(guardsDir));
  if (refused) return it.fail(call, 'Z034', `guard: dir ${guardsDir} refused: ${refused}`);
  const keyDir = rubyJoin(guardsDir, key);
  const priority = typeof vars.get('priority') === 'string' ? String(vars.get('priority')) : '20';
  const self = `${inst.globalName}-${comp.name}`;
  const own = `${priority}-${self}.state`;
  if (cmd === 'destroy') {
    if (!it.o.dry) await it.machine.remove(join(keyDir, own));
    const others = (await it.machine.list(keyDir)).filter((f) => f.endsWith('.state') && f !== own);
    if (others.length > 0) {
      it.o.printer.info(inst.padding, `GUARD: other user found. skipping destroy due to: ${rubyJoin(keyDir, others[0] as string)}`);
      it.record(call, 'skipped', `other users of ${key} remain`, it.o.now());
      return 'done_destroy_skipped_due_other_users';
    }
    if (!it.o.dry) await it.machine.remove(keyDir, true);
    return call.next();
  }
  if (it.o.dry) return call.next();
  await it.machine.mkdirp(keyDir);
  if (!(await it.machine.exists(join(keyDir, own)))) await it.machine.writeMark(join(keyDir, own), `${inst.stateDir}\n`);
  // A flag of this user under another priority is stale.
  for (const f of await it.machine.list(keyDir)) {
    if (f !== own && (f.endsWith(`${self}.state`) || f.endsWith(`${self}.flag`))) {
      it.o.printer.info(inst.padding, `guard: unlinking unneeded file ${rubyJoin(keyDir, f)}`);
      await it.machine.remove(join(keyDir, f));
    }
  }
  it.record(call, 'ok', `user of ${key}`, it.o.now());
  return call.next();
};

const load: Handler = async (it, call) => {
  const dirValue = call.vars.get('dir');
  if (typeof dirValue !== 'string' || dirValue === '') return it.fail(call, 'Z032', 'load: param "dir" is required');
  const dir = isRelative(dirValue) ? rubyJoin(call.inst.program.dir, dirValue) : dirValue;
  it.o.printer.info(call.inst.padding, `perform_type_load: using dir [${dir}]`);
  it.record(call, 'ok', `load ${dir}`, it.o.now());
  return it.runSubProgram(call, dir);
};

/** Days are 0-6, Sunday 0; destroy always passes so that a schedule never blocks clean-up. */
const when: Handler = async (it, call) => {
  const days = call.vars.get('day_of_week');
  if (call.cmd === 'destroy' || days === undefined || days === true) return call.next();
  const today = String(new Date(it.o.now()).getDay());
  if (days.split(/[\s,]+/).includes(today)) return call.next();
  it.record(call, 'skipped', `day ${today} is not in day_of_week=${days}`, it.o.now());
  return 'skipped_by_schedule';
};

const disabled: Handler = async (it, call) => {
  it.record(call, 'skipped', 'disabled', it.o.now());
  return 'ok';
};

const zdb: Handler = async (it, call) => {
  const typeDir = call.vars.get('type_dir');
  let dir = typeof typeDir === 'string' && typeDir !== '' ? typeDir : undefined;
  if (!dir) {
    const { found, searched } = it.findZdbType(call.inst, call.type);
    if (!found) return it.fail(call, 'Z010', `cannot find zdb of type \`${call.type}\` (looked for ${call.type}.zdb in ${searched.join(', ')})`);
    dir = found;
  }
  it.record(call, 'ok', `zdb type ${call.type} from ${dir}`, it.o.now());
  return it.runSubProgram(call, dir);
};

export const BUILTIN_TYPES: ReadonlyMap<string, Handler> = new Map([
  ['os', os],
  ['run', run],
  ['info', info],
  ['commands', commands],
  ['once', once],
  ['file', fileStep],
  ['guard', guard],
  ['load', load],
  ['when', when],
  ['disabled', disabled],
]);

export function runStepType(it: Interpreter, call: StepCall): Promise<Outcome> {
  return (BUILTIN_TYPES.get(call.type) ?? zdb)(it, call);
}
