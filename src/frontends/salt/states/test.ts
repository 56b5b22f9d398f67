/** Salt's test.* states on the shared `test` kind; their results are pure functions of the args and test mode. */
import type { Chunk } from '../compile/index.js';
import type { FinishContext, SaltRet, StateImpl } from './types.js';

const PRETEND = () => ({ testing: { old: 'Unchanged', new: 'Something pretended to change' } });

function action(fun: string, chunk: Chunk): string {
  switch (fun) {
    case 'succeed_with_changes':
      return 'succeed_with_changes';
    case 'fail_with_changes':
      return 'fail';
    case 'fail_without_changes':
      return 'fail_without_changes';
    case 'nop':
      return 'noop';
    case 'configurable_test_state': {
      const changes = chunk.changes !== false;
      const ok = chunk.result !== false;
      return ok ? (changes ? 'succeed_with_changes' : 'succeed') : changes ? 'fail' : 'fail_without_changes';
    }
    default:
      return 'succeed';
  }
}

/** What Salt's test module returns, before requisites or watch step in. */
function saltReturn(chunk: Chunk, test: boolean): SaltRet {
  const comment = 'comment' in chunk ? (chunk.comment as string) : undefined;
  switch (chunk.fun) {
    case 'succeed_with_changes':
      return test
        ? { result: null, comment: "If we weren't testing, this would be successful with changes", changes: PRETEND() }
        : { result: true, comment: comment ?? 'Success!', changes: PRETEND() };
    case 'fail_with_changes':
      return test ? { result: null, comment: "If we weren't testing, this would be failed with changes", changes: PRETEND() } : { result: false, comment: comment ?? 'Failure!', changes: PRETEND() };
    case 'fail_without_changes':
      return test ? { result: false, comment: "If we weren't testing, this would be a failure!", changes: {} } : { result: false, comment: comment ?? 'Failure!', changes: {} };
    case 'configurable_test_state': {
      const changes = chunk.changes !== false;
      const result = chunk.result !== false;
      const text = comment ?? '';
      if (test) return { result: changes ? null : true, comment: text || 'This is a test', changes: changes ? PRETEND() : {} };
      return { result, comment: text, changes: changes ? PRETEND() : {} };
    }
    case 'show_notification':
      return { result: true, comment: chunk.text as string, changes: {} };
    case 'nop':
      return { result: true, comment: 'Success!', changes: {} };
    default:
      return { result: true, comment: comment ?? 'Success!', changes: {} };
  }
}

export const testState: StateImpl = {
  modWatch: true,
  translate(chunk) {
    return { type: 'test', params: { name: chunk.name, action: action(chunk.fun, chunk) } };
  },
  finish(chunk: Chunk, ret: SaltRet, ctx: FinishContext): SaltRet {
    return saltReturn(chunk, ctx.test);
  },
};

export const TEST_FUNCTIONS = ['succeed_with_changes', 'succeed_without_changes', 'fail_with_changes', 'fail_without_changes', 'nop', 'configurable_test_state', 'show_notification'];
