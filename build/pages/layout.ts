// The shell shared by the service's pages: plain HTML, one stylesheet and one small script that
// enhances what works without it (the grading page has a module of its own), all served by the
// service itself (no other host: users may sit behind strict networks).
import { fileIn, ROUTES } from '../site-format.ts';
import { FEED_MEDIA_TYPE } from './changes-feed.ts';

/** What a feed reader lists the changes feed as, when a page offers it. */
const FEED_TITLE = 'Grading tables: changes';

import { type Html, html, raw } from './html.ts';

export function page(opts: {
  title: string;
  description: string;
  body: Html | string;
  script?: string;
  /** An ES module of the page's own (the grading page's). */
  module?: string;
  wide?: boolean;
  /** The changes feed, advertised to feed readers (docs/contract.md, The front door). */
  feed?: string;
}): string {
  const body = typeof opts.body === 'string' ? raw(opts.body) : opts.body;
  const feedLink =
    opts.feed && html`<link rel="alternate" type="${FEED_MEDIA_TYPE}" title="${FEED_TITLE}" href="${opts.feed}">\n`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${opts.title}</title>
<meta name="description" content="${opts.description}">
<link rel="icon" href="${fileIn('assets', 'icon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${fileIn('assets', 'site.css')}">
${feedLink}${opts.script && html`<script src="${opts.script}" defer></script>\n`}${
  opts.module && html`<script type="module" src="${opts.module}"></script>\n`
}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><nav aria-label="Site"><a href="${ROUTES.home.path}">Grain grading tables</a>
<a href="${ROUTES.tables.path}">Tables</a>
<a href="${ROUTES.docs.path}">API reference</a> <a href="${ROUTES.gradePage.path}">Grade a sample</a>
<a href="${ROUTES.openapi.path}">OpenAPI</a></nav></header>
<main id="main"${opts.wide ? raw(' class="wide"') : ''}>
${body}
</main>
<footer><p>Data: Canadian Grain Commission, <cite>Official Grain Grading Guide</cite>, primary grade determination
tables. This service is not the Commission's.</p></footer>
</body>
</html>
`.text;
}
