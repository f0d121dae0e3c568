// tier: full (a Sentinel group: a primary, two replicas and three sentinels of the test's own)
// Failovers in which the old primary stays reachable (docs/operations.md, Redis in production, "A
// failover is not a loss"): a planned SENTINEL FAILOVER, a primary that hangs (DEBUG SLEEP) and one
// that is paused (SIGSTOP) while its replicas lag. Under a registration load through two gateways,
// one with REDIS_MIN_REPLICAS 0 and one with 1, each ends with every key answered 201 working on
// the new primary, registration back without an operator, /health not "ok" while the store hangs,
// and a key's hour never below what the gateways saw it reach.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { runAccounts } from './helpers/gateway.ts';
import { injectGet, injectJson, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';
import { freePort, redisSkipReason, within } from './helpers/redis.ts';
import { ask, GROUP_NAME, GROUP_PASSWORD, type RedisGroup, startRedisGroup } from './helpers/redis-group.ts';
import { suite } from './helpers/suite.ts';

const skip = await redisSkipReason();
const PREFIX = 'gg:';
const LIMIT = 100;

const health = async (t: TestApp) => (await injectGet(t.app, '/health')).json();
const sha = (key: string) => createHash('sha256').update(key).digest('hex');

/** Registrations through every gateway, about 10 a second each, until stopped. */
function registrationLoad(gateways: TestApp[]) {
  const issued: string[] = [];
  const answers: { gateway: number; at: number; status: number; code?: string }[] = [];
  let stopped = false;
  let n = 0;
  const loops = gateways.map(async (t, gateway) => {
    while (!stopped) {
      const res = await injectJson(t.app, '/api/register', { email: `switch-${n++}@example.com` });
      answers.push({ gateway, at: Date.now(), status: res.status, code: res.json().code });
      if (res.status === 201) issued.push(res.json().api_key);
      else assert.ok(['store_unavailable', 'key_not_replicated'].includes(res.json().code), res.text());
      await sleep(100);
    }
  });
  return {
    issued,
    answers,
    /** When each gateway answered 201 again after `t`, in ms after it (the load must still run). */
    async backAfter(t: number, ms: number) {
      return Promise.all(
        gateways.map(async (_, gateway) => {
          const at = () => answers.find((a) => a.gateway === gateway && a.at > t && a.status === 201)?.at;
          await within(ms, async () => at() !== undefined);
          return at()! - t;
        }),
      );
    },
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

suite('redis failovers the old primary survives', skip, () => {
  let group: RedisGroup;
  let gateways: TestApp[] = [];
  const env = (minReplicas: string) => ({
    REDIS_SENTINELS: group.sentinelList,
    REDIS_SENTINEL_NAME: GROUP_NAME,
    REDIS_PASSWORD: GROUP_PASSWORD,
    REDIS_SENTINEL_PASSWORD: GROUP_PASSWORD,
    REDIS_MIN_REPLICAS: minReplicas,
    REGISTER_LIMIT_PER_HOUR: '100000',
    RATE_LIMIT_PER_HOUR: String(LIMIT),
  });
  const primary = async () => {
    const port = await group.primaryPort();
    return group.servers.find((s) => s.port === port)!;
  };
  /** Waits for the sentinels to name a primary other than `old`; when they did, in ms after `t0`. */
  const switched = async (old: number, t0: number) => {
    await within(20_000, async () => (await group.primaryPort()) !== old);
    return Date.now() - t0;
  };
  /** Every key answered 201 is held by the primary and opens the API on both gateways. */
  const allWork = async (issued: string[]) => {
    const port = await group.primaryPort();
    const missing = await ask(
      port,
      async (r) => (await Promise.all(issued.map((k) => r.exists(`${PREFIX}key:${sha(k)}`)))).filter((h) => h === 0),
      GROUP_PASSWORD,
    );
    assert.equal(missing.length, 0, `${missing.length} of ${issued.length} keys answered 201 are gone`);
    for (const t of gateways) {
      t.clock.advance(2_000); // past the trust in a verified key: each is asked of Redis
      const refused = (await Promise.all(issued.map((k) => injectGet(t.app, '/api/changelog?limit=1', k)))).filter(
        (r) => r.status !== 200,
      );
      assert.deepEqual(
        refused.map((r) => r.status),
        [],
        'every key answered 201 works',
      );
    }
  };
  const noLoss = () => {
    for (const t of gateways) assert.doesNotMatch(t.logs.join(''), /"event":"store_data_lost"/);
  };

  before(async () => {
    group = await startRedisGroup({ replicas: 2, args: ['--enable-debug-command', 'local'] });
    gateways = [await startTestApp(env('0')), await startTestApp(env('1'))];
    for (const t of gateways) await within(10_000, async () => (await health(t)).status === 'ok');
  });
  after(async () => {
    if (process.env.DUMP)
      for (const t of gateways)
        console.log(
          t.logs
            .filter((l) => /store_|key_/.test(l))
            .join('')
            .slice(0, 6000),
        );
    for (const t of gateways) await t.close();
    await group?.stop();
  });

  it("names each misconfiguration within 5 s, in Redis's or the sentinels' words", async () => {
    const base = env('0');
    const nobody = `127.0.0.1:${await freePort()},127.0.0.1:${await freePort()}`;
    const cases: [name: string, env: Record<string, string | undefined>, reason: RegExp][] = [
      [
        'a wrong REDIS_PASSWORD',
        { REDIS_PASSWORD: 'wrong' },
        /^Redis is unreachable \(WRONGPASS invalid username-password/,
      ],
      ['no REDIS_PASSWORD', { REDIS_PASSWORD: undefined }, /^Redis is unreachable \(NOAUTH Authentication required/],
      [
        'a wrong REDIS_SENTINEL_PASSWORD',
        { REDIS_SENTINEL_PASSWORD: 'wrong' },
        /^Redis is unreachable \(no sentinel answers: 127\.0\.0\.1:\d+ \(WRONGPASS/,
      ],
      [
        'a name the sentinels do not monitor',
        { REDIS_SENTINEL_NAME: 'nope' },
        /^Redis is unreachable \(the sentinels at 127\.0\.0\.1:\d+, .* monitor no primary named "nope" \(REDIS_/,
      ],
      [
        'no sentinel answering',
        { REDIS_SENTINELS: nobody },
        /^Redis is unreachable \(no sentinel answers: 127\.0\.0\.1:\d+ \(connect ECONNREFUSED .*\); 127/,
      ],
    ];
    const started = Date.now();
    const apps = await Promise.all(
      cases.map(([, changes]) => {
        const e: Record<string, string> = { ...base };
        for (const [name, value] of Object.entries(changes))
          if (value === undefined) delete e[name];
          else e[name] = value;
        return startTestApp(e);
      }),
    );
    try {
      await Promise.all(
        cases.map(async ([name, , reason], i) => {
          const t = apps[i]!;
          await within(5_000 - (Date.now() - started), async () => reason.test((await health(t)).reason ?? ''));
          assert.equal((await health(t)).status, 'store_unavailable', name);
          assert.match(
            t.logs.join(''),
            /"event":"store_(unavailable|sentinels)","store":"redis","reason":"(WRONGPASS|NOAUTH|no sentinel|the sent)/,
            name,
          );
        }),
      );
    } finally {
      await Promise.all(apps.map((t) => t.close()));
    }
    // the operators' command says it in the same words
    const cli = await runAccounts({ ...base, REDIS_SENTINEL_NAME: 'nope' }, 'list');
    assert.equal(cli.status, 1);
    assert.match(cli.stderr, /monitor no primary named "nope" \(REDIS_SENTINEL_NAME\)/);
    const wrong = await runAccounts({ ...base, REDIS_PASSWORD: 'wrong' }, 'list');
    assert.match(wrong.stderr, /refused the connection: WRONGPASS/);
  });

  it('follows four planned failovers in a row, loses no key and needs no operator', async () => {
    const load = registrationLoad(gateways);
    for (const round of [1, 2, 3, 4]) {
      await sleep(5_000); // as operators space them: the last switch's replicas settled
      const old = await group.primaryPort();
      // refused (NOGOODSLAVE, INPROG) while the last switch's replicas still resync: asked again
      const sentinel = group.sentinels[round % 3]!.port;
      const failover = (c: Redis) => c.call('SENTINEL', 'FAILOVER', GROUP_NAME).then(() => true);
      await within(15_000, () => ask(sentinel, failover, GROUP_PASSWORD).catch(() => false));
      const t0 = Date.now();
      const at = await switched(old, t0);
      const back = await load.backAfter(t0 + at, 5_000);
      console.log(`planned failover ${round}: switched after ${at} ms; 201 again ${back.join(' / ')} ms later`);
    }
    await sleep(1_000);
    await load.stop();
    assert.ok(load.issued.length > 40, `${load.issued.length} keys issued`);
    await allWork(load.issued);
    noLoss();
  });

  it('names a hung primary within 3 s, follows the switch, and keeps every key', async () => {
    const load = registrationLoad(gateways);
    await sleep(1_000);
    const hung = await primary();
    const t0 = Date.now();
    // DEBUG SLEEP blocks the asking connection too: not awaited
    const sleeping = ask(hung.port, (r) => r.call('DEBUG', 'SLEEP', '5'), GROUP_PASSWORD).catch(() => {});
    const named = await Promise.all(
      gateways.map(async (t) => {
        await within(3_000, async () => (await health(t)).status !== 'ok');
        return Date.now() - t0;
      }),
    );
    assert.match(
      (await health(gateways[0]!)).reason,
      new RegExp(`^Redis at 127\\.0\\.0\\.1:${hung.port} did not answer`),
    );
    const at = await switched(hung.port, t0);
    const back = await load.backAfter(t0 + at, 5_000);
    await sleeping;
    await within(15_000, async () => (await group.roleOf(hung)) === 'slave');
    await sleep(1_000);
    await load.stop();
    console.log(
      `DEBUG SLEEP 5: /health not ok after ${named.join(' / ')} ms; switched after ${at} ms; ` +
        `201 again ${back.join(' / ')} ms later`,
    );
    await allWork(load.issued);
    noLoss();
  });

  it('keeps the keys and the hour a paused primary held alone', async () => {
    const since = new Date().toISOString();
    const reasserted = () =>
      gateways.flatMap((t) =>
        t.logs
          .join('')
          .split('\n')
          .filter((l) => l.includes('"event":"store_reasserted"'))
          .map((l) => JSON.parse(l))
          .filter((e) => e.time >= since),
      );
    // a key that spent 60 of its hour, held by every replica
    const key = await injectRegister(gateways[0]!.app, 'hour@example.com');
    const spend = async (n: number, via: TestApp) => {
      const statuses = await Promise.all(Array.from({ length: n }, () => injectGet(via.app, '/api/grains', key)));
      return statuses.filter((r) => r.status === 200).length;
    };
    let served = await spend(60, gateways[0]!);
    const old = await primary();
    await ask(old.port, (r) => r.call('WAIT', '2', '2000'), GROUP_PASSWORD);
    const load = registrationLoad(gateways);
    // the replicas fall behind (their link to the primary broken, its password wrong): what the primary
    // takes now (keys, the hour's last 40) is its alone
    const replicas = group.servers.filter((s) => s !== old);
    const masterauth = (password: string) =>
      Promise.all(
        replicas.map((r) =>
          ask(
            r.port,
            async (c) => {
              await c.config('SET', 'masterauth', password);
              await c.call('CLIENT', 'KILL', 'TYPE', 'master');
            },
            GROUP_PASSWORD,
          ),
        ),
      );
    await masterauth('not-the-password');
    served += (await spend(20, gateways[0]!)) + (await spend(20, gateways[1]!));
    assert.equal(served, LIMIT);
    assert.equal((await injectGet(gateways[1]!.app, '/api/grains', key)).status, 429);
    // registrations answered 201 by the primary alone (REDIS_MIN_REPLICAS 0); the other gateway's
    // refused, and its /health says why
    const before = load.issued.length;
    await within(5_000, async () => load.issued.length > before + 5);
    await within(3_000, async () => (await health(gateways[1]!)).store === 'degraded');
    assert.match((await health(gateways[1]!)).reason, /replicas.*REDIS_MIN_REPLICAS/);
    const alone = load.issued.length - before;
    // then the primary stops, and the sentinels promote a replica that lacks it all
    old.signal('SIGSTOP');
    const t0 = Date.now();
    await masterauth(GROUP_PASSWORD);
    const at = await switched(old.port, t0);
    const back = await load.backAfter(t0 + at, 5_000);
    old.signal('SIGCONT');
    await within(15_000, async () => (await group.roleOf(old)) === 'slave');
    // the hour goes on from what the gateways saw, on both
    for (let i = 0; i < 10; i++) served += await spend(1, gateways[i % 2]!);
    await load.stop();
    console.log(
      `SIGSTOP with lagging replicas: switched after ${at} ms; 201 again ${back.join(' / ')} ms later; ` +
        `${alone} keys answered by the primary alone, ${load.issued.length} in all; the key served ${served} times`,
    );
    assert.ok(served <= LIMIT + 5, `served ${served} times in an hour of ${LIMIT}`);
    // the new primary lacked them: the gateways wrote them again
    const mended = reasserted();
    assert.ok(mended.reduce((n, e) => n + e.restored, 0) >= alone, JSON.stringify(mended));
    assert.ok(
      mended.some((e) => e.windows > 0),
      JSON.stringify(mended),
    );
    await allWork(load.issued);
    const row = (await gateways[0]!.store.show('hour@example.com'))!;
    assert.ok(
      Math.abs(row.keys[0]!.requests - served) <= 5,
      `accounts show says ${row.keys[0]!.requests}, served ${served}`,
    );
    noLoss();
  });
});
