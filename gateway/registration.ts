// POST /api/register (docs/contract.md, Keys and registration): per-address limit, then a JSON
// body of at most REGISTRATION_BODY_BYTES, an object with a string `email`, trimmed and
// lower-cased, at most EMAIL_MAX_LENGTH characters, a pragmatic local@domain.tld; the key is
// answered only once the store holds its hash durably. An account holds at most
// LIVE_KEYS_PER_ACCOUNT live keys; registering again issues another and revokes nothing.
// The front door's form posts the same as application/x-www-form-urlencoded to a route of its own
// (site-format.ts, registerForm), under the same rules, and is answered with a page: the key once,
// or the form again with the error. The API's operation stays JSON only.
import { EMAIL_MAX_LENGTH, ORIGIN_PLACEHOLDER, PAGE_TEMPLATES, REGISTRATION_BODY_BYTES } from '../build/site-format.ts';
import { clientAddress, requestOrigin, type TrustProxy } from './client-address.ts';
import { ERRORS, HttpError } from './errors.ts';
import { fillPage, pageResponse } from './form-pages.ts';
import { generateKey, hashKey, isWellFormedKey } from './keys.ts';
import { type Decision, retryAfterSeconds } from './rate-limit.ts';
import { type GatewayRequest, type GatewayResponse, jsonResponse } from './responses.ts';
import type { SiteHolder } from './site-watch.ts';
import { type Store, StoreUnavailableError, StoreWriteError } from './store/types.ts';

const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const mediaType = (header: string | string[] | undefined) =>
  typeof header === 'string' ? header.split(';', 1)[0]!.trim().toLowerCase() : '';

export const isJsonContentType = (header: string | undefined) => mediaType(header) === 'application/json';

export function readEmail(body: Buffer): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw ERRORS.badJson;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw ERRORS.badJson;
  const email = (parsed as { email?: unknown }).email;
  if (typeof email !== 'string') throw ERRORS.badJson;
  return normalEmail(email);
}

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
function crossSite(req: GatewayRequest): boolean {
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

/** At most REGISTRATION_BODY_BYTES: refused at once when Content-Length says more, else while it is read (413). */
function readBody(req: GatewayRequest): Promise<Buffer> {
  const length = req.headers['content-length'];
  if (typeof length === 'string' && Number(length) > REGISTRATION_BODY_BYTES) throw ERRORS.tooLarge;
  return req.readBody(REGISTRATION_BODY_BYTES);
}

/** The registration handler; expected failures are thrown as catalogue errors for the app to answer. */
export function createRegistration(opts: { store: Store; trustProxy: TrustProxy; site: SiteHolder }) {
  const { store } = opts;
  /** Issues a key for the address `email` reads from the body, after the per-address limit. */
  async function issue(req: GatewayRequest, now: number, email: () => Promise<string>) {
    const address = clientAddress(req.remoteAddress, req.headers['x-forwarded-for'], opts.trustProxy);
    // Issued keys count against REGISTER_LIMIT_PER_HOUR; every attempt against a looser bound
    // (rate-limit.ts), so a mistyped address or body costs nothing but an attempt.
    const limited = (d: Decision, error: HttpError) => {
      if (!d.allowed) throw error.withHeaders({ 'Retry-After': String(retryAfterSeconds(d, now)) });
    };
    limited(await store.registrationAttempts.hit(address, now), ERRORS.registerAttemptsLimited);
    limited(await store.registrations.peek(address, now), ERRORS.registerLimited);
    const length = req.headers['content-length'];
    if (typeof length === 'string' && Number(length) > REGISTRATION_BODY_BYTES) throw ERRORS.tooLarge;
    const address_ = await email();
    limited(await store.registrations.hit(address, now), ERRORS.registerLimited);
    // A live key of the same account sent with the registration is replaced by the new one (a
    // rotation); any other key sent is ignored: registering revokes nothing else.
    const presented = req.headers['x-api-key'];
    const rotate = typeof presented === 'string' && isWellFormedKey(presented) ? hashKey(presented) : null;
    const key = generateKey();
    const account = await store.register(address_, hashKey(key), now, rotate);
    if (account === 'too_many_keys') throw ERRORS.tooManyKeys;
    return { key, email: address_, account };
  }

  /** Errors are thrown: the app answers them as JSON (app.ts). */
  async function viaJson(req: GatewayRequest, now: number): Promise<GatewayResponse> {
    // Refused before it counts as an attempt: another site's page can post a body that is not JSON
    // (text/plain needs no CORS preflight) and must not spend its visitors' address's attempts
    if (mediaType(req.headers['content-type']) !== 'application/json') throw ERRORS.unsupportedType;
    const r = await issue(req, now, async () => readEmail(await readBody(req)));
    const body = Buffer.from(JSON.stringify({ api_key: r.key, email: r.email, schema_version: '1.0' }));
    return jsonResponse(201, body, { account: r.account.id });
  }

  /** The form's answer is a page whatever happens: the key, or the form again with the error. */
  async function viaForm(req: GatewayRequest, now: number): Promise<GatewayResponse> {
    let typed = '';
    try {
      if (crossSite(req)) throw ERRORS.crossSiteForm;
      if (mediaType(req.headers['content-type']) !== 'application/x-www-form-urlencoded')
        throw ERRORS.unsupportedFormType;
      const r = await issue(req, now, async () => {
        const fields = new URLSearchParams((await readBody(req)).toString('utf8'));
        typed = fields.get('email') ?? '';
        return readFormEmail(fields);
      });
      const page = fillPage(opts.site.current, PAGE_TEMPLATES.registered, {
        api_key: r.key,
        origin: requestOrigin(req, opts.trustProxy, ORIGIN_PLACEHOLDER),
      });
      return pageResponse(201, page, [], r.account.id);
    } catch (err) {
      const e =
        err instanceof StoreWriteError
          ? ERRORS.cannotSaveKeys
          : err instanceof StoreUnavailableError
            ? ERRORS.storeUnavailable
            : err;
      if (!(e instanceof HttpError)) throw err;
      const page = fillPage(opts.site.current, PAGE_TEMPLATES.registerError, {
        email: typed.slice(0, EMAIL_MAX_LENGTH),
        error: e.message,
      });
      return pageResponse(e.status, page, Object.entries(e.headers).flat());
    }
  }

  return { register: viaJson, registerForm: viaForm };
}
