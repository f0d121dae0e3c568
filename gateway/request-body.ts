// The small bodies the gateway reads (docs/contract.md, Keys and registration; Getting a key back):
// at most REGISTRATION_BODY_BYTES, as JSON for the API or as a form from the service's own pages.
// Each reader refuses with a catalogue error and changes nothing.
import { EMAIL_MAX_LENGTH, JSON_MEDIA_TYPE, REGISTRATION_BODY_BYTES } from '../build/site-format.ts';
import { ERRORS, type HttpError } from './errors.ts';
import type { GatewayRequest } from './responses.ts';

const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** A Content-Type's media type, lower-cased, without its parameters. */
const mediaType = (header: string | string[] | undefined) =>
  typeof header === 'string' ? header.split(';', 1)[0]!.trim().toLowerCase() : '';

export const isJson = (req: GatewayRequest) => mediaType(req.headers['content-type']) === JSON_MEDIA_TYPE;
export const isForm = (req: GatewayRequest) =>
  mediaType(req.headers['content-type']) === 'application/x-www-form-urlencoded';

/** At most REGISTRATION_BODY_BYTES: refused at once when Content-Length says more, else while it is read (413). */
export function readBody(req: GatewayRequest): Promise<Buffer> {
  const length = req.headers['content-length'];
  if (typeof length === 'string' && Number(length) > REGISTRATION_BODY_BYTES) throw ERRORS.tooLarge;
  return req.readBody(REGISTRATION_BODY_BYTES);
}

/** A JSON object's string field `name`, or `error` for anything else. */
export function readJsonString(body: Buffer, name: string, error: HttpError): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw error;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw error;
  const value = (parsed as Record<string, unknown>)[name];
  if (typeof value !== 'string') throw error;
  return value;
}

/** `{"email": "…"}` → the address, trimmed and lower-cased. */
export const readEmail = (body: Buffer) => normalEmail(readJsonString(body, 'email', ERRORS.badJson));

/** The form's fields: exactly one `email` (other fields are ignored). */
export function readFormEmail(fields: URLSearchParams): string {
  const all = fields.getAll('email');
  if (all.length !== 1) throw ERRORS.badForm;
  return normalEmail(all[0]!);
}

function normalEmail(email: string): string {
  const normal = email.trim().toLowerCase();
  const dots = normal.includes('..') || normal.startsWith('.') || normal.includes('.@');
  if (normal.length > EMAIL_MAX_LENGTH || !EMAIL.test(normal) || dots) throw ERRORS.badEmail;
  return normal;
}

/**
 * A form from another site is refused: its page cannot read the answer, but would spend the
 * visitor's address's registrations. Browsers say where a form came from (Sec-Fetch-Site, Origin).
 */
export function crossSite(req: GatewayRequest): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || origin === 'null') return origin === 'null';
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}
