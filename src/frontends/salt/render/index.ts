/** The render half of the Salt front end: top file, SLS, pillar and grains → high data. */

import type { Diagnostic } from '../../../core/diag.js';
import type { HighData, RenderResult, SaltOptions, ShowTopResult } from '../types.js';

const notYet = (what: string): never => {
  throw new Error(`salt render: ${what} is not implemented yet`);
};

export function renderHighstate(_opts: SaltOptions): RenderResult {
  return notYet('renderHighstate');
}
export function renderSls(_mods: string[], _opts: SaltOptions): RenderResult {
  return notYet('renderSls');
}
export function showTop(_opts: SaltOptions): ShowTopResult {
  return notYet('showTop');
}
export function loadPillar(_opts: SaltOptions): Record<string, unknown> {
  return notYet('loadPillar');
}
export function grains(): Record<string, unknown> {
  return notYet('grains');
}
export function renderTemplateFile(_text: string, _file: string, _ctxExtra: Record<string, unknown>, _opts: SaltOptions): string {
  return notYet('renderTemplateFile');
}
export function resolveSaltUrl(_url: string, _opts: SaltOptions, _saltenv: string): string | Diagnostic {
  return notYet('resolveSaltUrl');
}
/** The single dict `state.show_highstate --out json` prints under "local". */
export function showHighstateData(_high: HighData): Record<string, unknown> {
  return notYet('showHighstateData');
}
