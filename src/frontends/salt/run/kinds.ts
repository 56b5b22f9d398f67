/**
 * The shared kinds as Salt's state functions behave: cmd.wait does nothing until watched, and a watch that
 * fires on an unchanged cmd or test state runs its mod_watch (recorded, for Salt's __run_num__ gap).
 */
import type { ApplyOutcome, GraphNode, NodeResult } from '../../../core/model.js';
import { isChanged } from '../../../core/model.js';
import type { Kind } from '../../../resources/index.js';
import type { NodeInfo } from './graph.js';
import { tagOf } from './graph.js';
import { hasGuards, runGuards, stateCheckCmd } from './guards.js';

export interface WatchTracker {
  /** Nodes whose mod_watch ran (apply mode). */
  readonly modWatch: Set<string>;
  /** Nodes whose watch was skipped by a guard (Salt's skip_watch). */
  readonly skipWatch: Set<string>;
  /** Results so far, by node id, for test.mod_watch. */
  readonly running: Map<string, NodeResult>;
  /** What each watch call returned: Salt shows it instead of the first call's result. */
  readonly watchRet: Map<string, ApplyOutcome>;
}

export function newTracker(): WatchTracker {
  return { modWatch: new Set(), skipWatch: new Set(), running: new Map(), watchRet: new Map() };
}

export function changedWatches(info: NodeInfo, running: ReadonlyMap<string, NodeResult>): string[] {
  return info.watches.filter((c) => {
    const r = running.get(tagOf(c));
    return r !== undefined && isChanged(r);
  }).map((c) => `${c.state}: ${c.__id__}`);
}

export function saltKinds(base: ReadonlyMap<string, Kind>, info: ReadonlyMap<string, NodeInfo>, tracker: WatchTracker): Map<string, Kind> {
  const out = new Map<string, Kind>();
  for (const [type, kind] of base) {
    const wrapped: Kind = {
      type,
      validate: (params, node) => kind.validate(params, node),
      ...(kind.preflight ? { preflight: kind.preflight.bind(kind) } : {}),
      async check(ctx, params, node) {
        const i = info.get(node.id);
        if (i?.fail !== undefined) throw new Error(i.fail);
        if (i && hasGuards(i.chunk)) {
          const g = await runGuards(ctx.host, i.chunk);
          if (g.skip) return { inSync: true, comment: g.comment, outputs: { guard_skip: true } };
        }
        if (i?.chunk.state === 'cmd' && i.chunk.fun === 'wait') return { inSync: true, comment: '' };
        return kind.check(ctx, params, node);
      },
      async apply(ctx, params, check, node) {
        const out = await kind.apply(ctx, params, check, node);
        const i = info.get(node.id);
        // state.py's own check_cmd, for functions that do not take one themselves (file.managed does).
        if (!i || i.chunk.check_cmd === undefined || i.chunk.state === 'file') return out;
        const verdict = await stateCheckCmd(ctx.host, i.chunk);
        return { ...out, ok: verdict.ok, comment: verdict.comment, outputs: { ...out.outputs, check_cmd: true } };
      },
    };
    if (type === 'command' || type === 'test') {
      (wrapped as { watch?: Kind['watch'] }).watch = async (ctx, params, node: GraphNode): Promise<ApplyOutcome> => {
        const i = info.get(node.id);
        if (!i?.impl?.modWatch) return { ok: true };
        const record = (o: ApplyOutcome): ApplyOutcome => {
          tracker.watchRet.set(node.id, o);
          return o;
        };
        if (type === 'test') {
          tracker.modWatch.add(node.id);
          // test.mod_watch takes its comment from the state's own `comment` argument when there is one.
          const comment = typeof i.chunk.comment === 'string' ? i.chunk.comment : 'Watch statement fired.';
          return record({ ok: true, comment, changes: { 'Requisites with changes': changedWatches(i, tracker.running) } });
        }
        if (hasGuards(i.chunk)) {
          const g = await runGuards(ctx.host, i.chunk);
          if (g.skip) {
            tracker.skipWatch.add(node.id);
            return record({ ok: true, comment: g.comment });
          }
        }
        const c = await kind.check(ctx, params, node);
        if (c.inSync) {
          tracker.skipWatch.add(node.id);
          return record({ ok: true, comment: c.comment ?? '' });
        }
        tracker.modWatch.add(node.id);
        return record(await kind.apply(ctx, params, { ...c, inSync: false }, node));
      };
    }
    out.set(type, wrapped);
  }
  return out;
}
