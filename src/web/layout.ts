/** The page around every view: head, navigation, assets (all served by the dashboard itself). */
import { type Html, html } from './html.js';

export type Section = 'runs' | 'drift' | 'trends' | '';

export function page(title: string, section: Section, body: Html, options: { scripts?: readonly string[]; refresh?: number } = {}): string {
  const nav = (name: Section, label: string, href: string): Html => html`<a href="${href}"${name === section ? html` aria-current="page"` : ''}>${label}</a>`;
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · cairn</title>
<link rel="stylesheet" href="/assets/app.css">
${section === 'trends' ? html`<link rel="stylesheet" href="/assets/uplot.css">` : ''}
${options.refresh ? html`<noscript><meta http-equiv="refresh" content="${options.refresh}"></noscript>` : ''}
${(options.scripts ?? []).map((s) => html`<script src="/assets/${s}" defer></script>`)}
</head>
<body>
<header><span class="brand">cairn</span><nav>${nav('runs', 'Runs', '/runs')}${nav('drift', 'Drift', '/drift')}${nav('trends', 'Trends', '/trends')}</nav></header>
<main>
${body}
</main>
</body>
</html>`}`;
}

export function notFound(what: string): string {
  return page('Not found', '', html`<h1>Not found</h1><p class="empty">${what}</p><p><a href="/runs">All runs</a></p>`);
}

export function unauthorized(): string {
  return page('Token needed', '', html`<h1>401: an access token is needed</h1><p>Open the dashboard with <code>?token=…</code> (the token given to <code>cairn serve</code>), or send it as <code>Authorization: Bearer …</code>.</p>`);
}
