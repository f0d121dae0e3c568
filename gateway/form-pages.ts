// The pages answering the front door's form post (issue 19): the build's templates
// (site-format.ts PAGE_TEMPLATES) with their slots filled, HTML-escaped. A template is split at its
// slots once per build; a request joins the parts. Never cached, never stored: a page may show a key.
import { PAGE_TEMPLATES, TEMPLATE_SLOT } from '../build/site-format.ts';
import { response } from './responses.ts';
import { PAGE_HEADERS, type Site } from './site.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A build from before the templates: a plain page, so the form post still gets an answer. */
const FALLBACK: Record<string, string> = {
  [PAGE_TEMPLATES.registered]:
    '<!doctype html><html lang="en"><meta charset="utf-8"><title>Your API key</title><h1>Your API key</h1><p><code>{{api_key}}</code></p><p>Shown only once.</p></html>',
  [PAGE_TEMPLATES.registerError]:
    '<!doctype html><html lang="en"><meta charset="utf-8"><title>Registration refused</title><h1>Registration refused</h1><p>{{error}}</p><p><a href="/">Back</a></p></html>',
};

/** Text and slot names alternating: [text, slot, text, …, text]. */
const split = new WeakMap<Site, Map<string, string[]>>();
function parts(site: Site, name: string): string[] {
  let bySite = split.get(site);
  if (!bySite) {
    bySite = new Map();
    split.set(site, bySite);
  }
  let p = bySite.get(name);
  if (!p) {
    p = (site.templates.get(name) ?? FALLBACK[name]!).split(TEMPLATE_SLOT);
    bySite.set(name, p);
  }
  return p;
}

/** The template with each slot's value (HTML-escaped); a slot without a value stays empty. */
export function fillPage(site: Site, name: string, values: Record<string, string>): Buffer {
  const p = parts(site, name);
  let html = '';
  for (let i = 0; i < p.length; i++) html += i % 2 === 0 ? p[i] : escapeHtml(values[p[i]!] ?? '');
  return Buffer.from(html);
}

/** A page answer: never stored by any cache (it may hold a key), with the pages' own headers. */
export function pageResponse(
  status: number,
  body: Buffer,
  extra: readonly string[] = [],
  account: string | null = null,
) {
  const headers = [
    'Content-Type',
    'text/html; charset=utf-8',
    'Content-Length',
    String(body.length),
    'Cache-Control',
    'no-store',
    ...PAGE_HEADERS,
    ...extra,
  ];
  return response(status, headers, body, account);
}
