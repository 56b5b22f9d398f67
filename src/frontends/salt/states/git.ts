/**
 * Salt's git.latest for the common cases, deciding as Salt 3006.0 does: the remote's refs (`git ls-remote`)
 * name the wanted revision (HEAD, a branch, a tag or a SHA1); a missing or empty target is cloned (reset to
 * the revision and its upstream set when it is a branch); an existing checkout is fetched when it lacks the
 * revision, then fast-forwarded, or refused / hard-reset (`force_reset`) when that is not a fast-forward or
 * there are uncommitted changes. Test mode says what would happen. Every git command runs through the host.
 * Not handled: switching an existing checkout to another `branch`, `bare`/`mirror`, `depth`, a changed remote URL, tag synchronisation, submodules.
 */
import type { Host } from '../../../host/types.js';
import type { Chunk } from '../compile/index.js';
import { pyText } from './args.js';
import type { CallContext, SaltRet, StateImpl } from './types.js';

interface Git {
  run(args: string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }>;
  /** stdout trimmed, or undefined when the command fails. */
  out(args: string[], cwd?: string): Promise<string | undefined>;
}

function gitOn(host: Host): Git {
  const run = async (args: string[], cwd?: string) => {
    const r = await host.exec(['git', ...args], { ...(cwd ? { cwd } : {}), env: { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } });
    return { code: r.code ?? 1, stdout: r.stdout, stderr: r.stderr };
  };
  return {
    run,
    out: async (args, cwd) => {
      const r = await run(args, cwd);
      return r.code === 0 ? r.stdout.trim() : undefined;
    },
  };
}

/** Salt's _format_comments. */
function joinComments(comments: string[]): string {
  return comments.join('. ') + (comments.length > 1 ? '.' : '');
}

const short = (sha: string | undefined | null) => (sha ? sha.slice(0, 7) : String(sha));

async function latest(chunk: Chunk, ctx: CallContext): Promise<SaltRet> {
  const { host, test } = ctx;
  const git = gitOn(host);
  const name = pyText(chunk.name);
  const changes: Record<string, unknown> = {};
  const fail = (msg: string, comments: string[] = []): SaltRet => ({
    result: false,
    comment: comments.length > 0 ? `${msg}\n\nChanges already made: ${joinComments(comments)}` : msg,
    changes,
  });
  const rev = chunk.rev === undefined || chunk.rev === null ? 'HEAD' : pyText(chunk.rev);
  const remote = chunk.remote === undefined || chunk.remote === null ? 'origin' : pyText(chunk.remote);
  const forceReset = chunk.force_reset ?? false;
  if (chunk.target === undefined || chunk.target === null || chunk.target === '') return fail('"target" option is required');
  if (!rev) return fail(`'${rev}' is not a valid value for the 'rev' argument`);
  if (![true, false, 'remote-changes'].includes(forceReset as never)) return fail("'force_reset' must be one of True, False, or 'remote-changes'");
  const target = pyText(chunk.target);
  if (!target.startsWith('/')) return fail(`target '${target}' is not an absolute path`);
  const branch = chunk.branch === undefined || chunk.branch === null ? undefined : pyText(chunk.branch);
  for (const k of ['bare', 'mirror', 'depth']) if (chunk[k] !== undefined && chunk[k] !== null && chunk[k] !== false) return fail(`git.latest: '${k}' is not supported by cairn`);
  const tst = await host.stat(target);
  if (tst?.type === 'file') return fail(`Target '${target}' exists and is a regular file, cannot proceed`);

  const lsr = await git.run(['ls-remote', name]);
  if (lsr.code !== 0) return fail(`Failed to check remote refs: ${lsr.stderr.trim()}`);
  const refs = new Map<string, string>();
  for (const line of lsr.stdout.split('\n')) {
    const [sha, ref] = line.split('\t');
    if (sha && ref) refs.set(ref, sha);
  }
  const headRev = refs.get('HEAD');
  let defaultBranch: string | undefined;
  if (headRev) for (const [ref, sha] of refs) if (ref.startsWith('refs/heads/') && sha === headRev) {
    defaultBranch = ref.slice('refs/heads/'.length);
    break;
  }
  let wanted = rev;
  let remoteRev: string | undefined;
  let type: 'sha1' | 'branch' | 'tag' | undefined;
  let upstreamWanted: string | false | undefined = false;
  if (rev === 'HEAD') {
    if (headRev) [remoteRev, type, upstreamWanted] = [headRev, 'sha1', undefined];
  } else if (refs.has(`refs/heads/${rev}`)) [remoteRev, type, upstreamWanted] = [refs.get(`refs/heads/${rev}`), 'branch', `${remote}/${rev}`];
  else if (refs.has(`refs/tags/${rev}^{}`)) [remoteRev, type] = [refs.get(`refs/tags/${rev}^{}`), 'tag'];
  else if (refs.has(`refs/tags/${rev}`)) [remoteRev, type] = [refs.get(`refs/tags/${rev}`), 'tag'];
  else if (rev.length <= 40 && /^[0-9a-fA-F]+$/.test(rev)) [wanted, remoteRev, type] = [rev.toLowerCase(), rev.toLowerCase(), 'sha1'];
  let remoteLoc: string | undefined;
  if (type === 'sha1') remoteLoc = wanted === 'HEAD' ? `remote HEAD (${short(remoteRev)})` : short(remoteRev);
  else if (remoteRev) remoteLoc = `${type === 'branch' ? upstreamWanted : wanted} (${short(remoteRev)})`;
  if (!remoteRev && wanted !== 'HEAD') return fail(`No revision matching '${wanted}' exists in the remote repository`);
  const revsEqual = (a: string | undefined) => (a === undefined || !remoteRev ? false : type === 'sha1' ? a.startsWith(remoteRev) : a === remoteRev);
  const comments: string[] = [];

  if ((await host.stat(`${target}/.git`))?.type === 'directory') {
    const localRev = await git.out(['rev-parse', 'HEAD'], target);
    const localBranch = await git.out(['symbolic-ref', '--quiet', '--short', 'HEAD'], target);
    if (!remoteRev && localRev) return fail('Remote repository is empty, cannot update from a non-empty to an empty repository');
    if (branch !== undefined && branch !== localBranch) return fail(`git.latest: checking out another local branch ('${branch}', the checkout is on '${localBranch ?? 'None'}') is not supported by cairn`);
    const baseRev = localRev;
    const revsMatch = revsEqual(localRev);
    const localChanges = ((await git.out(['diff', 'HEAD'], target)) ?? '') !== '';
    if (localChanges && revsMatch) {
      if (forceReset === true) {
        const msg = `${target} is up-to-date, but with uncommitted changes. Since 'force_reset' is set to True, these local changes would be reset. To only reset when there are changes in the remote repository, set 'force_reset' to 'remote-changes'.`;
        if (test) {
          changes['forced update'] = true;
          return { result: null, comment: msg, changes };
        }
      } else {
        return { result: true, comment: `Repository ${target} is up-to-date, but with uncommitted changes. Set 'force_reset' to True to purge uncommitted changes.`, changes };
      }
    }
    let hasRemoteRev = false;
    if (type === 'sha1' && baseRev?.startsWith(remoteRev as string)) hasRemoteRev = true;
    else if (remoteRev && (await git.out(['rev-parse', '--verify', '--quiet', `${remoteRev}^{commit}`], target)) !== undefined) {
      if (type === 'branch') hasRemoteRev = (await git.out(['rev-parse', upstreamWanted as string], target)) === remoteRev;
      else if (type === 'tag') hasRemoteRev = (await git.out(['rev-parse', `${wanted}^{commit}`], target)) === remoteRev;
      else hasRemoteRev = true;
    }
    let fastForward: boolean | undefined = localChanges && forceReset !== 'remote-changes' ? false : undefined;
    const ancestor = async () => baseRev === undefined || (await git.run(['merge-base', '--is-ancestor', baseRev, remoteRev as string], target)).code === 0;
    if (hasRemoteRev && fastForward !== false) fastForward = await ancestor();
    const notFastForward = (): SaltRet => {
      let branchMsg = '';
      if (wanted !== 'HEAD') {
        if (localBranch !== wanted) {
          branchMsg = ` The desired rev (${wanted}) differs from the name of the local branch (${localBranch ?? 'None'}), if the desired rev is a branch name then a forced update could possibly be avoided by setting the 'branch' argument to '${wanted}' instead.`;
        }
      } else if (defaultBranch !== undefined && localBranch !== defaultBranch) {
        branchMsg = ` The default remote branch (${defaultBranch}) differs from the local branch (${localBranch ?? 'None'}). This could be caused by changing the default remote branch, or if the local branch was manually changed. Rather than forcing an update, it may be advisable to set the 'branch' argument to '${defaultBranch}' instead. To ensure that this state follows the '${defaultBranch}' branch instead of the remote HEAD, set the 'rev' argument to '${defaultBranch}'.`;
      }
      const [pre, post] = [short(baseRev), short(remoteRev)];
      return fail(
        `Repository would be updated ${localChanges && pre !== post ? `from ${pre} to ${post}` : `to ${post}`}, but ${localChanges ? 'there are uncommitted changes' : 'this is not a fast-forward merge'}. Set 'force_reset' to True${localChanges ? " (or 'remote-changes')" : ''} to force this update${localChanges ? ' and discard these changes' : ''}.${branchMsg}`,
        comments,
      );
    };
    if (fastForward === false && forceReset === false) return notFastForward();
    const upstream = localBranch === undefined ? undefined : ((await git.out(['rev-parse', '--abbrev-ref', `${localBranch}@{upstream}`], target)) ?? false);
    if (remoteRev) {
      if (test) {
        const actions: string[] = [];
        if (!hasRemoteRev) actions.push(`Remote '${remote}' would be fetched`);
        if (!revsMatch) {
          changes.revision = { old: localRev ?? null, new: remoteRev };
          if (fastForward === true) actions.push(`Repository would be fast-forwarded from ${short(localRev)} to ${short(remoteRev)}`);
          else actions.push(`Repository would be ${forceReset && hasRemoteRev ? 'hard-reset' : 'updated'} from ${short(localRev)} to ${short(remoteRev)}`);
        }
        if (!upstream && upstreamWanted) actions.push(`Tracking branch would be set to ${upstreamWanted}`);
        else if (upstream && upstreamWanted === false) actions.push('Tracking branch would be unset');
        else if (upstreamWanted && upstream !== upstreamWanted) actions.push(`Tracking branch would be updated to ${upstreamWanted}`);
        if (Object.keys(changes).length > 0) return { result: null, comment: joinComments(actions), changes };
        return uptodate(target, joinComments(actions), test, changes);
      }
      let branchOpts: string[] | undefined;
      let upstreamAction = '';
      if (!upstream && upstreamWanted) [upstreamAction, branchOpts] = [`Tracking branch was set to ${upstreamWanted}`, ['--set-upstream-to', upstreamWanted]];
      else if (upstream && upstreamWanted === false) [upstreamAction, branchOpts] = ['Tracking branch was unset', ['--unset-upstream']];
      else if (upstreamWanted && upstream !== upstreamWanted) [upstreamAction, branchOpts] = [`Tracking branch was updated to ${upstreamWanted}`, ['--set-upstream-to', upstreamWanted]];
      if (!hasRemoteRev) {
        const before = await git.out(['for-each-ref', '--format=%(refname) %(objectname)'], target);
        const f = await git.run(['fetch', remote], target);
        if (f.code !== 0) {
          return fail(`Fetch failed. Set 'force_fetch' to True to force the fetch if the failure was due to not being able to fast-forward. Output of the fetch command follows:\n\n${f.stderr.trim()}`, comments);
        }
        if ((await git.out(['for-each-ref', '--format=%(refname) %(objectname)'], target)) !== before) comments.push(`${name} was fetched, resulting in updated refs`);
        if ((await git.out(['rev-parse', '--verify', '--quiet', `${remoteRev}^{commit}`], target)) === undefined) {
          return fail(`Fetch did not successfully retrieve rev '${wanted}' from ${name}`, comments);
        }
        fastForward = await ancestor();
        if (fastForward === false && forceReset === false) return notFastForward();
        if (fastForward === true && localChanges && forceReset === false) return notFastForward();
      }
      if (fastForward === false) {
        await git.run(['reset', '--hard', remoteRev], target);
        changes['forced update'] = true;
        if (localChanges) comments.push('Uncommitted changes were discarded');
        comments.push(`Repository was hard-reset to ${remoteLoc}`);
      } else if (fastForward === true && localChanges && forceReset !== false) {
        await git.run(['reset', '--hard', 'HEAD'], target);
        comments.push('Uncommitted changes were discarded');
      }
      if (branchOpts) {
        await git.run(['branch', ...branchOpts], target);
        comments.push(upstreamAction);
      }
      if (fastForward === true && !revsEqual(baseRev)) {
        if (upstreamWanted || wanted === 'HEAD') {
          if (localBranch === undefined) return fail('Unable to fast-forward, HEAD is detached', comments);
          await git.run(['merge', '--ff-only', remoteRev], target);
          comments.push(`Repository was fast-forwarded to ${remoteLoc}`);
        } else {
          await git.run(['reset', '--hard', wanted === 'HEAD' ? remoteRev : wanted], target);
          comments.push(`Repository was reset to ${wanted} (fast-forward)`);
        }
      }
    }
    const newRev = await git.out(['rev-parse', 'HEAD'], target);
    if (!revsEqual(newRev)) return fail('Failed to update repository', comments);
    if (localRev !== newRev) {
      changes.revision = { old: localRev ?? null, new: newRev };
      return { result: true, comment: joinComments(comments), changes };
    }
    return uptodate(target, joinComments(comments), test, changes);
  }

  if (tst?.type === 'directory') {
    const contents = await host.readdir(target);
    if (chunk.force_clone === true) {
      if (test) {
        changes['forced clone'] = true;
        changes.new = `${name} => ${target}`;
        return { result: null, comment: `Target directory ${target} exists. Since force_clone=True, the contents of ${target} would be deleted, and ${name} would be cloned into this directory.`, changes };
      }
      for (const c of contents) await host.remove(`${target}/${c}`, { recursive: true });
      changes['forced clone'] = true;
    } else if (contents.length > 0) {
      return fail(`Target '${target}' exists, is non-empty and is not a git repository. Set the 'force_clone' option to True to remove this directory's contents and proceed with cloning the remote repository`);
    }
  }
  if (test) {
    changes.new = `${name} => ${target}`;
    return { result: null, comment: `Repository ${name} would be cloned to ${target}`, changes };
  }
  const clone = await git.run(['clone', ...(remote !== 'origin' ? ['--origin', remote] : []), name, target]);
  if (clone.code !== 0) return fail(`Clone failed: ${clone.stderr.trim()}`, comments);
  changes.new = `${name} => ${target}`;
  comments.push(`${name} cloned to ${target}`);
  if (!remoteRev) {
    if (wanted !== 'HEAD') return fail(`%s was cloned but is empty, so ${remote}/${wanted} cannot be checked out`.replace('%s', 'Repository'), comments);
  } else {
    if (type === 'tag' && !((await git.out(['tag', '--list'], target)) ?? '').split('\n').includes(wanted)) return fail(`Revision '${wanted}' does not exist in clone`, comments);
    const branches = async () => ((await git.out(['for-each-ref', '--format=%(refname:short)', 'refs/heads/'], target)) ?? '').split('\n').filter((b) => b !== '');
    if (branch !== undefined && !(await branches()).includes(branch)) {
      const start = wanted === 'HEAD' ? remoteRev : upstreamWanted || wanted;
      await git.run(['checkout', '-b', branch, start], target);
      comments.push(`Branch '${branch}' checked out, with ${remoteLoc} as a starting point`);
    }
    const localRev = await git.out(['rev-parse', 'HEAD'], target);
    const localBranch = await git.out(['symbolic-ref', '--quiet', '--short', 'HEAD'], target);
    if (localBranch === undefined && !refs.has('HEAD')) {
      return fail(
        "Remote HEAD refers to a ref that does not exist. This can happen when the default branch on the remote repository is renamed or deleted. If you are unable to fix the remote repository, you can work around this by setting the 'branch' argument (which will ensure that the named branch is created if it does not already exist).",
        comments,
      );
    }
    if (!revsEqual(localRev)) {
      await git.run(['reset', '--hard', remoteRev], target);
      comments.push(`Repository was reset to ${remoteLoc}`);
    }
    const upstream = localBranch === undefined ? false : ((await git.out(['rev-parse', '--abbrev-ref', `${localBranch}@{upstream}`], target)) ?? false);
    let opts: string[] | undefined;
    let action = '';
    if (!upstream && upstreamWanted) [action, opts] = [`Tracking branch was set to ${upstreamWanted}`, ['--set-upstream-to', upstreamWanted]];
    else if (upstream && upstreamWanted === false) [action, opts] = ['Tracking branch was unset', ['--unset-upstream']];
    else if (upstreamWanted && upstream !== upstreamWanted) [action, opts] = [`Tracking branch was updated to ${upstreamWanted}`, ['--set-upstream-to', upstreamWanted]];
    if (opts && branch !== undefined && !(await branches()).includes(branch)) opts = undefined;
    if (opts) {
      await git.run(['branch', ...opts], target);
      comments.push(action);
    }
  }
  const newRev = await git.out(['rev-parse', 'HEAD'], target);
  if (newRev !== undefined) changes.revision = { old: null, new: newRev };
  return { result: true, comment: joinComments(comments), changes };
}

function uptodate(target: string, comments: string, test: boolean, changes: Record<string, unknown>): SaltRet {
  let comment = `Repository ${target} is up-to-date`;
  // Salt formats the already-joined text once more, as a list of its characters.
  if (comments) comment += `\n\nChanges ${test ? 'that would be ' : ''}made: ${joinComments([...comments])}`;
  return { result: true, comment, changes };
}

export const gitStates: Record<string, StateImpl> = {
  latest: { call: latest, retOrder: ['name', 'result', 'comment', 'changes'] },
};
