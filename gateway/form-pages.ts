// The pages answering the front door's form post: the build's templates
// (site-format.ts PAGE_TEMPLATES) with their slots filled, HTML-escaped. A template is split at its
// slots when its build is loaded (site.ts); a request joins the parts. Never cached, never
// stored: a page may show a key.
import { escapeHtml, PAGE_TEMPLATES, TEMPLATE_SLOT } from '../build/site-format.ts';
import { ERRORS, HttpError } from './errors.ts';
import { response } from './responses.ts';
import { PAGE_HEADERS } from './security-headers.ts';
import type { Site } from './site.ts';
import { StoreUnavailableError, StoreWriteError } from './store/types.ts';

/** A build from before the templates: a plain page, so the form post still gets an answer. */
const plain = (title: string, body: string) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title><h1>${title}</h1>${body}</html>`.split(
    TEMPLATE_SLOT,
  );
const FALLBACK: Record<string, string[]> = {
  [PAGE_TEMPLATES.registered]: plain('Your API key', '<p><code>{{api_key}}</code></p><p>Shown only once.</p>'),
  [PAGE_TEMPLATES.registerError]: plain('Registration refused', '<p>{{error}}</p><p><a href="/">Back</a></p>'),
  [PAGE_TEMPLATES.recoverRequest]: plain(
    'Get a key back',
    '<p>{{error}}</p><form method="post"><input name="email" value="{{email}}"><button>Mail me a link</button></form>',
  ),
  [PAGE_TEMPLATES.recoverConfirm]: plain(
    'Get a new key',
    '<form method="post"><input type="hidden" name="token" value="{{token}}"><button>Get a new key</button></form>',
  ),
  [PAGE_TEMPLATES.recoverSent]: plain('Check your mail', '<p>If an account holds {{email}}, a link is on its way.</p>'),
};

/** What a form's page says when its request failed: a catalogue error (store failures included). */
export function formError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof StoreWriteError) return ERRORS.cannotSaveKeys;
  if (err instanceof StoreUnavailableError) return ERRORS.storeUnavailable;
  throw err;
}

/** The template with each slot's value (HTML-escaped); a slot without a value stays empty. */
export function fillPage(site: Site, name: string, values: Record<string, string>): Buffer {
  const p = site.templates.get(name) ?? FALLBACK[name]!;
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
