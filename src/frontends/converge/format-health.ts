/**
 * `healthcheck`: each node's plan check read as health, as Converge words it. Every node carries a status
 * code (0 no change, 1 a difference that will not be corrected, 2 will change, 3 may change, 4 cannot
 * change, 5 fatal); a non-zero code is printed as `Check returned N`, a node with changes says so and keeps
 * its changes. A task is healthy when its check exits 0, a warning when it exits 1 and an error otherwise;
 * any other node with changes (or unhealthy dependencies) is a warning, and an error from code 2 up. Only
 * a warning or an error is printed as `required changes detected`. A node whose dependencies have changes
 * counts them as failing. The summary counts errors, warnings and nodes with failing dependencies.
 */
import { maskValues } from '../../core/redact.js';
import type { GraphNode, NodeResult } from '../../core/model.js';
import type { Context } from './format-resources.js';
import { drawNode, type Printable, printable } from './format-text.js';

type Level = 'healthy' | 'warning' | 'error';

interface Health {
  readonly code: number;
  readonly level: Level;
  readonly hasChanges: boolean;
  readonly plan: Printable;
}

function isShell(node: GraphNode): boolean {
  return node.type === 'task';
}

/** The Converge status code of a node's plan check. */
function statusCode(node: GraphNode, r: NodeResult, ctype: string, p: Printable): number {
  if (isShell(node)) {
    if (r.result === false) return 5;
    const rc = r.outputs?.['check.exitstatus'];
    return rc === undefined || rc === 0 ? 0 : 2;
  }
  if (p.error !== undefined) return p.hasChanges ? 4 : 5;
  if (p.warning !== undefined && p.hasChanges) return 3;
  if (ctype === 'file.content') return p.changes.some(([, before]) => before === '<file-missing>') ? 2 : 0;
  if (ctype === 'file.mode') return p.hasChanges ? 2 : 1;
  // file.owner reports its differences without raising its status level.
  if (ctype === 'file.owner') return 0;
  return p.hasChanges ? 2 : 0;
}

function health(node: GraphNode, r: NodeResult, ctype: string, context: Context): Health {
  const plan = printable(node, r, ctype, 'plan', context);
  const code = statusCode(node, r, ctype, plan);
  if (isShell(node)) {
    const rc = r.outputs?.['check.exitstatus'];
    const level: Level = r.result === false ? 'error' : rc === undefined || rc === 0 ? 'healthy' : rc === 1 ? 'warning' : 'error';
    return { code, level, hasChanges: r.result !== false && code !== 0, plan };
  }
  const hasChanges = code !== 5 && plan.hasChanges;
  const level: Level = !hasChanges ? 'healthy' : code >= 2 ? 'error' : 'warning';
  return { code, level, hasChanges, plan };
}

export function formatHealth(
  nodes: readonly GraphNode[],
  results: readonly NodeResult[],
  before: ReadonlyMap<string, readonly string[]>,
  types: ReadonlyMap<string, string> = new Map(),
  context: Context = {},
): { text: string; unhealthy: number } {
  const byId = new Map(results.map((r) => [r.id, r]));
  const healths = new Map<string, Health>();
  let body = '';
  let errors = 0;
  let warnings = 0;
  let deps = 0;
  for (const n of nodes) {
    const r = byId.get(n.id);
    if (!r) continue;
    if (r.status === 'unresolvable') healths.set(n.id, { code: 3, level: 'warning', hasChanges: true, plan: { id: r.id, messages: [], hasChanges: true, changes: [] } });
    else healths.set(n.id, health(n, r, types.get(n.id) ?? '', context));
  }
  // Converge counts every node a node waits for, however indirectly.
  const ancestors = (id: string): Set<string> => {
    const seen = new Set<string>();
    const walk = (x: string): void => {
      for (const d of before.get(x) ?? []) {
        if (seen.has(d)) continue;
        seen.add(d);
        walk(d);
      }
    };
    walk(id);
    return seen;
  };
  for (const n of nodes) {
    const r = byId.get(n.id);
    const h = healths.get(n.id);
    if (!r || !h) continue;
    if (r.status === 'unresolvable') {
      // Values that only an apply can produce: a warning that the node may change.
      warnings++;
      body += drawNode({ id: r.id, warning: r.comment, messages: [], hasChanges: true, changes: [] });
      continue;
    }
    const failing = [...ancestors(n.id)].filter((d) => healths.get(d)?.hasChanges === true);
    // Failing dependencies make any node at least a warning.
    const level: Level = failing.length > 0 && h.level === 'healthy' ? 'warning' : h.level;
    if (level === 'error') errors++;
    if (level === 'warning') warnings++;
    if (failing.length > 0) deps++;
    const problems: string[] = [];
    if (level !== 'healthy') problems.push(r.result === false && isShell(n) ? `check failed: ${r.comment}` : 'required changes detected');
    if (failing.length > 0) problems.push('required dependencies are failing');
    const messages: string[] = [];
    if (h.code !== 0) messages.push(`Check returned ${h.code}`);
    if (h.hasChanges) messages.push('Check indicates changes are required');
    if (failing.length > 0) messages.push(`${failing.length} failing dependencies`);
    body += drawNode({
      id: r.id,
      ...(problems.length > 0 ? { error: problems.join('; ') } : {}),
      ...(h.plan.warning !== undefined ? { warning: h.plan.warning } : {}),
      messages,
      hasChanges: h.hasChanges,
      changes: isShell(n) ? [] : h.plan.changes,
    });
  }
  const text = `\n${body}Summary: ${errors} errors, ${warnings} warnings\n${deps} checks will fail due to failing dependencies\n`;
  const secrets = [...new Set(nodes.flatMap((n) => n.secret?.values ?? []))];
  return { text: maskValues(text, secrets), unhealthy: errors + warnings };
}
