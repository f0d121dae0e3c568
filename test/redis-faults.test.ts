// tier: full (redis-server processes of the test's own)
// Redis as operators run it, without Sentinel (docs/operations.md, Redis in production): a server
// that may evict is refused at start and noticed when changed under a running gateway; one that
// keeps no file is allowed with a warning; one that cannot write is unavailable, never "ok"; lost
// data (emptied, then restored from its files; flushed, then the loss accepted) is named and
// answered 503, never "mistyped". One gateway, asked in process; a real one where start-up is the subject.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { bundled } from './helpers/bundles.ts';
import { errorJson } from './helpers/errors.ts';
import { realSiteDir, root, runAccounts } from './helpers/gateway.ts';
import { injectGet, injectJson, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';
import { freePort, type PrivateRedis, redisSkipReason, startPrivateRedis, within } from './helpers/redis.ts';
import { ask } from './helpers/redis-group.ts';
import { suite } from './helpers/suite.ts';

const skip = await redisSkipReason();

const health = async (t: TestApp) => (await injectGet(t.app, '/health')).json();

suite('redis that can lose keys', skip, () => {
  const servers: PrivateRedis[] = [];
  after(() => Promise.all(servers.map((s) => s.stop())));

  it('refuses an evicting Redis at start, with a sentence naming the setting and the fix', async () => {
    const redis = await startPrivateRedis({ args: ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru'] });
    servers.push(redis);
    const run = spawnSync(process.execPath, await bundled('gateway'), {
      cwd: root,
      env: { ...process.env, PORT: '0', SITE_DIR: realSiteDir(), REDIS_URL: redis.url },
      encoding: 'utf8',
    });
    assert.equal(run.status, 1, run.stderr);
    assert.equal(
      run.stderr.trim(),
      `start-up refused: Redis at 127.0.0.1:${redis.port} has maxmemory-policy allkeys-lru: it deletes keys when ` +
        "memory runs short, and these keys are the service's accounts, not a cache. Set maxmemory-policy to " +
        "noeviction (redis.conf, CONFIG SET, or the managed service's parameter), then start the gateway.",
    );
    assert.equal(await ask(redis.port, (r) => r.dbsize()), 0, 'nothing written before the refusal');
  });

  it('does not wait at start for a Redis that refuses, and issues nothing once it comes up evicting', async () => {
    const port = await freePort();
    const t0 = Date.now();
    const t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${port}`, REGISTER_LIMIT_PER_HOUR: '1000' });
    try {
      assert.ok(Date.now() - t0 < 2_500, `started in ${Date.now() - t0} ms`);
      assert.equal((await health(t)).status, 'store_unavailable');
      const redis = await startPrivateRedis({
        port,
        args: ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru'],
      });
      servers.push(redis);
      await within(10_000, async () => (await health(t)).status === 'store_degraded');
      assert.match((await health(t)).reason, /maxmemory-policy allkeys-lru/);
      const refused = await injectJson(t.app, '/api/register', { email: 'later@example.com' });
      assert.deepEqual([refused.status, refused.json().code], [503, 'cannot_save_keys']);
      // only the address's registration windows were counted: no key, account or marker
      const written = await ask(port, (r) => r.keys('*'));
      assert.deepEqual(
        written.filter((k) => !k.startsWith('gg:window:')),
        [],
        written.join(' '),
      );
    } finally {
      await t.close();
    }
  });

  it('notices a policy changed under it, a Redis with no file, and one that cannot write', async () => {
    const redis = await startPrivateRedis({ args: ['--appendonly', 'no'] });
    servers.push(redis);
    const t = await startTestApp({ REDIS_URL: redis.url, REGISTER_LIMIT_PER_HOUR: '1000' });
    try {
      await within(5_000, async () => (await health(t)).store === 'ok');
      const h = await health(t);
      assert.equal(h.status, 'ok');
      assert.equal(h.store_primary, `127.0.0.1:${redis.port}`);
      assert.match(h.store_warning, /keeps no append-only file and has no replica/);
      const key = await injectRegister(t.app, 'policy@example.com');

      await ask(redis.port, (r) => r.config('SET', 'maxmemory-policy', 'volatile-lru'));
      await within(5_000, async () => (await health(t)).status === 'store_degraded');
      assert.match((await health(t)).reason, /maxmemory-policy volatile-lru.*Until then no key is issued\.$/);
      const refused = await injectJson(t.app, '/api/register', { email: 'policy2@example.com' });
      assert.equal(refused.status, 503);
      assert.deepEqual(refused.json(), errorJson('cannotSaveKeys', 503));
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200, 'keys work meanwhile');
      await ask(redis.port, (r) => r.config('SET', 'maxmemory-policy', 'noeviction'));
      await within(5_000, async () => (await health(t)).status === 'ok');

      // out of memory under noeviction: Redis refuses writes; /health says so, not "ok"
      await ask(redis.port, (r) => r.config('SET', 'maxmemory', '1'));
      await within(5_000, async () => (await health(t)).store === 'unavailable');
      assert.match((await health(t)).reason, /^Redis answers but cannot write \(OOM command not allowed/);
      const counted = await injectGet(t.app, '/api/grains', key);
      assert.equal(counted.status, 200, 'a verified key is counted here meanwhile');
      await ask(redis.port, (r) => r.config('SET', 'maxmemory', '0'));
      await within(5_000, async () => (await health(t)).status === 'ok');
      await t.close();
      const log = t.logs.join('');
      for (const event of ['store_at_risk', 'store_evicting', 'store_cannot_write', 'store_writable'])
        assert.match(log, new RegExp(`"event":"${event}"`));
    } finally {
      await t.close();
    }
  });

  it('names an emptied Redis, answers its keys 503 until restored from its files, then serves them', async () => {
    const redis = await startPrivateRedis();
    servers.push(redis);
    const t = await startTestApp({ REDIS_URL: redis.url, REGISTER_LIMIT_PER_HOUR: '1000' });
    try {
      await within(5_000, async () => (await health(t)).store === 'ok');
      const key = await injectRegister(t.app, 'kept@example.com');
      const first = (await t.store.show('kept@example.com'))!;
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200);

      // restarted empty: its files set aside, as a lost disk or a Redis without persistence would
      await redis.stop();
      renameSync(join(redis.dir, 'appendonlydir'), join(redis.dir, 'saved'));
      await redis.start();
      const took = await within(10_000, async () => (await health(t)).status === 'store_data_lost');
      const h = await health(t);
      assert.equal(h.store, 'lost');
      assert.match(
        h.reason,
        /^Redis no longer holds the keys' store \(restarted empty, or flushed\)\. No key is issued/,
      );
      t.clock.advance(2_000); // past the 1 s trust in a verified key: Redis is asked
      const unknown = await injectGet(t.app, '/api/grains', key);
      assert.equal(unknown.status, 503);
      assert.equal(unknown.headers['retry-after'], '60');
      assert.deepEqual(unknown.json(), errorJson('keysRecovering', 503));
      const refused = await injectJson(t.app, '/api/register', { email: 'new@example.com' });
      assert.deepEqual([refused.status, refused.json().code], [503, 'keys_recovering']);

      // restored from its files: the key works again, with no restart of the gateway
      await redis.stop();
      rmSync(join(redis.dir, 'appendonlydir'), { recursive: true });
      renameSync(join(redis.dir, 'saved'), join(redis.dir, 'appendonlydir'));
      await redis.start();
      await within(10_000, async () => (await health(t)).status === 'ok');
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200);
      await injectRegister(t.app, 'after@example.com');
      console.log(`emptied Redis named in /health ${took} ms after it came back`);

      // flushed, and no copy: the operator accepts the loss; old keys are told so, new ones issued
      await ask(redis.port, (r) => r.flushall());
      await within(10_000, async () => (await health(t)).status === 'store_data_lost');
      const cli = await runAccounts({ REDIS_URL: redis.url }, 'accept-loss');
      assert.equal(cli.status, 0, cli.stderr);
      assert.match(cli.stdout, /^loss accepted: new accounts start after 2 and new keys after 2;/);
      await within(10_000, async () => (await health(t)).status === 'ok');
      t.clock.advance(2_000);
      const lost = await injectGet(t.app, '/api/grains', key);
      assert.equal(lost.status, 401);
      assert.equal(lost.json().code, 'keys_lost');
      assert.match(lost.json().error, /lost its data on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: a key issued before then/);
      const fresh = await injectRegister(t.app, 'kept@example.com');
      assert.equal((await injectGet(t.app, '/api/grains', fresh)).status, 200);
      const row = (await t.store.show('kept@example.com'))!;
      // ids are drawn at random (a failover's new primary cannot hand one out twice): none is the lost data's
      assert.notEqual(row.id, first.id, 'no id of the lost data taken again');
      assert.notEqual(row.keys[0]!.id, first.keys[0]!.id, 'no id of the lost data taken again');
      const again = await runAccounts({ REDIS_URL: redis.url }, 'accept-loss');
      assert.equal(again.status, 1);
      assert.match(again.stderr, /nothing to accept/);
      await t.close();
      const log = t.logs.join('');
      for (const event of ['store_data_lost', 'store_restored', 'store_loss_accepted'])
        assert.match(log, new RegExp(`"event":"${event}"`));
    } finally {
      await t.close();
    }
  });
});
