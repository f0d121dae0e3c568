// The registration form, the same on GET / and on the page answering a refused form post. It
// posts (never GETs: the address must not enter a URL) as a plain form, so it works without
// JavaScript, to a route of its own; page.js enhances it in place, posting JSON to the API's route
// (both paths from the route table, and the key's header, in the form's attributes). `slots`
// writes the gateway's slots instead of values (the error page's template).
import { API_KEY_HEADER, EMAIL_MAX_LENGTH, LIVE_KEYS_PER_ACCOUNT, ROUTES, SLOTS } from '../site-format.ts';
import { type Html, html, raw } from './html.ts';

export function registrationForm(values: { email: string; error: string } | 'slots' = { email: '', error: '' }) {
  const email = values === 'slots' ? raw(SLOTS.email) : values.email;
  const error = values === 'slots' ? raw(SLOTS.error) : values.error;
  const invalid = values === 'slots' || values.error ? raw(' aria-invalid="true"') : '';
  return html`<form id="register-form" method="post" action="${ROUTES.registerForm.path}"
  data-api="${ROUTES.register.path}" data-example="${ROUTES.grains.path}" data-key-header="${API_KEY_HEADER}"
  novalidate>
  <label for="email">E-mail address</label>
  <div class="field">
    <input id="email" name="email" type="email" autocomplete="email" required aria-describedby="email-error email-hint"
      maxlength="${EMAIL_MAX_LENGTH}" value="${email}"${invalid}>
    <button type="submit">Get a key</button>
  </div>
  <p id="email-hint" class="hint">We store the address and a hash of your key, nothing else.</p>
  <p id="email-error" class="error" role="alert" aria-live="assertive">${error}</p>
</form>`;
}

/** The key, once, with its copy button and the next command (the template's slots, or JS fills them). */
export function keyResult(key: string | Html, curl: string | Html, heading: 'h1' | 'h3') {
  const h = raw(heading);
  return html`<${h} id="result-title" tabindex="-1">Your API key</${h}>
<p class="warning"><strong>Copy it now: it is shown only once.</strong> We keep only a hash of it and cannot show it
again.</p>
<div class="copyable"><code id="api-key" class="key">${key}</code>
<button type="button" class="copy" data-copy="api-key" hidden>Copy key</button></div>
<p id="copy-status" class="hint" aria-live="polite"></p>
<p>If you lose it, register again for a new one (an address holds up to ${LIVE_KEYS_PER_ACCOUNT} live keys), or get a
key back by mail on the <a href="${ROUTES.recoverPage.path}">recovery page</a>, which replaces all of them.</p>
<p>Next, fetch the list of classes with it (keep the key out of client-side code and public repositories, for instance
in an environment variable):</p>
<div class="copyable"><pre tabindex="0"><code id="curl-line">${curl}</code></pre>
<button type="button" class="copy" data-copy="curl-line" hidden>Copy command</button></div>`;
}
