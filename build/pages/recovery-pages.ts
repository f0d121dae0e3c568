// The recovery pages (docs/contract.md, Getting a key back), as templates the gateway fills
// (site-format.ts PAGE_TEMPLATES): the form that asks for a mail, the page a mail's link opens (a
// button: opening it changes nothing), and the answer to the form. Plain forms: no JavaScript
// needed. The SLOTS are the gateway's to fill (it escapes what it puts in them).
import {
  EMAIL_MAX_LENGTH,
  fileIn,
  LIVE_KEYS_PER_ACCOUNT,
  RECOVERY_TOKEN_MINUTES,
  ROUTES,
  SLOTS,
} from '../site-format.ts';
import { html, raw } from './html.ts';
import { page } from './layout.ts';

const links = html`<p><a href="${ROUTES.home.path}">Home</a> · <a href="${ROUTES.docs.path}">API reference</a></p>`;

/**
 * "Lost your key?": an e-mail address in, a mail with a link out. `slots` writes the gateway's
 * slots (the recovery page's template); the front door shows it empty.
 */
export function recoveryForm(values: { email: string; error: string } | 'slots' = { email: '', error: '' }) {
  const email = values === 'slots' ? raw(SLOTS.email) : values.email;
  const error = values === 'slots' ? raw(SLOTS.error) : values.error;
  return html`<form id="recover-form" method="post" action="${ROUTES.recoverPage.path}" novalidate>
  <label for="recover-email">The account's e-mail</label>
  <div class="field">
    <input id="recover-email" name="email" type="email" autocomplete="email" required
      aria-describedby="recover-error recover-hint" maxlength="${EMAIL_MAX_LENGTH}" value="${email}">
    <button type="submit">Mail me a link</button>
  </div>
  <p id="recover-hint" class="hint">We mail the address a link, good for ${RECOVERY_TOKEN_MINUTES} minutes, that
  replaces every key of the account with one new key. Nothing changes until you use it.</p>
  <p id="recover-error" class="error" role="alert" aria-live="assertive">${error}</p>
</form>`;
}

export function renderRecoverRequest(): string {
  return page({
    title: 'Get a key back: grain grading tables',
    description: 'Lost your API key? Get a link by mail that replaces it.',
    body: html`<h1>Get a key back</h1>
<p>Lost your keys, or holding ${LIVE_KEYS_PER_ACCOUNT} and unable to register another? Whoever reads the mailbox of
an account's address can always get a working key back.</p>
${recoveryForm('slots')}
${links}`,
    script: fileIn('assets', 'page.js'),
  });
}

export function renderRecoverConfirm(): string {
  return page({
    title: 'Get a new key: grain grading tables',
    description: 'Use your recovery link: revoke the keys of the account and get one new key.',
    body: html`<h1>Get a new key</h1>
<p>Pressing the button <strong>revokes every key of this account</strong> (programs that use them get 401 from
then on) and shows one new key, once. The link works once.</p>
<form id="recover-confirm" method="post" action="${ROUTES.recoverPage.path}">
<input type="hidden" name="token" value="${raw(SLOTS.token)}">
<button type="submit">Revoke my keys and show a new one</button>
</form>
<p class="hint">If you did not ask for this link, close this page: nothing has changed.</p>
${links}`,
    script: fileIn('assets', 'page.js'),
  });
}

export function renderRecoverSent(): string {
  return page({
    title: 'Check your mail: grain grading tables',
    description: 'A recovery link is on its way.',
    body: html`<h1 tabindex="-1">Check your mail</h1>
<p>If an account holds <strong>${raw(SLOTS.email)}</strong>, a mail with a link is on its way. The link works once,
for ${RECOVERY_TOKEN_MINUTES} minutes; asking again sends a new one and the older one stops working.</p>
<p class="hint">No mail? Look in the spam folder, and check the address: we send nothing to an address no account
holds, and say the same either way so that nobody can learn which addresses have accounts.</p>
${links}`,
    script: fileIn('assets', 'page.js'),
  });
}
