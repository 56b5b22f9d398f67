/**
 * [file]: writes `content` to `path` on every command but destroy (the spec; zapusk-tool writes on apply
 * only), and undoes it on destroy or when the path changes: a file that was there before is restored
 * from its backup, a file that was not is deleted. The bookkeeping is zapusk-tool's, in the instance's
 * state dir: `created-file-<component>` holds the path written, `file-backup-<component>` the original
 * (or the line `zapusk-file-empty-mark` when there was none).
 */
import type { Interpreter, Outcome, StepCall } from './run.js';
import { inspectStep, rubyJoin } from './state-files.js';

const EMPTY_MARK = 'zapusk-file-empty-mark';

/** chmod's symbolic modes (`+x`, `u=rwx,go=rx`, `a-w`) applied to `base`. */
export function symbolicMode(spec: string, base: number): number | undefined {
  let mode = base;
  for (const clause of spec.split(',')) {
    const m = /^([ugoa]*)([-+=])([rwxXst]*)$/.exec(clause);
    if (!m) return undefined;
    const who = m[1] === '' || (m[1] as string).includes('a') ? 'ugo' : (m[1] as string);
    let bits = 0;
    for (const p of m[3] as string) {
      for (const w of who) {
        const shift = w === 'u' ? 6 : w === 'g' ? 3 : 0;
        if (p === 'r') bits |= 4 << shift;
        else if (p === 'w') bits |= 2 << shift;
        else if (p === 'x' || (p === 'X' && (base & 0o111) !== 0)) bits |= 1 << shift;
        else if (p === 's') bits |= w === 'u' ? 0o4000 : w === 'g' ? 0o2000 : 0;
        else if (p === 't') bits |= 0o1000;
      }
    }
    let mask = 0;
    for (const w of who) mask |= w === 'u' ? 0o4700 : w === 'g' ? 0o2070 : 0o1007;
    if (m[2] === '+') mode |= bits;
    else if (m[2] === '-') mode &= ~bits;
    else mode = (mode & ~mask) | bits;
  }
  return mode;
}

export function parseFileMode(spec: string, base: number): number | undefined {
  if (/^0?[0-7]{3}$/.test(spec)) return Number.parseInt(spec, 8);
  return symbolicMode(spec, base);
}

async function restoreOrErase(it: Interpreter, call: StepCall, path: string, backup: string): Promise<void> {
  if (await it.machine.markExists(backup)) {
    const first = (await it.machine.readText(backup)).split('\n')[0];
    if (first !== EMPTY_MARK) {
      it.o.printer.info(call.inst.padding, `file: restoring backup [${path}]`);
      const r = await it.machine.act('file', { path, source: backup });
      if (!r.ok) return it.fail(call, 'Z041', `file: cannot restore ${path}: ${r.comment ?? ''}`);
      it.note(call, 'restored', path);
      await it.machine.remove(backup);
      return;
    }
    await it.machine.remove(backup);
  }
  const r = await it.machine.act('absent', { path });
  if (!r.ok) return it.fail(call, 'Z041', `file: cannot remove ${path}: ${r.comment ?? ''}`);
  if (!r.inSync) it.note(call, 'removed', path);
}

/** Dry run: what restoreOrErase would do to `path`. */
async function planRestoreOrErase(it: Interpreter, call: StepCall, path: string, backup: string): Promise<void> {
  if ((await it.machine.markExists(backup)) && (await it.machine.readText(backup)).split('\n')[0] !== EMPTY_MARK) it.note(call, 'restored', path, false, ['(the file that was there before this step wrote it)']);
  else if (await it.machine.exists(path)) it.note(call, 'removed', path);
}

/** The lines that show a file change: a unified diff with the path, or the new file's content. */
function changeLines(path: string, check: { changes?: Record<string, unknown>; outputs?: Record<string, unknown> }): string[] {
  const changes = check.changes ?? {};
  const lines: string[] = [];
  if (changes.newfile !== undefined) {
    const content = String(check.outputs?.content ?? '');
    lines.push('--- /dev/null', `+++ ${path}`, ...(content === '' ? [] : content.replace(/\n$/, '').split('\n').map((l) => `+${l}`)));
    if (content !== '' && !content.endsWith('\n')) lines.push('\\ No newline at end of file');
  } else if (typeof changes.diff === 'string') {
    lines.push(...changes.diff.replace(/^--- \n\+\+\+ \n/, `--- ${path}\n+++ ${path}\n`).replace(/\n$/, '').split('\n'));
  }
  for (const [k, v] of Object.entries(changes)) if (k !== 'diff' && k !== 'newfile') lines.push(`${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return lines;
}

export async function fileStep(it: Interpreter, call: StepCall): Promise<Outcome> {
  const { vars, inst, comp, cmd } = call;
  const started = it.o.now();
  const given = vars.get('path');
  if (typeof given !== 'string' || given === '') return it.fail(call, 'Z040', 'file: param "path" is required');
  const path = given.startsWith('/') ? given : rubyJoin(inst.stateDir, given);
  const content = vars.get('content');
  // A state dir is always a normal path (resolved or joined) and a component name one plain word
  // (letters, digits, _ and -): the marks' paths are the two put together, as join would give them.
  const backupName = `file-backup-${comp.name}`;
  const flagName = `created-file-${comp.name}`;
  const backup = `${inst.stateDir}/${backupName}`;
  const flag = `${inst.stateDir}/${flagName}`;

  if (it.o.dry) {
    await planFile(it, call, path, content === undefined ? '' : String(content), backup, flag);
    return endFileStep(it, call);
  }
  // The flag names the file this step wrote; when it already names this one there is nothing to rewrite
  // (a no-op apply then costs reads only, not an fsync per step).
  let flagged = false;
  // The flag names the file written, most likely this one.
  const expect = Buffer.byteLength(path) + 1;
  const flagNow = it.machine.readMarkNow(inst.stateDir, flagName, expect);
  const flagText = flagNow !== null ? flagNow : await it.machine.readMarkIfExists(inst.stateDir, flagName, expect);
  if (flagText !== undefined) {
    const previous = flagText.endsWith('\n') ? flagText.slice(0, -1) : flagText;
    flagged = previous === path;
    if (previous !== path) {
      await restoreOrErase(it, call, previous, backup);
      await it.machine.remove(flag);
    }
  }
  if (cmd === 'destroy') {
    if (await it.machine.markExists(flag)) {
      await restoreOrErase(it, call, path, backup);
      await it.machine.remove(flag);
      it.record(call, 'changed', `File ${path} removed`, started);
    } else it.record(call, 'ok', `File ${path} was not written by this step`, started);
  } else {
    const params: Record<string, unknown> = { path, content: content === undefined ? '' : String(content) };
    const modeSpec = vars.get('mode');
    const withMode = typeof modeSpec === 'string' && modeSpec !== '';
    // A file found at once already holding the content is there (a regular file): no stat is needed to
    // know it, and that finding is the write's outcome (a backup made first copies it, not changes it).
    const now = withMode ? undefined : it.machine.actNow('file', params);
    const current = now === undefined ? await it.o.host.stat(path) : undefined;
    const present = now !== undefined || current !== null;
    if (present && !(it.machine.markNow(inst.stateDir, backupName) ?? (await it.machine.markExists(backup)))) {
      it.o.printer.info(inst.padding, `making backup of [${path}] to [${backup}]`);
      const r = await it.machine.act('file', { path: backup, source: path, mode: 0o600 });
      if (!r.ok) return it.fail(call, 'Z041', `file: cannot back up ${path}: ${r.comment ?? ''}`);
    } else if (!present) await it.machine.writeMark(backup, `${EMPTY_MARK}\n`);
    if (withMode) {
      const mode = parseFileMode(modeSpec, current?.mode ?? 0o644);
      if (mode === undefined) return it.fail(call, 'Z042', `file: cannot read mode ${JSON.stringify(modeSpec)} (use 640, 0640, +x or u=rwx,go=rx)`);
      params.mode = mode;
    }
    const r = now ?? (await it.machine.act('file', params));
    if (!r.ok) return it.fail(call, 'Z041', `file: cannot write ${path}: ${r.comment ?? ''}`);
    if (!r.inSync) it.note(call, 'wrote', path);
    if (!flagged) await it.machine.writeMark(flag, `${path}\n`);
    it.record(call, r.inSync ? 'ok' : 'changed', r.comment ?? '', started, r.changes ? { changes: r.changes } : undefined);
  }
  return endFileStep(it, call);
}

/** zapusk-tool's warning about steps after one that ends the component, with its dump of them. */
export function warnNeverPerformed(it: Interpreter, call: StepCall): void {
  if (call.index + 1 >= call.comp.steps.length) return;
  it.o.printer.warning(call.inst.padding, `following steps never will be performed: [[${call.rest.map((s) => inspectStep(s, call.comp.name)).join(', ')}]]`);
}

function endFileStep(it: Interpreter, call: StepCall): Outcome {
  warnNeverPerformed(it, call);
  return 'done';
}

/** A dry run of the step: what it would write, remove or restore, reading only. */
async function planFile(it: Interpreter, call: StepCall, path: string, content: string, backup: string, flag: string): Promise<void> {
  const started = it.o.now();
  const previous = (await it.machine.markExists(flag)) ? (await it.machine.readText(flag)).replace(/\n$/, '') : undefined;
  if (previous !== undefined && previous !== path) await planRestoreOrErase(it, call, previous, backup);
  if (call.cmd === 'destroy') {
    if (previous === path) await planRestoreOrErase(it, call, path, backup);
    it.record(call, previous === path ? 'pending' : 'ok', previous === path ? `File ${path} would be removed` : `File ${path} was not written by this step`, started);
    return;
  }
  const params: Record<string, unknown> = { path, content };
  const modeSpec = call.vars.get('mode');
  if (typeof modeSpec === 'string' && modeSpec !== '') {
    const mode = parseFileMode(modeSpec, (await it.o.host.stat(path))?.mode ?? 0o644);
    if (mode === undefined) return it.fail(call, 'Z042', `file: cannot read mode ${JSON.stringify(modeSpec)} (use 640, 0640, +x or u=rwx,go=rx)`);
    params.mode = mode;
  }
  let check;
  try {
    check = await it.machine.check('file', params);
  } catch (e) {
    return it.fail(call, 'Z041', `file: cannot write ${path}: ${(e as Error).message}`);
  }
  if (check.inSync) {
    it.o.printer.unchanged(call.inst.padding, `would leave ${path} as it is (${call.comp.name} [${call.step.id}] in ${call.inst.globalName})`);
    it.record(call, 'ok', check.comment ?? '', started);
    return;
  }
  it.note(call, 'wrote', path, false, changeLines(path, check));
  it.record(call, 'pending', check.comment ?? '', started, check.changes ? { changes: check.changes } : {});
}
