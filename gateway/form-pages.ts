// The pages answering the front door's form post: the build's templates
// (site-format.ts PAGE_TEMPLATES) with their slots filled, HTML-escaped. A template is split at its
// slots when its build is loaded (site.ts); a request joins the parts. Never cached, never
// stored: a page may show a key.
import {
  BODY_TYPES,
  fillSlots,
  PAGE_TEMPLATES,
  SLOTS,
  TEMPLATE_SLOT,
  type TemplateName,
  type TemplateValues,
} from '../build/site-format.ts';
import { HttpError } from './errors.ts';
import { response } from './responses.ts';
import { PAGE_HEADERS } from './security-headers.ts';
import type { Site } from './site.ts';
import { storeErrorOf } from './store-errors.ts';

/** A build from before the templates: a plain page, so the form post still gets an answer. */
const plain = (title: string, body: string) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title><h1>${title}</h1>${body}</html>`.split(
    TEMPLATE_SLOT,
  );
const { api_key, email, error, token } = SLOTS;
const FALLBACK: Record<TemplateName, string[]> = {
  registered: plain('Your API key', `<p><code>${api_key}</code></p><p>Shown only once.</p>`),
  registerError: plain('Registration refused', `<p>${error}</p><p><a href="/">Back</a></p>`),
  recoverRequest: plain(
    'Get a key back',
    `<p>${error}</p><form method="post"><input name="email" value="${email}"><button>Mail me a link</button></form>`,
  ),
  recoverConfirm: plain(
    'Get a new key',
    `<form method="post"><input type="hidden" name="token" value="${token}"><button>Get a new key</button></form>`,
  ),
  recoverSent: plain('Check your mail', `<p>If an account holds ${email}, a link is on its way.</p>`),
};

/** What a form's page says when its request failed: a catalogue error (store failures included). */
export function formError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const stored = storeErrorOf(err);
  if (stored) return stored;
  throw err;
}

/** The template `name` with each of its slots filled (TEMPLATE_SLOTS: the type asks for every one). */
export function fillPage<T extends TemplateName>(site: Site, name: T, values: TemplateValues<T>): Buffer {
  return Buffer.from(fillSlots(site.templates.get(PAGE_TEMPLATES[name]) ?? FALLBACK[name], values));
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
    BODY_TYPES.html,
    'Content-Length',
    String(body.length),
    'Cache-Control',
    'no-store',
    ...PAGE_HEADERS,
    ...extra,
  ];
  return response(status, headers, body, account);
}
