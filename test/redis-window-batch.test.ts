// tier: full (a redis-server of the test's own, gateway processes sharing it)
// The hourly windows of one turn of the event loop are one script call on Redis
// (gateway/store/redis/window-batch.ts), and counting stays exact (docs/contract.md, Authentication
// and limits): per window in the order asked, across instances, with true headers; a revoked key
// in the burst is refused and never counted; a call Redis does not answer in time falls back to
// counting here, from the last answer Redis gave. And a verified key trusted past its first second
// only while revocations are sure to reach the instance (gateway/store/redis/key-trust.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { digestHex, hashKey } from '../gateway/keys.ts';
import { WINDOW_MS } from '../gateway/rate-limit.ts';
import { LONG_TRUST_MS } from '../gateway/store/redis/key-trust.ts';
import { windowBatcher } from '../gateway/store/redis/window-batch.ts';
import {
  type ChildGateway,
  get,
  type RawResponse,
  realSiteDir,
  register,
  runAccounts,
  spawnGateway,
} from './helpers/gateway.ts';
import { injectGet, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';
import { type PrivateRedis, startPrivateRedis, within } from './helpers/redis.ts';
import { suite } from './helpers/suite.ts';

const noServer = spawnSync('redis-server', ['--version']).status !== 0;
if (noServer && process.env.CI) throw new Error('CI: redis-server is not installed');
const skip = noServer ? 'redis-server is not installed' : false;

/** Script calls Redis ran since the last reset (EVALSHA, and EVAL the first time on a connection). */
async function scriptCalls(r: Redis): Promise<number> {
  const stats = await r.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

/** A key's window count and its total of requests, read in Redis under `prefix`. */
async function usageInRedis(r: Redis, prefix: string, key: string) {
  const entry = await r.get(`${prefix}key:${digestHex(hashKey(key))}`);
  const keyId = entry!.split('\t')[1]!;
  return {
    window: Number(await r.hget(`${prefix}window:req:${keyId}`, 'count')),
    requests: Number(await r.hget(`${prefix}keyinfo:${keyId}`, 'requests')),
  };
}

suite('redis windows batched per turn', skip, () => {
  let redis: PrivateRedis;
  let r: Redis;
  before(async () => {
    redis = await startPrivateRedis({ args: ['--appendfsync', 'everysec'] });
    r = new Redis(redis.url);
  });
  after(async () => {
    r.disconnect();
    await redis.stop();
  });

  it("decides a turn's windows in one call, in the order asked, as separate calls would", async () => {
    const client = new Redis(redis.url, { enableOfflineQueue: false });
    await new Promise((res) => client.once('ready', res));
    const ask = windowBatcher(client);
    const now = 1_800_000_000_000;
    const a = { key: 'u:window:req:a', info: 'u:keyinfo:a', now, limit: 3, count: true, touch: true };
    const b = { key: 'u:window:req:b', info: 'u:window:req:b', now, limit: 10, count: true, touch: false };
    await r.config('RESETSTAT');
    const answers = await Promise.all([
      ask(a),
      ask(b),
      ask(a),
      ask({ ...a, count: false }), // a 304's peek: allowed while the hour has room, not counted
      ask(a),
      ask(a),
      ask(b),
      ask(a),
    ]);
    assert.equal(await scriptCalls(r), 1, 'one script call for the whole turn');
    const reset = now + WINDOW_MS;
    assert.deepEqual(answers, [
      [1, 1, reset],
      [1, 1, reset],
      [1, 2, reset],
      [1, 2, reset],
      [1, 3, reset],
      [0, 3, reset],
      [1, 2, reset],
      [0, 3, reset],
    ]);
    assert.deepEqual(await r.hgetall('u:keyinfo:a'), { last_used: String(now), requests: '3' }, 'admitted only');
    assert.equal(await r.hget('u:window:req:b', 'count'), '2');
    const ttl = await r.pttl('u:window:req:a');
    assert.ok(ttl > WINDOW_MS && ttl <= WINDOW_MS + 60_000, `window TTL ${ttl} ms`);
    // a call that cannot be sent fails every window in it: each asker then does what an outage asks
    client.disconnect();
    const failed = await Promise.allSettled([ask(a), ask(b)]);
    assert.deepEqual(
      failed.map((f) => f.status),
      ['rejected', 'rejected'],
    );
  });

  describe('two gateway processes', () => {
    const prefix = 'gg:batch:';
    let gateways: ChildGateway[] = [];
    let env: Record<string, string>;
    before(async () => {
      env = {
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: prefix,
        SITE_DIR: realSiteDir(),
        RATE_LIMIT_PER_HOUR: '100',
        REGISTER_LIMIT_PER_HOUR: '1000',
      };
      gateways = await Promise.all([spawnGateway(env), spawnGateway(env)]);
      for (const g of gateways) await within(5_000, async () => (await get(g.url, '/health')).json().store === 'ok');
    });
    after(async () => {
      for (const g of gateways) g.child.kill('SIGTERM');
      await Promise.all(gateways.map((g) => g.exited));
    });

    /** `perKey` concurrent GETs of each key, spread over both gateways and interleaved by key. */
    const burst = (keys: string[], perKey: number) =>
      Promise.all(
        Array.from({ length: perKey * keys.length }, (_, i) =>
          get(gateways[i % 2]!.url, '/api/grains/CWRS', keys[i % keys.length]).then((res) => ({
            key: keys[i % keys.length]!,
            res,
          })),
        ),
      );

    /** Every answer's rate-limit headers agree with its count; the counts are 1..n, each once. */
    function assertCounted(results: RawResponse[], from: number, admitted: number) {
      const ok = results.filter((x) => x.status === 200);
      assert.equal(ok.length, admitted);
      const used = ok.map((x) => Number(x.headers['x-ratelimit-used'])).sort((p, q) => p - q);
      assert.deepEqual(
        used,
        Array.from({ length: admitted }, (_, i) => from + i),
        'every count handed out once, across both instances',
      );
      const resets = new Set(results.map((x) => x.headers['x-ratelimit-reset']));
      assert.equal(resets.size, 1, 'one window');
      for (const x of results) {
        assert.equal(x.headers['x-ratelimit-limit'], '100');
        const remaining = 100 - Number(x.headers['x-ratelimit-used']);
        assert.equal(x.headers['x-ratelimit-remaining'], String(remaining));
        assert.match(String(x.headers.ratelimit), new RegExp(`^"default";r=${remaining};t=\\d+$`));
        assert.equal(x.headers['ratelimit-policy'], '"default";q=100;w=3600');
      }
      for (const x of results.filter((y) => y.status !== 200)) {
        assert.equal(x.status, 429);
        assert.equal(x.headers['x-ratelimit-used'], '100');
        assert.ok(Number(x.headers['retry-after']) >= 1);
      }
    }

    it('admit exactly the limit of each key for concurrent requests, in fewer script calls', async () => {
      const keys = await Promise.all([0, 1, 2].map((i) => register(gateways[i % 2]!.url, `batch-${i}@example.com`)));
      await r.config('RESETSTAT');
      const results = await burst(keys, 160);
      const calls = await scriptCalls(r);
      assert.ok(calls < results.length, `${calls} script calls for ${results.length} requests`);
      for (const key of keys) {
        assertCounted(
          results.filter((x) => x.key === key).map((x) => x.res),
          1,
          100,
        );
        assert.deepEqual(await usageInRedis(r, prefix, key), { window: 100, requests: 100 });
      }
    });

    it('refuses a revoked key in a burst and counts it nowhere, the live key beside it exactly', async () => {
      const revoked = await register(gateways[0]!.url, 'revoked-batch@example.com');
      const live = await register(gateways[1]!.url, 'live-batch@example.com');
      for (const g of gateways)
        for (const key of [revoked, live]) assert.equal((await get(g.url, '/api/grains', key)).status, 200);
      const cli = await runAccounts(
        { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix },
        'revoke',
        'revoked-batch@example.com',
        '--all',
      );
      assert.equal(cli.status, 0, cli.stderr);
      for (const g of gateways)
        await within(2_000, async () => (await get(g.url, '/api/grains', revoked)).status === 401);
      const before = await usageInRedis(r, prefix, live);
      const results = await burst([revoked, live, live], 60);
      assert.ok(results.filter((x) => x.key === revoked).every((x) => x.res.status === 401));
      // the live key had 2 requests before the burst, so 98 more fit in its hour
      assertCounted(
        results.filter((x) => x.key === live).map((x) => x.res),
        3,
        98,
      );
      assert.deepEqual(before, { window: 2, requests: 2 });
      assert.deepEqual(await usageInRedis(r, prefix, live), { window: 100, requests: 100 });
    });
  });

  describe('keys trusted past the first second while the revocations reach this instance', () => {
    const prefix = 'gg:trust:';
    let t: TestApp;
    before(async () => {
      t = await startTestApp({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, REGISTER_LIMIT_PER_HOUR: '1000' });
      await within(5_000, async () => (await injectGet(t.app, '/health')).json().store === 'ok');
    });
    after(() => t.close());

    /** A key verified by the gateway, then taken out of Redis with no announcement (`announce` false). */
    async function verifiedThenGone(email: string, announce: boolean) {
      const key = await injectRegister(t.app, email);
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200);
      const hex = digestHex(hashKey(key));
      await r.del(`${prefix}key:${hex}`);
      if (announce) await r.publish(`${prefix}revoked`, hex);
      return key;
    }
    /** Past the first second of trust, then a real moment for the subscription to be proven live again. */
    const later = async (ms: number) => {
      t.clock.advance(ms);
      await new Promise((res) => setTimeout(res, 600));
    };

    it('serves a trusted key without asking Redis, refuses it at once when its revocation is announced', async () => {
      const silent = await verifiedThenGone('silent@example.com', false);
      await later(5_000);
      // Redis would say 401: the gateway did not ask
      assert.equal((await injectGet(t.app, '/api/grains', silent)).status, 200);
      const announced = await verifiedThenGone('announced@example.com', true);
      await within(1_000, async () => (await injectGet(t.app, '/api/grains', announced)).status === 401);
      // the cap: past LONG_TRUST_MS every key is asked again
      await later(LONG_TRUST_MS);
      assert.equal((await injectGet(t.app, '/api/grains', silent)).status, 401);
    });

    it('asks Redis again about every key once its subscription dropped (announcements may be lost)', async () => {
      const silent = await verifiedThenGone('dropped@example.com', false);
      await later(5_000);
      assert.equal((await injectGet(t.app, '/api/grains', silent)).status, 200);
      await r.client('KILL', 'TYPE', 'pubsub');
      // subscribed again, and proven live again: still, the key verified before is asked about
      const subscribers = async () => ((await r.pubsub('NUMSUB', `${prefix}revoked`)) as [string, number])[1];
      await within(5_000, async () => (await subscribers()) === 1);
      await later(0);
      assert.equal((await injectGet(t.app, '/api/grains', silent)).status, 401);
    });
  });

  it('counts a turn here when Redis does not answer its call in time, from the last count Redis gave', async () => {
    const t = await startTestApp({
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: 'gg:late:',
      RATE_LIMIT_PER_HOUR: '5',
      REGISTER_LIMIT_PER_HOUR: '1000',
    });
    try {
      await within(5_000, async () => (await injectGet(t.app, '/health')).json().store === 'ok');
      const key = await injectRegister(t.app, 'late@example.com');
      assert.equal((await injectGet(t.app, '/api/grains', key)).headers['x-ratelimit-used'], '1');
      // every client of this Redis waits 2.5 s: the batch's call times out after 1 s
      await r.call('CLIENT', 'PAUSE', '2500', 'ALL');
      const during = await Promise.all(Array.from({ length: 8 }, () => injectGet(t.app, '/api/grains', key)));
      const ok = during.filter((x) => x.status === 200);
      assert.deepEqual(ok.map((x) => x.headers['x-ratelimit-used']).sort(), ['2', '3', '4', '5']);
      assert.deepEqual(
        during.filter((x) => x.status !== 200).map((x) => x.status),
        [429, 429, 429, 429],
      );
    } finally {
      await t.close();
      await within(5_000, async () => (await r.ping()) === 'PONG');
    }
  });
});
