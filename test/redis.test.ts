// tier: full (gateway processes sharing Redis)
// Scale-out on Redis (docs/contract.md, Storage and scale): several gateway processes share keys and
// exact limits; replacement and revocation reach every instance within the bound; an outage is
// survived and recovered from. One gateway on Redis is its app, asked in process (helpers/inject.ts);
// several are processes of their own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { WINDOW_MS } from '../gateway/rate-limit.ts';
import { errorJson } from './helpers/errors.ts';
import { type ChildGateway, get, realSiteDir, register, runAccounts, spawnGateway } from './helpers/gateway.ts';
import { injectGet, injectJson, injectRegister, startTestApp } from './helpers/inject.ts';
import { fileRedis, redisSkipReason, startPrivateRedis, uniquePrefix, within } from './helpers/redis.ts';
import { suite } from './helpers/suite.ts';

const skip = await redisSkipReason();
const redisUrl = fileRedis();
const prefix = uniquePrefix();

suite('redis store', skip, () => {
  it('keeps the contract and exact windows, with an injected clock', async () => {
    const t = await startTestApp({
      REDIS_URL: await redisUrl(),
      REDIS_KEY_PREFIX: `${prefix}a:`,
      REGISTER_LIMIT_PER_HOUR: '1000',
    });
    try {
      await within(5_000, async () => (await injectGet(t.app, '/health')).json().store === 'ok');
      const key = await injectRegister(t.app, 'Redis@Example.com');
      const ok = await injectGet(t.app, '/api/grains/soybeans', key);
      assert.equal(ok.status, 200);
      assert.equal(ok.json().grain_id, 'SOYBEANS');
      assert.equal(ok.headers['x-ratelimit-used'], '1');
      // the window outlives its hour on Redis's clock, whatever the gateway's clock says (this
      // one is injected, hours or more from Redis's)
      const r = new Redis(await redisUrl());
      const windows = await r.keys(`${prefix}a:window:req:*`);
      const ttl = windows.length === 1 ? await r.pttl(windows[0]!) : -3;
      r.disconnect();
      assert.ok(ttl > WINDOW_MS && ttl <= WINDOW_MS + 60_000, `window TTL ${ttl} ms`);
      assert.equal((await injectGet(t.app, '/api/grains', `ggt_${'A'.repeat(38)}`)).status, 401);
      const results = await Promise.all(Array.from({ length: 150 }, () => injectGet(t.app, '/api/changelog', key)));
      assert.equal(results.filter((r) => r.status === 200).length, 99);
      assert.ok(results.filter((r) => r.status === 429).every((r) => r.headers['retry-after'] === '3600'));
      t.clock.advance(WINDOW_MS);
      const fresh = await injectGet(t.app, '/api/changelog', key);
      assert.equal(fresh.status, 200);
      assert.equal(fresh.headers['x-ratelimit-used'], '1');
      // rotation: the presented key is refused at once; the new key's hour is its own
      const replacement = await injectRegister(t.app, 'redis@example.com', { 'x-api-key': key });
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 401);
      assert.equal((await injectGet(t.app, '/api/grains', replacement)).headers['x-ratelimit-used'], '1');
    } finally {
      await t.close();
    }
  });

  describe('three gateway processes on one Redis', () => {
    const env = {
      REDIS_URL: '',
      REDIS_KEY_PREFIX: `${prefix}b:`,
      SITE_DIR: realSiteDir(),
      REGISTER_LIMIT_PER_HOUR: '1000',
    };
    let gateways: ChildGateway[] = [];
    before(async () => {
      env.REDIS_URL = await redisUrl();
      gateways = await Promise.all([spawnGateway(env), spawnGateway(env), spawnGateway(env)]);
      for (const g of gateways) await within(5_000, async () => (await get(g.url, '/health')).json().store === 'ok');
    });
    after(async () => {
      for (const g of gateways) g.child.kill('SIGTERM');
      await Promise.all(gateways.map((g) => g.exited));
    });

    it('admit exactly the limit in total for 300 concurrent requests with one key', async () => {
      const key = await register(gateways[0]!.url, 'three@example.com');
      const results = await Promise.all(
        Array.from({ length: 300 }, (_, i) => get(gateways[i % 3]!.url, '/api/grains/CWRS', key)),
      );
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 100);
      assert.equal(statuses.filter((s) => s === 429).length, 200);
      const used = results
        .filter((r) => r.status === 200)
        .map((r) => Number(r.headers['x-ratelimit-used']))
        .sort((a, b) => a - b);
      assert.deepEqual(
        used,
        Array.from({ length: 100 }, (_, i) => i + 1),
        'every count handed out once, across the three',
      );
    });

    it('a rotation on one instance revokes the key on the others within 2 s', async () => {
      const old = await register(gateways[0]!.url, 'moving@example.com');
      for (const g of gateways) assert.equal((await get(g.url, '/api/grains', old)).status, 200); // cached everywhere
      const fresh = await register(gateways[1]!.url, 'moving@example.com', { 'x-api-key': old });
      for (const g of gateways) {
        const took = await within(2_000, async () => (await get(g.url, '/api/grains', old)).status === 401);
        assert.ok(took <= 2_000);
        assert.equal((await get(g.url, '/api/grains', fresh)).status, 200);
      }
    });

    it('npm run accounts shows and revokes in Redis; every instance refuses the key within 2 s', async () => {
      const key = await register(gateways[2]!.url, 'ops-redis@example.com');
      const other = await register(gateways[0]!.url, 'ops-redis@example.com');
      for (const g of gateways) assert.equal((await get(g.url, '/api/grains', key)).status, 200);
      const cli = (...args: string[]) =>
        runAccounts({ REDIS_URL: env.REDIS_URL, REDIS_KEY_PREFIX: env.REDIS_KEY_PREFIX }, ...args);
      const show = await cli('show', 'ops-redis@example.com');
      assert.equal(show.status, 0, show.stderr);
      const keyLines = show.stdout.trim().split('\n').slice(1);
      assert.equal(keyLines.length, 2);
      assert.match(
        keyLines[0]!,
        /^ {2}key [0-9a-f]+\tcreated .*\tlast used 20\d\d-.*\t3 request\(s\)\tlive$/,
        'used: its last use is kept',
      );
      assert.match(keyLines[1]!, /\tlast used -\t0 request\(s\)\tlive$/);
      const first = /key ([0-9a-f]+)/.exec(keyLines[0]!)![1]!;
      const revoke = await cli('revoke', 'ops-redis@example.com', first);
      assert.equal(revoke.stdout, 'revoked 1 live key(s) of ops-redis@example.com\n', revoke.stderr);
      for (const g of gateways) await within(2_000, async () => (await get(g.url, '/api/grains', key)).status === 401);
      for (const g of gateways) assert.equal((await get(g.url, '/api/grains', other)).status, 200);
      assert.match((await cli('show', 'ops-redis@example.com')).stdout, new RegExp(`key ${first}\\t.*\\trevoked 20`));
      assert.equal(
        (await cli('revoke', 'ops-redis@example.com', '--all')).stdout,
        'revoked 1 live key(s) of ops-redis@example.com\n',
      );
      for (const g of gateways)
        await within(2_000, async () => (await get(g.url, '/api/grains', other)).status === 401);
    });
  });
});

suite('redis outage', skip, () => {
  it('keeps recently verified keys working, refuses what it cannot verify with 503, and recovers', async () => {
    const redis = await startPrivateRedis();
    const t = await startTestApp({
      REDIS_URL: redis.url,
      REGISTER_LIMIT_PER_HOUR: '1000',
      RATE_LIMIT_PER_HOUR: '5',
    });
    try {
      await within(5_000, async () => (await injectGet(t.app, '/health')).json().store === 'ok');
      const known = await injectRegister(t.app, 'known@example.com');
      const unseen = await injectRegister(t.app, 'unseen@example.com');
      assert.equal((await injectGet(t.app, '/api/grains', known)).headers['x-ratelimit-used'], '1');
      t.clock.advance(2_000); // past the 1 s trust: the next check must ask Redis

      await redis.stop();
      await within(5_000, async () => (await injectGet(t.app, '/health')).json().store === 'unavailable');
      const health = (await injectGet(t.app, '/health')).json();
      assert.equal(health.status, 'store_unavailable');
      assert.match(health.reason, /^Redis is unreachable/);

      // verified recently: served, counted here from the last count Redis gave (1), up to the limit
      const during = [];
      for (let i = 0; i < 5; i++) during.push(await injectGet(t.app, '/api/grains', known));
      assert.deepEqual(
        during.map((r) => r.status),
        [200, 200, 200, 200, 429],
      );
      assert.deepEqual(
        during.slice(0, 4).map((r) => r.headers['x-ratelimit-used']),
        ['2', '3', '4', '5'],
      );
      // never verified by this instance: 503 with Retry-After, and so is registration
      const refused = await injectGet(t.app, '/api/grains', unseen);
      assert.equal(refused.status, 503);
      assert.equal(refused.headers['retry-after'], '5');
      assert.deepEqual(refused.json(), errorJson('storeUnavailable', 503));
      const reg = await injectJson(t.app, '/api/register', '{"email":"during@example.com"}');
      assert.equal(reg.status, 503);
      assert.ok(reg.headers['retry-after']);

      t.clock.advance(1_000);
      await redis.start();
      await within(10_000, async () => (await injectGet(t.app, '/health')).json().store === 'ok');
      // the four requests served during the outage join the key's total, with their time
      const usage = async () => (await t.store.show('known@example.com'))!.keys[0]!;
      await within(5_000, async () => (await usage()).requests === 5);
      assert.equal((await usage()).last_used_at, t.clock.now - 1_000);
      // and the key's hour: the five it spent across the outage, so its limit holds (not 1 + 5)
      const spent = await injectGet(t.app, '/api/grains', known);
      assert.equal(spent.status, 429);
      assert.equal(spent.headers['x-ratelimit-used'], '5');
      // recovered by itself; keys issued before the outage were kept (append-only file)
      assert.equal((await injectGet(t.app, '/api/grains', unseen)).status, 200);
      const after = await injectRegister(t.app, 'after@example.com');
      assert.equal((await injectGet(t.app, '/api/grains', after)).status, 200);
      await t.close(); // flushes the log
      const log = t.logs.join('');
      assert.match(log, /"event":"store_unavailable"/);
      assert.match(log, /"event":"store_recovered"/);
      assert.match(log, /"event":"outage_usage_saved","store":"redis","keys":1,"requests":4}/);
      assert.doesNotMatch(log, /outage_usage_lost/);
    } finally {
      await t.close();
      await redis.stop();
    }
  });
});

suite('redis restart under load', skip, () => {
  it('loses no issued key and recovers by itself when Redis is killed and restarted during a storm', async () => {
    const redis = await startPrivateRedis();
    const t = await startTestApp({
      REDIS_URL: redis.url,
      REGISTER_LIMIT_PER_HOUR: '100000',
      RATE_LIMIT_PER_HOUR: '100000',
    });
    try {
      await within(5_000, async () => (await injectGet(t.app, '/health')).json().store === 'ok');
      const issued: string[] = [];
      const statuses = new Map<number, number>();
      let stop = false;
      let n = 0;
      const storm = Array.from({ length: 8 }, async () => {
        while (!stop) {
          const i = n++;
          const res = await injectJson(t.app, '/api/register', { email: `storm-${i}@example.com` });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 201) issued.push(res.json().api_key);
          else assert.equal(res.status, 503); // while Redis is away: refused, never a 500
          if (issued.length) {
            const use = await injectGet(t.app, '/api/grains', issued[i % issued.length]!);
            assert.ok([200, 503].includes(use.status), `${use.status}`);
          }
        }
      });
      while (issued.length < 100) await new Promise((r) => setTimeout(r, 5));
      await redis.stop(); // SIGKILL: only what the append-only file holds survives
      await new Promise((r) => setTimeout(r, 300));
      await redis.start();
      await within(10_000, async () => (await injectGet(t.app, '/health')).json().store === 'ok');
      const before = issued.length;
      while (issued.length < before + 100) await new Promise((r) => setTimeout(r, 5));
      stop = true;
      await Promise.all(storm);
      const results = await Promise.all(issued.map((k) => injectGet(t.app, '/api/grains/CWRS', k)));
      assert.deepEqual(results.filter((r) => r.status !== 200).length, 0, `of ${issued.length} issued keys`);
      console.log(
        `redis restart: ${issued.length} keys issued around the restart, all working; ` +
          `statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
    } finally {
      await t.close();
      await redis.stop();
    }
  });
});
