// The steps of getting a key back (recovery.ts says the whole): a request counted against both
// limits and answered before the store is asked, the link then kept and mailed (or, for an address no
// account holds, the same work rehearsed), and a token used for one new key.
import { RECOVERY_LINK_PARAM, RECOVERY_TOKEN_MINUTES, ROUTES } from '../build/site-format.ts';
import { clientAddress, type TrustProxy } from './client-address.ts';
import { ERRORS, type HttpError, refuseIfLimited } from './errors.ts';
import { digestHex, generateKey, generateRecoveryToken, hashKey, isWellFormedRecoveryToken } from './keys.ts';
import type { Mailer, MailMessage } from './mail.ts';
import type { GatewayRequest } from './responses.ts';
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

export const REFUSED: Record<Exclude<Recovered, object>, HttpError> = {
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

export function recoverySteps(opts: RecoveryOptions) {
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

  return { accept, useToken };
}

export type RecoverySteps = ReturnType<typeof recoverySteps>;
