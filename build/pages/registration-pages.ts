// The answers to the front door's form post, as templates the gateway fills: the new key shown
// once, or the form again with the error next to the field (site-format.ts: PAGE_TEMPLATES). The
// same page shell, stylesheet and script as GET /. The SLOTS are the gateway's to fill
// (it escapes what it puts in them), so they go in raw.
import { API_KEY_HEADER, fileIn, GRAIN_LIST_KEY, ROUTES, SLOTS } from '../site-format.ts';
import { html, raw } from './html.ts';
import { page } from './layout.ts';
import { keyResult, registrationForm } from './register-form.ts';

export function renderRegistered(): string {
  const curl = raw(`curl -H '${API_KEY_HEADER}: ${SLOTS.api_key}' '${SLOTS.origin}${GRAIN_LIST_KEY}'`);
  return page({
    title: 'Your API key: grain grading tables',
    description: 'Your new API key, shown once.',
    body: html`<section class="result" aria-labelledby="result-title">
${keyResult(raw(SLOTS.api_key), curl, 'h1')}
<p><a href="${ROUTES.docs.path}">API reference</a> · <a href="${ROUTES.home.path}">Home</a></p>
</section>`,
    script: fileIn('assets', 'page.js'),
  });
}

export function renderRegisterError(): string {
  return page({
    title: 'Get a free API key: grain grading tables',
    description: 'Register an e-mail address for a free API key.',
    body: html`<h1>Get a free API key</h1>
${registrationForm('slots')}
<p><a href="${ROUTES.home.path}">Home</a> · <a href="${ROUTES.docs.path}">API reference</a></p>`,
    script: fileIn('assets', 'page.js'),
  });
}
