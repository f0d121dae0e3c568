// The front door's registration without JavaScript. The form posts url-encoded to a route of
// its own (/register, outside the API) and is answered with a page: the key once (with the next command, built from the
// origin asked), or the form again with the error next to the field. Asked of the gateway's app (helpers/inject.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MESSAGES } from '../gateway/errors.ts';
import { keysIssuedSoFar } from './helpers/gateway.ts';
import { inject, injectGet, startTestApp, type TestApp } from './helpers/inject.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };
/** The origin of the Host the requests name (inject's, unless told). */
const ORIGIN = 'http://localhost';
const post = (t: TestApp, body: string, headers: Record<string, string> = {}) =>
  inject(t.app, { url: '/register', method: 'POST', headers: { ...FORM, ...headers }, body });

describe('registration by form post', () => {
  let t: TestApp;
  let tight: TestApp;
  before(async () => {
    t = await startTestApp({ REGISTER_LIMIT_PER_HOUR: '1000' });
    tight = await startTestApp({ REGISTER_LIMIT_PER_HOUR: '1' });
  });
  after(async () => {
    await t.close();
    await tight.close();
  });

  it('the home page form posts (never GETs) to /register, and works without a script', async () => {
    const html = (await injectGet(t.app, '/')).text();
    assert.match(html, /<form id="register-form" method="post" action="\/register"\s+data-api="\/api\/register"/);
    assert.match(html, /<input id="email" name="email" type="email"/);
  });

  it(
    'answers 201 with a page showing the key, a copy button for scripts, ' + 'and the next command from its origin',
    async () => {
      const before = keysIssuedSoFar();
      const r = await post(t, 'email=Form.User%40Example.com');
      assert.equal(r.status, 201);
      assert.equal(keysIssuedSoFar(), before + 1, 'a key issued on a page is held to the log scan too');
      assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(r.headers['cache-control'], 'no-store', 'a page showing a key is never stored');
      assert.match(String(r.headers['content-security-policy']), /default-src 'none'/);
      assert.equal(r.headers.location, undefined, 'no redirect: the key never enters a URL');
      const html = r.text();
      const key = /<code id="api-key" class="key">(ggt_[A-Za-z0-9_-]+)<\/code>/.exec(html)?.[1];
      assert.ok(key, 'the key is on the page');
      assert.match(html, /shown only once/);
      // docs/contract.md, Getting a key back: the page that shows a key says how to get one back
      assert.match(html, /If you lose it, register again .*or get a\s+key back by mail on the <a href="\/recover">/s);
      assert.ok(
        html.includes(`<code id="curl-line">curl -H 'X-API-Key: ${key}' '${ORIGIN}/api/grains'</code>`),
        'the command names this origin, quoted',
      );
      assert.match(html, /<button type="button" class="copy" data-copy="api-key" hidden>Copy key<\/button>/);
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200, 'the key works');
      const account = await t.store.show('form.user@example.com');
      assert.equal(account?.keys.length, 1, 'the same account rules: trimmed, lower-cased');
    },
  );

  const SAME = { 'sec-fetch-site': 'same-origin' };
  const refused: [string, string, Record<string, string>, number, string][] = [
    ['an address that is not one', 'email=not-an-address', SAME, 400, MESSAGES.badEmail],
    ['no email field', 'mail=a%40example.com', SAME, 400, MESSAGES.badForm],
    ['the field twice', 'email=a%40example.com&email=b%40example.com', SAME, 400, MESSAGES.badForm],
    ['a body over 1 KiB', `email=a%40example.com&pad=${'x'.repeat(1100)}`, SAME, 413, MESSAGES.tooLarge],
    [
      'a form from another site',
      'email=c%40example.com',
      { 'sec-fetch-site': 'cross-site' },
      403,
      MESSAGES.crossSiteForm,
    ],
    [
      'an Origin of another host (no Sec-Fetch-Site)',
      'email=c%40example.com',
      { origin: 'https://elsewhere.example' },
      403,
      MESSAGES.crossSiteForm,
    ],
  ];
  for (const [what, body, headers, status, message] of refused) {
    it(
      `answers ${status} with the form again and the error beside the field ` + `for ${what}; nothing is made`,
      async () => {
        const sent = { 'content-type': FORM['content-type'], ...headers };
        const r = await inject(t.app, { url: '/register', method: 'POST', headers: sent, body });
        assert.equal(r.status, status);
        assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
        assert.equal(r.headers['cache-control'], 'no-store');
        const html = r.text();
        const escaped = message.replace(/'/g, '&#39;').replace(/"/g, '&quot;');
        assert.ok(
          html.includes(`<p id="email-error" class="error" role="alert" aria-live="assertive">${escaped}</p>`),
          'the sentence is next to the field',
        );
        assert.match(html, /<input id="email" name="email"[^>]* aria-invalid="true">/);
        assert.doesNotMatch(html, /ggt_/, 'no key');
      },
    );
  }
  it('nothing was registered by the refused posts', async () => {
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com'])
      assert.equal(await t.store.show(email), null, email);
  });

  it('keeps what was typed in the field, escaped', async () => {
    const r = await post(t, `email=${encodeURIComponent('"><script>alert(1)</script>')}`);
    assert.equal(r.status, 400);
    assert.ok(r.text().includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'), 'escaped in the value');
    assert.doesNotMatch(r.text(), /<script>alert/);
  });

  it('answers a JSON body with the form again, naming the API route a program uses; nothing is made', async () => {
    const r = await post(t, '{"email":"json-to-form@example.com"}', { 'content-type': 'application/json' });
    assert.equal(r.status, 415);
    assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
    assert.ok(r.text().includes(MESSAGES.unsupportedFormType.replace(/'/g, '&#39;')), 'the sentence is on the page');
    assert.equal(await t.store.show('json-to-form@example.com'), null);
  });

  it('the API route takes JSON only: a form body there is a JSON 415, nothing is made', async () => {
    const r = await inject(t.app, {
      url: '/api/register',
      method: 'POST',
      headers: FORM,
      body: 'email=api-form%40example.com',
    });
    assert.equal(r.status, 415);
    assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(r.json().code, 'unsupported_type');
    assert.equal(await t.store.show('api-form@example.com'), null);
  });

  it('shares the per-address limit with the JSON registration: 429 with Retry-After, on a page', async () => {
    assert.equal((await post(tight, 'email=first%40example.com')).status, 201);
    const r = await post(tight, 'email=second%40example.com');
    assert.equal(r.status, 429);
    assert.equal(r.headers['retry-after'], '3600');
    assert.ok(r.text().includes(MESSAGES.registerLimited), 'the sentence is on the page');
  });
});
