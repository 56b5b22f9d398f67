/** `cairn explain CODE`: one entry of the diagnostic catalogue. */
import { CATALOGUE, isCode } from '../core/codes.js';
import { writeErr, writeOut } from './stdio.js';

export function explain(code: string): number {
  const wanted = code.trim();
  const match = isCode(wanted) ? wanted : Object.keys(CATALOGUE).find((c) => c.toLowerCase() === wanted.toLowerCase());
  if (match === undefined || !isCode(match)) {
    writeErr(`cairn: unknown diagnostic code ${JSON.stringify(code)} (docs/diagnostics.md lists them all)\n`);
    return 1;
  }
  const e = CATALOGUE[match];
  writeOut(`${match} (${e.area}): ${e.title}\n\n${e.help}\n`);
  return 0;
}

/** docs/diagnostics.md, generated from the catalogue. */
export function catalogueMarkdown(): string {
  const lines = [
    '# Diagnostics',
    '',
    'Every code cairn reports, generated from the catalogue in `src/core/codes.ts` (`npm run docs` rewrites this page).',
    'A diagnostic is printed as `file:line:col: CODE message` with the source line and a caret under the offending text;',
    '`cairn explain CODE` prints one entry. The Inmanta front end reports the real compiler\'s exception names as codes.',
    '',
  ];
  let area = '';
  for (const [code, e] of Object.entries(CATALOGUE)) {
    if (e.area !== area) {
      area = e.area;
      lines.push(`## ${area}`, '', '| code | meaning | what to do |', '|---|---|---|');
    }
    lines.push(`| ${code} | ${e.title} | ${e.help.replace(/\|/g, '\\|')} |`);
    const next = Object.values(CATALOGUE)[Object.keys(CATALOGUE).indexOf(code) + 1];
    if (!next || next.area !== area) lines.push('');
  }
  return `${lines.join('\n')}`;
}
