// A recovery mail's link opened (docs/contract.md, Getting a key back), asked of the gateway's app in
// process (helpers/inject.ts) on each store: a live link shows its button however often it is
// opened and still works afterwards; a used, expired, superseded or unknown one says which, and
// offers the form that asks for a new mail instead of the button. Opening changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { escapeHtml, RECOVERY_TOKEN_MINUTES } from '../build/site-format.ts';
import { ERRORS } from '../gateway/errors.ts';
import { inject, injectGet, injectJson, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';
import { recoveryToken } from './helpers/mail.ts';
import { fileRedis, redisSkipReason, uniquePrefix } from './helpers/redis.ts';

const BUTTON = 'Revoke my keys and show a new one';
const FORM = 'id="recover-form"';

/** Opens the link of `token`, as a browser and a mail scanner do. */
const open = (t: TestApp, token: string, method = 'GET') => inject(t.app, { url: `/recover?code=${token}`, method });

/** A dead link's page: 400, what it is in words, the form for a new mail, no button and no token. */
async function assertDead(t: TestApp, token: string, message: string) {
  const page = await open(t, token);
  assert.equal(page.status, 400);
  assert.equal(page.headers['cache-control'], 'no-store');
  assert.match(page.headers['content-type']!, /^text\/html/);
  const text = page.text();
  assert.ok(text.includes(escapeHtml(message)), `the page says: ${message}`);
  assert.ok(text.includes(FORM), 'the form that asks for a new mail');
  assert.ok(!text.includes(BUTTON), 'no button');
  assert.ok(!text.includes('name="token"'), 'no token to post');
  const head = await open(t, token, 'HEAD');
  assert.equal(head.status, 400);
  assert.equal(head.body.length, 0);
}

const redisUrl = fileRedis();
const STORES: [name: string, env: () => Promise<Record<string, string> | string>][] = [
  ['the embedded store', async () => ({})],
  ['Redis', async () => (await redisSkipReason()) || { REDIS_URL: await redisUrl(), REDIS_KEY_PREFIX: uniquePrefix() }],
];

for (const [name, envOf] of STORES) {
  describe(`a recovery link opened, on ${name}`, async () => {
    const env = await envOf();
    const skip = typeof env === 'string' ? env : false;
    let t: TestApp;
    before(async () => {
      if (typeof env !== 'string') t = await startTestApp(env);
    });
    after(() => t?.close());

    it('live: the button, however often opened, and the link still works afterwards', { skip }, async () => {
      const email = 'live@example.com';
      const old = await injectRegister(t.app, email);
      const token = await recoveryToken(t.app, t.stateDir, email);
      for (let i = 0; i < 3; i++) {
        const page = await open(t, token);
        assert.equal(page.status, 200);
        assert.ok(page.text().includes(BUTTON));
        assert.ok(page.text().includes(`name="token" value="${token}"`));
        assert.ok(!page.text().includes(FORM));
      }
      const head = await open(t, token, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.body.length, 0);
      assert.equal((await injectGet(t.app, '/api/grains', old)).status, 200, 'opening revoked nothing');
      const used = await injectJson(t.app, '/api/keys/recover/confirm', { token });
      assert.equal(used.status, 201, 'the token was not used up by opening it');
      assert.equal((await injectGet(t.app, '/api/grains', old)).status, 401);
      await assertDead(t, token, ERRORS.recoveryTokenUsed.message);
    });

    it('superseded: a newer link was mailed; the older says so, and the newer still works', { skip }, async () => {
      const email = 'twice@example.com';
      await injectRegister(t.app, email);
      const older = await recoveryToken(t.app, t.stateDir, email);
      const newer = await recoveryToken(t.app, t.stateDir, email);
      await assertDead(t, older, ERRORS.recoveryTokenSuperseded.message);
      assert.equal((await open(t, newer)).status, 200);
      assert.equal((await injectJson(t.app, '/api/keys/recover/confirm', { token: newer })).status, 201);
    });

    it('expired, unknown and malformed: each says which', { skip }, async () => {
      const email = 'late@example.com';
      await injectRegister(t.app, email);
      const token = await recoveryToken(t.app, t.stateDir, email);
      t.clock.advance(RECOVERY_TOKEN_MINUTES * 60_000);
      await assertDead(t, token, ERRORS.recoveryTokenExpired.message);
      await assertDead(t, `ggr_${'B'.repeat(32)}`, ERRORS.recoveryTokenUnknown.message);
      await assertDead(t, 'ggr_short', ERRORS.recoveryTokenUnknown.message);
      const refused = await injectJson(t.app, '/api/keys/recover/confirm', { token });
      assert.equal(refused.json().code, 'recovery_token_expired', 'opening changed nothing');
    });
  });
}
