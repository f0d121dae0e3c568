// The recovery pages (recovery.ts says the whole): GET /recover, the form that asks for a mail or a
// link's page, and POST /recover, the form's answer. Always a page, never JSON.
import { EMAIL_MAX_LENGTH, ORIGIN_PLACEHOLDER, RECOVERY_LINK_PARAM } from '../build/site-format.ts';
import { requestOrigin } from './client-address.ts';
import { ERRORS } from './errors.ts';
import { fillPage, formError, pageResponse } from './form-pages.ts';
import { hashKey, isWellFormedRecoveryToken } from './keys.ts';
import { REFUSED, type RecoveryOptions, type RecoverySteps } from './recovery-steps.ts';
import { crossSite, isForm, readBody, readFormEmail } from './request-body.ts';
import type { GatewayRequest, GatewayResponse } from './responses.ts';

/** The token of a recovery link's query (`?code=…`), null when there is none. */
function linkToken(url: string): string | null {
  const q = url.indexOf('?');
  if (q < 0) return null;
  const values = new URLSearchParams(url.slice(q + 1)).getAll(RECOVERY_LINK_PARAM);
  return values.length === 0 ? null : values.length === 1 ? values[0]! : '';
}

export function recoveryPages(opts: RecoveryOptions, { accept, useToken }: RecoverySteps) {
  const { store } = opts;
  const requestPage = (
    status: number,
    values: { email: string; error: string },
    head = false,
    extra: string[] = [],
  ) => {
    const r = pageResponse(status, fillPage(opts.site.current, 'recoverRequest', values), extra);
    return head ? { ...r, body: null } : r;
  };

  /** POST /recover: a form with `token` uses a link; one with `email` asks for a mail. Always a page. */
  async function formPost(req: GatewayRequest, now: number): Promise<GatewayResponse> {
    let typed = '';
    try {
      if (crossSite(req)) throw ERRORS.crossSiteForm;
      if (!isForm(req)) throw ERRORS.unsupportedFormType;
      const fields = new URLSearchParams((await readBody(req)).toString('utf8'));
      const tokens = fields.getAll('token');
      if (tokens.length > 0) {
        const r = await useToken(req, now, tokens.length === 1 ? tokens[0]! : '');
        const origin = requestOrigin(req, opts.trustProxy, ORIGIN_PLACEHOLDER);
        const page = fillPage(opts.site.current, 'registered', { api_key: r.key, origin });
        return pageResponse(201, page, [], r.account.id);
      }
      typed = fields.get('email') ?? '';
      const email = readFormEmail(fields);
      await accept(req, now, email);
      return pageResponse(202, fillPage(opts.site.current, 'recoverSent', { email }));
    } catch (err) {
      const e = formError(err);
      return requestPage(
        e.status,
        { email: typed.slice(0, EMAIL_MAX_LENGTH), error: e.message },
        false,
        Object.entries(e.headers).flat(),
      );
    }
  }

  /**
   * A link opened: its button while the token works; a used, expired, superseded or unknown one
   * says which, with the form that asks for a new mail. One read by the token's hash, nothing
   * written: opening a link twice, or a mail scanner's fetch, uses nothing up.
   */
  async function linkPage(token: string, now: number, head: boolean): Promise<GatewayResponse> {
    try {
      const state = isWellFormedRecoveryToken(token) ? await store.recovery.state(hashKey(token), now) : 'unknown';
      if (state !== 'live') return requestPage(400, { email: '', error: REFUSED[state].message }, head);
      const r = pageResponse(200, fillPage(opts.site.current, 'recoverConfirm', { token }));
      return head ? { ...r, body: null } : r;
    } catch (err) {
      const e = formError(err);
      return requestPage(e.status, { email: '', error: e.message }, head, Object.entries(e.headers).flat());
    }
  }

  /** GET and HEAD /recover: the form that asks for a mail, or a link's page; nothing changes. */
  function page(req: GatewayRequest, now: number): GatewayResponse | Promise<GatewayResponse> {
    if (req.method === 'POST') return formPost(req, now);
    const head = req.method === 'HEAD';
    const token = linkToken(req.url);
    if (token === null) return requestPage(200, { email: '', error: '' }, head);
    return linkPage(token, now, head);
  }

  return { page };
}
