// Getting a key back (docs/contract.md, Getting a key back), asked of the gateway's app in process
// (helpers/inject.ts), with its own mailer sending to a real SMTP server on port 0 (or writing its outbox): the
// squatted address won back, links that scanners fetch, tokens used twice, expired or replaced,
// known and unknown addresses answered alike, both limits, mail that fails and goes out later,
// and two Redis-backed instances honouring each other's links.
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RECOVERY_MAILS_PER_HOUR, RECOVERY_TOKEN_MINUTES } from '../build/site-format.ts';
import type { App } from '../gateway/app.ts';
import { ERRORS } from '../gateway/errors.ts';
import { OUTBOX_DIR } from '../gateway/mail.ts';
import { startTestGateway } from './helpers/gateway.ts';
import {
  type Injected,
  inject,
  injectGet,
  injectJson,
  injectRegister,
  startTestApp,
  type TestApp,
} from './helpers/inject.ts';
import { eventually, outbox, type SmtpSink, startSmtpSink, tokenIn } from './helpers/mail.ts';
import { fileRedis, redisSkipReason, uniquePrefix } from './helpers/redis.ts';

const json = { 'content-type': 'application/json' };
const form = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };
const PUBLIC_URL = 'https://grain.test';
const METRICS = 'recovery-metrics-token';

const recover = (app: App, email: string, from = '127.0.0.1') =>
  injectJson(app, '/api/keys/recover', { email }, { 'x-forwarded-for': from });
const confirm = (app: App, token: string) => injectJson(app, '/api/keys/recover/confirm', { token });
const errorCode = (res: Injected) => res.json().code;

/** The token of the newest mail the sink received for `to`. */
async function mailedToken(sink: SmtpSink, to: string, count: number): Promise<string> {
  const mails = await eventually(() => {
    const m = sink.mails.filter((x) => x.to.includes(to));
    return m.length >= count && m;
  }, `mail ${count} to ${to}`);
  return tokenIn(mails.at(-1)!.text)!;
}

describe('getting a key back over SMTP', () => {
  let sink: SmtpSink;
  let t: TestApp;
  before(async () => {
    sink = await startSmtpSink();
    t = await startTestApp(
      {
        SMTP_URL: sink.url,
        PUBLIC_URL,
        MAIL_FROM: 'Grain tables <keys@grain.test>',
        TRUST_PROXY: '1',
        METRICS_TOKEN: METRICS,
      },
      { mailRetryDelaysMs: [20, 40, 80, 160, 320, 640] },
    );
  });
  after(async () => {
    await t.close();
    await sink.stop();
  });

  it('a squatted address: the owner gets a working key back, the stranger keeps none', async () => {
    const victim = 'owner@example.com';
    const stranger = { 'x-forwarded-for': '198.51.100.7' };
    const squatted = [];
    for (let i = 0; i < 5; i++) squatted.push(await injectRegister(t.app, victim, stranger));
    const locked = await inject(t.app, {
      url: '/api/register',
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: victim }),
    });
    assert.equal(locked.status, 409);
    assert.match(locked.json().error, /\/api\/keys\/recover/, 'the 409 points to recovery');

    const asked = await recover(t.app, victim);
    assert.equal(asked.status, 202);
    const token = await mailedToken(sink, victim, 1);
    const mail = sink.mails.at(-1)!;
    assert.deepEqual(mail.to, [victim]);
    assert.match(mail.text, /^From: Grain tables <keys@grain\.test>$/m);
    assert.ok(mail.text.includes(`${PUBLIC_URL}/recover?code=${token}`), 'the link names PUBLIC_URL');

    // a mail scanner and the owner open the link: a button, and nothing changes
    for (let i = 0; i < 2; i++) {
      const page = await injectGet(t.app, `/recover?code=${token}`);
      assert.equal(page.status, 200);
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.equal(page.headers['referrer-policy'], 'no-referrer');
      assert.ok(page.text().includes(`name="token" value="${token}"`));
    }
    for (const key of squatted) assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200);

    // the button: the form post, no JavaScript
    const used = await inject(t.app, { url: '/recover', method: 'POST', headers: form, body: `token=${token}` });
    assert.equal(used.status, 201, used.text());
    assert.equal(used.headers['cache-control'], 'no-store');
    const key = /id="api-key" class="key">(ggt_[A-Za-z0-9_-]{38})</.exec(used.text())?.[1];
    assert.ok(key, 'the page shows the new key');
    for (const old of squatted) assert.equal((await injectGet(t.app, '/api/grains', old)).status, 401);
    assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200);

    // used again, from the page or the API: refused, nothing changes
    const again = await confirm(t.app, token);
    assert.equal(again.status, 400);
    assert.equal(errorCode(again), 'recovery_token_used');
    const page = await inject(t.app, { url: '/recover', method: 'POST', headers: form, body: `token=${token}` });
    assert.equal(page.status, 400);
    assert.ok(page.text().includes('already used'));
    assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200);
    // and the owner may register again: one live key of five
    assert.equal((await recover(t.app, victim)).status, 202);
    await mailedToken(sink, victim, 2);
    assert.ok(await injectRegister(t.app, victim));
  });

  it('an unknown address is answered exactly as a known one, and is sent nothing', async () => {
    await injectRegister(t.app, 'known@example.com');
    const sent = sink.mails.length;
    const known = await recover(t.app, 'known@example.com', '203.0.113.1');
    // an address of the same length: the bodies differ in the address alone
    const unknown = await recover(t.app, 'unkno@example.com', '203.0.113.2');
    assert.equal(known.status, 202);
    assert.equal(unknown.status, known.status);
    // the app's headers alone (node:http adds only Date and the connection's)
    assert.deepEqual(unknown.headers, known.headers);
    assert.deepEqual(
      { ...unknown.json(), email: null },
      { ...known.json(), email: null },
      'the same body but for the address read',
    );
    assert.equal(unknown.json().email, 'unkno@example.com');
    await mailedToken(sink, 'known@example.com', 1);
    assert.equal(sink.mails.length, sent + 1, 'one mail, to the known address only');
    assert.ok(!sink.mails.some((m) => m.to.includes('unkno@example.com')));
  });

  it('a newer link replaces an older one; an expired one changes nothing', async () => {
    const email = 'twice@example.com';
    const first = await injectRegister(t.app, email);
    await recover(t.app, email, '203.0.113.3');
    const older = await mailedToken(sink, email, 1);
    await recover(t.app, email, '203.0.113.3');
    const newer = await mailedToken(sink, email, 2);
    assert.notEqual(older, newer);
    const refused = await confirm(t.app, older);
    assert.equal(refused.status, 400);
    assert.equal(errorCode(refused), 'recovery_token_superseded');
    assert.equal((await injectGet(t.app, '/api/grains', first)).status, 200, 'nothing changed');

    t.clock.advance(RECOVERY_TOKEN_MINUTES * 60_000);
    const expired = await confirm(t.app, newer);
    assert.equal(expired.status, 400);
    assert.deepEqual(expired.json(), {
      error: ERRORS.recoveryTokenExpired.message,
      status: 400,
      code: 'recovery_token_expired',
      schema_version: '1.0',
    });
    assert.equal((await injectGet(t.app, '/api/grains', first)).status, 200, 'nothing changed');
    const unknown = await confirm(t.app, `ggr_${'B'.repeat(32)}`);
    assert.equal(errorCode(unknown), 'recovery_token_unknown');
  });

  it('at most 3 mails an hour to one address, and the registration limit from one network address', async () => {
    const email = 'limited@example.com';
    await injectRegister(t.app, email);
    const before = sink.mails.length;
    for (let i = 0; i < RECOVERY_MAILS_PER_HOUR; i++)
      assert.equal((await recover(t.app, email, `203.0.113.${10 + i}`)).status, 202);
    const fourth = await recover(t.app, email, '203.0.113.20');
    assert.equal(fourth.status, 429);
    assert.equal(errorCode(fourth), 'recovery_mails_limited');
    assert.ok(Number(fourth.headers['retry-after']) >= 1);
    await eventually(() => sink.mails.length === before + RECOVERY_MAILS_PER_HOUR, 'three mails');
    // an unknown address counts the same: its 429 comes as soon
    for (let i = 0; i < RECOVERY_MAILS_PER_HOUR; i++) await recover(t.app, 'nobody@example.com', `203.0.113.${30 + i}`);
    assert.equal((await recover(t.app, 'nobody@example.com', '203.0.113.40')).status, 429);

    // one network address: REGISTER_LIMIT_PER_HOUR (10) requests, whatever the addresses asked for
    for (let i = 0; i < 10; i++) assert.equal((await recover(t.app, `m${i}@example.com`, '198.51.100.99')).status, 202);
    const limited = await recover(t.app, 'm10@example.com', '198.51.100.99');
    assert.equal(limited.status, 429);
    assert.equal(errorCode(limited), 'recovery_address_limited');
    t.clock.advance(3_600_000);
    assert.equal((await recover(t.app, 'm10@example.com', '198.51.100.99')).status, 202, 'a new hour');
  });

  it('SMTP down: the client still gets 202, /health says so, and the mail goes out once it is back', async () => {
    const email = 'patient@example.com';
    await injectRegister(t.app, email);
    const count = sink.mails.filter((m) => m.to.includes(email)).length;
    await sink.stop();
    assert.equal((await recover(t.app, email, '203.0.113.50')).status, 202);
    const degraded = await eventually(async () => {
      const h = (await injectGet(t.app, '/health')).json();
      return h.status === 'mail_degraded' && h;
    }, '/health to say mail_degraded');
    assert.equal(degraded.mail, 'degraded');
    await sink.start();
    const token = await mailedToken(sink, email, count + 1);
    assert.equal((await confirm(t.app, token)).status, 201, 'the late mail works');
    const health = (await injectGet(t.app, '/health')).json();
    assert.equal(health.status, 'ok');
    assert.equal(health.mail, 'ok');
    const logged = await eventually(() => {
      const text = t.logs.join('');
      return text.includes('"event":"mail_failed"') && text;
    }, 'the failure logged');
    assert.ok(!logged.includes(token.slice(4)), 'no token in the log');
    const metrics = (await injectGet(t.app, '/metrics', undefined, { authorization: `Bearer ${METRICS}` })).text();
    assert.ok(!metrics.includes(token.slice(4)), 'no token in a metric');
    const failed = Number(/^gateway_mail_total\{outcome="failed"\} (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(failed >= 1, 'the failed attempts are counted');
    assert.match(metrics, /^gateway_mail_total\{outcome="sent"\} [1-9]\d*$/m);
    assert.match(metrics, /^gateway_mail_pending 0$/m);
  });
});

// Without PUBLIC_URL the link names the address the gateway listens on, known once it listens
// (server.ts): a listening gateway, its app asked in process as above.
describe('getting a key back with the embedded default', () => {
  it('writes each mail to STATE_DIR/outbox, readable by its owner alone, and logs no token', async () => {
    const t = await startTestGateway();
    try {
      const key = await injectRegister(t.gateway.app, 'local@example.com');
      assert.equal((await recover(t.gateway.app, 'local@example.com')).status, 202);
      const mail = await eventually(() => outbox(t.stateDir)[0], 'the outbox file');
      const token = tokenIn(mail)!;
      assert.ok(mail.includes(`${t.url}/recover?code=${token}`), `the link names the gateway itself: ${mail}`);
      const dir = join(t.stateDir, OUTBOX_DIR);
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.equal(statSync(join(dir, readdirSync(dir)[0]!)).mode & 0o777, 0o600);
      const res = await confirm(t.gateway.app, token);
      assert.equal(res.status, 201);
      assert.equal((await injectGet(t.gateway.app, '/api/grains', key)).status, 401);
      assert.equal((await injectGet(t.gateway.app, '/api/grains', res.json().api_key)).status, 200);
      await t.close(); // the log is written out
      const logged = t.logs.join('');
      assert.ok(logged.includes('"event":"mail_written"'));
      assert.ok(!logged.includes(token.slice(4)), 'no token in the log');
    } finally {
      await t.close();
    }
  });
});

const redisUrl = fileRedis();
describe('getting a key back across Redis-backed instances', async () => {
  const skip = await redisSkipReason();
  it('a link mailed by one instance is honoured by another, and revokes keys on both', { skip }, async () => {
    const sink = await startSmtpSink();
    const env = { REDIS_URL: await redisUrl(), REDIS_KEY_PREFIX: uniquePrefix(), SMTP_URL: sink.url, PUBLIC_URL };
    const a = await startTestApp(env);
    const b = await startTestApp(env);
    try {
      const email = 'shared@example.com';
      const keys = [await injectRegister(a.app, email), await injectRegister(b.app, email)];
      for (const key of keys) assert.equal((await injectGet(a.app, '/api/grains', key)).status, 200);
      assert.equal((await recover(a.app, email)).status, 202);
      const token = await mailedToken(sink, email, 1);
      const res = await confirm(b.app, token);
      assert.equal(res.status, 201);
      for (const g of [a, b]) {
        for (const key of keys) {
          await eventually(
            async () => (await injectGet(g.app, '/api/grains', key)).status === 401,
            'the old key refused',
          );
        }
        assert.equal((await injectGet(g.app, '/api/grains', res.json().api_key)).status, 200);
      }
      assert.equal(errorCode(await confirm(a.app, token)), 'recovery_token_used');
    } finally {
      await a.close();
      await b.close();
      await sink.stop();
    }
  });
});
