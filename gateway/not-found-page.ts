// A browser asking for a page that is not there (docs/contract.md, Errors and HTTP): a page, not
// JSON, that says so and links the front door and the tables, in the pages' own stylesheet. The API's
// paths keep their JSON errors whatever the Accept. Made once, at start.
import { fileIn, ROUTES } from '../build/site-format.ts';
import { pageResponse } from './form-pages.ts';
import type { GatewayRequest, GatewayResponse } from './responses.ts';
import { response } from './responses.ts';

const BODY = Buffer.from(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Page not found: grain grading tables</title>
<link rel="icon" href="${fileIn('assets', 'icon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${fileIn('assets', 'site.css')}">
</head>
<body>
<main id="main">
<h1>Page not found</h1>
<p>There is no page at this address. The grading tables of every class are listed on
<a href="${ROUTES.tables.path}">the tables page</a>; what the service is, and how to get an API key, is on
<a href="${ROUTES.home.path}">the front page</a>.</p>
</main>
</body>
</html>
`);
const PAGE = pageResponse(404, BODY);
const PAGE_HEAD = response(404, PAGE.headers, null);

/** Does a request for an unknown path come from a browser asking for a page (Accept names HTML), off the API? */
export function wantsPage(req: GatewayRequest): boolean {
  const accept = req.headers.accept;
  return typeof accept === 'string' && accept.includes('text/html') && !req.url.startsWith('/api/');
}

export const notFoundPage = (head: boolean): GatewayResponse => (head ? PAGE_HEAD : PAGE);
