/**
 * `healthcheck`: the plan's checks read as health. A node in sync is healthy; a task whose check exits 1
 * and a node whose values cannot be known yet are warnings; any other needed change is an error. A node
 * whose dependencies are unhealthy says so, and the summary counts all three.
 */
import type { GraphNode, NodeResult } from '../../core/model.js';
import { drawNode } from './format-text.js';

type Level = 'healthy' | 'warning' | 'error';

function levelOf(node: GraphNode, r: NodeResult): Level {
  if (r.status === 'ok' || r.status === 'skipped') return r.result === false ? 'error' : 'healthy';
  if (r.status === 'unresolvable') return 'warning';
  if (r.result === false) return 'error';
  if (node.type === 'task' && r.outputs?.['check.exitstatus'] === 1) return 'warning';
  return 'error';
}

export function formatHealth(nodes: readonly GraphNode[], results: readonly NodeResult[], before: ReadonlyMap<string, readonly string[]>): { text: string; unhealthy: number } {
  const byId = new Map(results.map((r) => [r.id, r]));
  const levels = new Map<string, Level>();
  for (const n of nodes) {
    const r = byId.get(n.id);
    if (r) levels.set(n.id, levelOf(n, r));
  }
  let body = '';
  let errors = 0;
  let warnings = 0;
  let deps = 0;
  for (const n of nodes) {
    const r = byId.get(n.id);
    const level = levels.get(n.id);
    if (!r || !level) continue;
    const failing = (before.get(n.id) ?? []).filter((d) => (levels.get(d) ?? 'healthy') !== 'healthy');
    if (level === 'error') errors++;
    if (level === 'warning') warnings++;
    if (failing.length > 0) deps++;
    const problems: string[] = [];
    if (level !== 'healthy') problems.push(r.status === 'unresolvable' ? r.comment : r.result === false ? `check failed: ${r.comment}` : 'required changes detected');
    if (failing.length > 0) problems.push('required dependencies are failing');
    const messages: string[] = [];
    if (r.status === 'pending') messages.push('Check returned 2', 'Check indicates changes are required');
    if (failing.length > 0) messages.push(`${failing.length} failing dependencies`);
    const problem = problems.join('; ');
    body += drawNode({
      id: r.id,
      // Converge prints a failing check as an Error whatever its level; only unresolvable nodes are warnings.
      ...(problem && r.status === 'unresolvable' ? { warning: problem } : problem ? { error: problem } : {}),
      messages,
      hasChanges: r.status === 'pending' || r.status === 'unresolvable',
      changes: [],
    });
  }
  const text = `\n${body}Summary: ${errors} errors, ${warnings} warnings\n${deps} checks will fail due to failing dependencies\n`;
  return { text, unhealthy: errors + warnings };
}
