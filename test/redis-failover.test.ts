// tier: full (a Sentinel group: two redis-servers and three sentinels of the test's own)
// Redis through Sentinel (docs/operations.md, Redis in production): gateways follow a failover by
// themselves and never write to the old primary when its supervisor brings it back; with
// REDIS_MIN_REPLICAS a 201 means a replica holds the key, so no key answered 201 is lost, and
// short of replicas the key is taken back (503) and nothing a client holds changes; a gateway
// pointed at a replica says so. Two gateways, asked in process, on one group.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, it } from 'node:test';
import { errorJson } from './helpers/errors.ts';
import { injectGet, injectJson, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';
import { recoveryToken } from './helpers/mail.ts';
import { redisSkipReason, within } from './helpers/redis.ts';
import { ask, GROUP_NAME, GROUP_PASSWORD, type RedisGroup, startRedisGroup } from './helpers/redis-group.ts';
import { suite } from './helpers/suite.ts';

const skip = await redisSkipReason();
const PREFIX = 'gg:';

const health = async (t: TestApp) => (await injectGet(t.app, '/health')).json();
const sha = (key: string) => createHash('sha256').update(key).digest('hex');

suite('redis through sentinel', skip, () => {
  let group: RedisGroup;
  let gateways: TestApp[] = [];
  before(async () => {
    group = await startRedisGroup();
    const env = {
      REDIS_SENTINELS: group.sentinelList,
      REDIS_SENTINEL_NAME: GROUP_NAME,
      REDIS_PASSWORD: GROUP_PASSWORD,
      REDIS_SENTINEL_PASSWORD: GROUP_PASSWORD,
      REDIS_MIN_REPLICAS: '1',
      REGISTER_LIMIT_PER_HOUR: '100000',
      RATE_LIMIT_PER_HOUR: '100000',
    };
    gateways = [await startTestApp(env), await startTestApp(env)];
    for (const t of gateways) await within(10_000, async () => (await health(t)).status === 'ok');
  });
  after(async () => {
    for (const t of gateways) await t.close();
    await group?.stop();
  });

  it('follows a primary killed under registration load, and loses none of the keys answered 201', async () => {
    const { first, second } = group;
    for (const t of gateways) assert.equal((await health(t)).store_primary, `127.0.0.1:${first.port}`);
    const issued: string[] = [];
    const statuses = new Map<number, number>();
    let stop = false;
    let n = 0;
    const load = gateways.flatMap((t) =>
      [1, 2, 3].map(async () => {
        while (!stop) {
          const res = await injectJson(t.app, '/api/register', { email: `load-${n++}@example.com` });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 201) issued.push(res.json().api_key);
          else {
            // refused while there is no primary (or it is not yet looked at), or no replica
            assert.ok(['store_unavailable', 'key_not_replicated'].includes(res.json().code), res.text());
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      }),
    );
    await within(10_000, async () => issued.length >= 50);
    await first.stop(); // kill -9
    const killedAt = Date.now();
    await within(15_000, async () => (await group.primaryPort()) === second.port);
    const promoted = Date.now() - killedAt;
    // every gateway counts on the new primary, though it has no replica yet: registration waits for
    // one, and /health says so rather than "ok"
    const key = issued[0]!;
    for (const t of gateways)
      await within(10_000, async () => {
        const h = await health(t);
        return h.store === 'degraded' && h.store_primary === `127.0.0.1:${second.port}`;
      });
    assert.match(
      (await health(gateways[0]!)).reason,
      new RegExp(`^Redis at 127\\.0\\.0\\.1:${second.port} has 0 connected replicas and REDIS_MIN_REPLICAS asks for 1`),
    );
    const followed = Date.now() - killedAt;
    const use = await injectGet(gateways[1]!.app, '/api/grains', key);
    assert.equal(use.status, 200);

    // the supervisor brings the old primary back: Sentinel makes it a replica, no gateway writes to it
    await first.start();
    await within(15_000, async () => (await group.roleOf(first)) === 'slave');
    const before = issued.length;
    await within(15_000, async () => issued.length > before + 50); // keys issued again, held by the replica
    stop = true;
    await Promise.all(load);

    const missing = await ask(
      second.port,
      async (r) => {
        const held = await Promise.all(issued.map((k) => r.exists(`${PREFIX}key:${sha(k)}`)));
        return held.filter((h) => h === 0).length;
      },
      GROUP_PASSWORD,
    );
    assert.equal(missing, 0, `of ${issued.length} keys answered 201`);
    for (const t of gateways) {
      t.clock.advance(2_000); // past the 1 s trust in a verified key: each is asked of Redis
      const results = await Promise.all(issued.map((k) => injectGet(t.app, '/api/grains/CWRS', k)));
      assert.equal(results.filter((r) => r.status !== 200).length, 0);
    }
    await gateways[0]!.close();
    const log = gateways[0]!.logs.join('');
    assert.match(log, new RegExp(`"event":"store_primary","store":"redis","primary":"127.0.0.1:${second.port}"`));
    assert.equal(
      log.match(new RegExp(`"primary":"127\\.0\\.0\\.1:${first.port}"`, 'g'))?.length,
      1,
      'the old primary named once: at start, never after it came back',
    );
    gateways = gateways.slice(1);
    console.log(
      `sentinel failover: promoted ${promoted} ms after the kill, both gateways on the new primary after ` +
        `${followed} ms; ${issued.length} keys answered 201, all held; ` +
        `statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
  });

  it('takes keys back when no replica acknowledges them, and changes nothing a client holds', async () => {
    const t = gateways[0]!;
    // the last test's old primary is a replica again and followed by this gateway's look
    await within(15_000, async () => (await health(t)).status === 'ok');
    const primary = (await group.primaryPort()) === group.first.port ? group.first : group.second;
    const replica = primary === group.first ? group.second : group.first;
    const emails = ['careful-1@example.com', 'careful-2@example.com', 'careful-3@example.com'];
    const old = await Promise.all(emails.map((e) => injectRegister(t.app, e)));
    // two keys, both revoked by the recovery and both given back when its key is taken back
    const lost = await injectRegister(t.app, 'lost-keys@example.com');
    const lostToo = await injectRegister(t.app, 'lost-keys@example.com');
    const token = await recoveryToken(t.app, t.stateDir, 'lost-keys@example.com');
    await replica.stop();
    // three rotations and a recovery at once, each key taken back
    const [refused, recovered] = await Promise.all([
      Promise.all(emails.map((e, i) => injectJson(t.app, '/api/register', { email: e }, { 'x-api-key': old[i]! }))),
      injectJson(t.app, '/api/keys/recover/confirm', { token }),
    ]);
    for (const res of [...refused, recovered]) {
      assert.equal(res.status, 503);
      assert.equal(res.headers['retry-after'], '5');
      assert.deepEqual(res.json(), errorJson('keyNotReplicated', 503));
    }
    t.clock.advance(2_000);
    for (const key of [...old, lost, lostToo])
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200, 'rotated and recovered keys live again');
    const row = (await t.store.show('careful-1@example.com'))!;
    assert.deepEqual(
      row.keys.map((k) => k.revoked_at === null),
      [true, false],
      'the old key live, the one taken back revoked',
    );
    await replica.start();
    // a server that restarts as a primary (no replicaof in its arguments) is made a replica by the
    // sentinels once they see the role is wrong: up to their 10 s INFO period and more under load
    await within(30_000, async () => (await group.roleOf(replica)) === 'slave');
    await within(15_000, async () => {
      const res = await injectJson(t.app, '/api/register', { email: 'careful-after@example.com' });
      return res.status === 201;
    });
    // the recovery link works again, now that a replica holds what it issues
    const used = await injectJson(t.app, '/api/keys/recover/confirm', { token });
    assert.equal(used.status, 201, used.text());
    t.clock.advance(2_000);
    assert.equal((await injectGet(t.app, '/api/grains', lost)).status, 401, 'the recovery revoked the old key');
  });

  it('says so when pointed at a replica, and issues nothing there', async () => {
    const replicaPort = (await group.primaryPort()) === group.first.port ? group.second.port : group.first.port;
    const t = await startTestApp({ REDIS_URL: `redis://:${GROUP_PASSWORD}@127.0.0.1:${replicaPort}` });
    try {
      await within(5_000, async () => (await health(t)).store === 'unavailable');
      const h = await health(t);
      assert.equal(h.status, 'store_unavailable');
      assert.match(h.reason, new RegExp(`^Redis at 127\\.0\\.0\\.1:${replicaPort} is a replica and refuses writes`));
      const res = await injectJson(t.app, '/api/register', { email: 'replica@example.com' });
      assert.equal(res.status, 503);
    } finally {
      await t.close();
    }
  });
});
