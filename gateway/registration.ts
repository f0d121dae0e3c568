// POST /api/register (docs/contract.md, Keys and registration): per-address limit, then a JSON
// body of at most REGISTRATION_BODY_BYTES, an object with a string `email`, trimmed and
// lower-cased, at most EMAIL_MAX_LENGTH characters, a pragmatic local@domain.tld; the key is
// answered only once the store holds its hash durably. An account holds at most
// LIVE_KEYS_PER_ACCOUNT live keys; registering again issues another and revokes nothing.
// The front door's form posts the same as application/x-www-form-urlencoded to a route of its own
// (site-format.ts, registerForm), under the same rules, and is answered with a page: the key once,
// or the form again with the error. The API's operation stays JSON only.
import { API_KEY_FIELD, EMAIL_MAX_LENGTH, ORIGIN_PLACEHOLDER, SCHEMA_VERSION } from '../build/site-format.ts';
import { clientAddress, requestOrigin, type TrustProxy } from './client-address.ts';
import { ERRORS, type HttpError, refuseIfLimited } from './errors.ts';
import { fillPage, formError, pageResponse } from './form-pages.ts';
import { generateKey, hashKey, isRepeatedKey, isWellFormedKey } from './keys.ts';
import type { Decision } from './rate-limit.ts';
import { crossSite, isForm, isJson, readBody, readEmail, readFormEmail } from './request-body.ts';
import { type GatewayRequest, type GatewayResponse, jsonResponse } from './responses.ts';
import type { SiteHolder } from './site-watch.ts';
import type { Store } from './store/types.ts';

/** The registration handler; expected failures are thrown as catalogue errors for the app to answer. */
export function createRegistration(opts: { store: Store; trustProxy: TrustProxy; site: SiteHolder }) {
  const { store } = opts;
  /** Issues a key for the address `email` reads from the body, after the per-address limit. */
  async function issue(req: GatewayRequest, now: number, email: () => Promise<string>) {
    const address = clientAddress(req.remoteAddress, req.headers['x-forwarded-for'], opts.trustProxy);
    // Issued keys count against REGISTER_LIMIT_PER_HOUR; every attempt against a looser bound
    // (rate-limit.ts), so a mistyped address or body costs nothing but an attempt.
    const limited = (d: Decision, error: HttpError) => refuseIfLimited(d, error, now);
    limited(await store.registrationAttempts.hit(address, now), ERRORS.registerAttemptsLimited);
    // A live key of the same account sent with the registration is replaced by the new one (a
    // rotation); any other key sent is ignored: registering revokes nothing else. Two are refused.
    const presented = req.headers[API_KEY_FIELD];
    if (presented !== undefined && isRepeatedKey(presented)) throw ERRORS.repeatedKey;
    limited(await store.registrations.peek(address, now), ERRORS.registerLimited);
    const address_ = await email();
    limited(await store.registrations.hit(address, now), ERRORS.registerLimited);
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
    if (!isJson(req)) throw ERRORS.unsupportedType;
    const r = await issue(req, now, async () => readEmail(await readBody(req)));
    const body = Buffer.from(JSON.stringify({ api_key: r.key, email: r.email, schema_version: SCHEMA_VERSION }));
    return jsonResponse(201, body, { account: r.account.id });
  }

  /** The form's answer is a page whatever happens: the key, or the form again with the error. */
  async function viaForm(req: GatewayRequest, now: number): Promise<GatewayResponse> {
    let typed = '';
    try {
      if (crossSite(req)) throw ERRORS.crossSiteForm;
      if (!isForm(req)) throw ERRORS.unsupportedFormType;
      const r = await issue(req, now, async () => {
        const fields = new URLSearchParams((await readBody(req)).toString('utf8'));
        typed = fields.get('email') ?? '';
        return readFormEmail(fields);
      });
      const page = fillPage(opts.site.current, 'registered', {
        api_key: r.key,
        origin: requestOrigin(req, opts.trustProxy, ORIGIN_PLACEHOLDER),
      });
      return pageResponse(201, page, [], r.account.id);
    } catch (err) {
      const e = formError(err);
      const page = fillPage(opts.site.current, 'registerError', {
        email: typed.slice(0, EMAIL_MAX_LENGTH),
        error: e.message,
      });
      return pageResponse(e.status, page, Object.entries(e.headers).flat());
    }
  }

  return { register: viaJson, registerForm: viaForm };
}
