// Getting a key back (docs/contract.md, Getting a key back): whoever reads the mailbox of an
// account's address can always get a key, and nobody else can lock it out.
// - POST /api/keys/recover {email} answers 202, the same status, headers and body for every
//   well-formed address, known or not; the store is asked and the mail sent only after the answer,
//   and an address no account holds causes the same work then (a decoy token row written, a mail
//   composed and written nowhere it can be read), so that not even the request sent right behind
//   it waits longer for a known one (docs/contract.md, Getting a key back).
// - The mail links to the recovery page with a single-use token (only its SHA-256 is stored), good
//   for RECOVERY_TOKEN_MINUTES and superseded by a newer one. Opening the page changes nothing
//   (mail scanners fetch links), and a dead link's page says why; its button, or
//   POST /api/keys/recover/confirm {token}, revokes every live key of the account and issues one
//   new key.
// - Limits: RECOVERY_MAILS_PER_HOUR per e-mail address, REGISTER_LIMIT_PER_HOUR per client address;
//   using a token counts as a registration attempt.
import {
  EMAIL_MAX_LENGTH,
  ORIGIN_PLACEHOLDER,
  RECOVERY_ACCEPTED_MESSAGE,
  RECOVERY_LINK_PARAM,
  RECOVERY_TOKEN_MINUTES,
  ROUTES,
  SCHEMA_VERSION,
} from '../build/site-format.ts';
import { clientAddress, requestOrigin, type TrustProxy } from './client-address.ts';
import { ERRORS, type HttpError, refuseIfLimited } from './errors.ts';
import { fillPage, formError, pageResponse } from './form-pages.ts';
import { digestHex, generateKey, generateRecoveryToken, hashKey, isWellFormedRecoveryToken } from './keys.ts';
import type { Mailer, MailMessage } from './mail.ts';
import { crossSite, isForm, isJson, readBody, readEmail, readFormEmail, readJsonString } from './request-body.ts';
import { type GatewayRequest, type GatewayResponse, jsonResponse } from './responses.ts';
import type { SiteHolder } from './site-watch.ts';
import type { Recovered, Store } from './store/types.ts';

export interface RecoveryOptions {
  store: Store;
  trustProxy: TrustProxy;
  site: SiteHolder;
  mailer: Mailer;
  /**
   * The origin the mailed link names: PUBLIC_URL, else the gateway's own address; never a
   * request's Host, which a stranger could point at a host of theirs to catch the token.
   */
  linkOrigin: () => string;
  log: (fields: Record<string, unknown>) => void;
}

const TOKEN_MS = RECOVERY_TOKEN_MINUTES * 60_000;

const REFUSED: Record<Exclude<Recovered, object>, HttpError> = {
  unknown: ERRORS.recoveryTokenUnknown,
  used: ERRORS.recoveryTokenUsed,
  expired: ERRORS.recoveryTokenExpired,
  superseded: ERRORS.recoveryTokenSuperseded,
};

function recoveryMail(email: string, link: string, origin: string): MailMessage {
  // Lines under 76 characters, so the mail goes as plain 7-bit text a person can read in the .eml
  const text = [
    'Someone, we hope you, asked for a new API key for',
    `${email} at ${origin}.`,
    '',
    `To get one, open this link within ${RECOVERY_TOKEN_MINUTES} minutes and press the button`,
    'on the page:',
    '',
    link,
    '',
    'Pressing it revokes every key of this address and shows one new key,',
    'once. Opening the link alone changes nothing, and it works once; a',
    'newer request for a link replaces this one.',
    '',
    'If you did not ask for this, ignore this mail: your keys keep working.',
    '',
  ].join('\n');
  return { to: email, subject: 'Your grain grading tables API key: recovery link', text, purpose: 'recovery' };
}

/** The token of a recovery link's query (`?code=…`), null when there is none. */
function linkToken(url: string): string | null {
  const q = url.indexOf('?');
  if (q < 0) return null;
  const values = new URLSearchParams(url.slice(q + 1)).getAll(RECOVERY_LINK_PARAM);
  return values.length === 0 ? null : values.length === 1 ? values[0]! : '';
}

export function createRecovery(opts: RecoveryOptions) {
  const { store } = opts;
  const address = (req: GatewayRequest) =>
    clientAddress(req.remoteAddress, req.headers['x-forwarded-for'], opts.trustProxy);

  /**
   * Keeps a token and mails its link when an account holds the address; otherwise the same steps
   * with a decoy token and a rehearsed mail (to the address masked: an unknown one is kept nowhere).
   * Run after the answer.
   */
  async function mailLink(email: string, now: number) {
    const token = generateRecoveryToken();
    let known: boolean;
    try {
      known = await store.recovery.issue(email, hashKey(token), now, now + TOKEN_MS);
    } catch (err) {
      opts.log({ event: 'recovery_not_saved', error: (err as Error).message });
      return;
    }
    const origin = opts.linkOrigin();
    const to = known ? email : email.replace(/[^@.]/g, 'x');
    const mail = recoveryMail(to, `${origin}${ROUTES.recoverPage.path}?${RECOVERY_LINK_PARAM}=${token}`, origin);
    if (known) opts.mailer.send(mail);
    else await opts.mailer.rehearse(mail);
  }

  /** Counts the request against both limits, then answers; what the store knows shows in no answer. */
  async function accept(req: GatewayRequest, now: number, email: string) {
    refuseIfLimited(await store.recoveryAddresses.hit(address(req), now), ERRORS.recoveryAddressLimited, now);
    // the address is counted by its hash: an unknown one is kept in no plain form
    const subject = digestHex(hashKey(email)).slice(0, 32);
    refuseIfLimited(await store.recoveryMails.hit(subject, now), ERRORS.recoveryMailsLimited, now);
    setImmediate(() => void mailLink(email, now));
  }

  /** Uses a token: the new key and its account, or a catalogue error (nothing changed). */
  async function useToken(req: GatewayRequest, now: number, token: string) {
    refuseIfLimited(await store.registrationAttempts.hit(address(req), now), ERRORS.registerAttemptsLimited, now);
    if (!isWellFormedRecoveryToken(token)) throw ERRORS.recoveryTokenUnknown;
    const key = generateKey();
    const r = await store.recovery.use(hashKey(token), hashKey(key), now);
    if (typeof r === 'string') throw REFUSED[r];
    return { key, account: r.account };
  }

  /** POST /api/keys/recover: errors are thrown for the app to answer as JSON. */
  async function request(req: GatewayRequest, now: number): Promise<GatewayResponse> {
    if (!isJson(req)) throw ERRORS.unsupportedType;
    const email = readEmail(await readBody(req));
    await accept(req, now, email);
    return jsonResponse(
      202,
      Buffer.from(JSON.stringify({ email, message: RECOVERY_ACCEPTED_MESSAGE, schema_version: SCHEMA_VERSION })),
    );
  }

  /** POST /api/keys/recover/confirm: 201 with the new key, as registration answers. */
  async function confirm(req: GatewayRequest, now: number): Promise<GatewayResponse> {
    if (!isJson(req)) throw ERRORS.unsupportedType;
    const token = readJsonString(await readBody(req), 'token', ERRORS.badRecoveryJson);
    const r = await useToken(req, now, token);
    const body = { api_key: r.key, email: r.account.email, schema_version: SCHEMA_VERSION };
    return jsonResponse(201, Buffer.from(JSON.stringify(body)), { account: r.account.id });
  }

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

  return { request, confirm, page };
}
