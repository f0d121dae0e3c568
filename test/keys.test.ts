// The key rules (docs/contract.md, Keys and registration), on both stores, asked of the gateway's app: a key's
// quota is its own, registering again revokes nothing, a presented key of the same account is
// rotated, a key revokes itself, an account holds at most 5 live keys, and stores written before
// keys had their own ids are migrated without losing a key or a counter.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { MESSAGES } from '../gateway/errors.ts';
import { digestBytes, digestHex, generateKey, hashKey } from '../gateway/keys.ts';
import { encodeWindows } from '../gateway/store/sqlite/window-snapshot.ts';
import { tempDir } from './helpers/dataset.ts';
import { errorJson } from './helpers/errors.ts';
import { inject, injectGet, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';
import { fileRedis, redisSkipReason, uniquePrefix } from './helpers/redis.ts';
import { suite } from './helpers/suite.ts';

const redisSkip = await redisSkipReason();
const redisUrl = fileRedis();
const json = { 'content-type': 'application/json' };
const status = async (t: TestApp, key: string) => (await injectGet(t.app, '/api/grains', key)).status;
const revoke = (t: TestApp, key?: string) =>
  inject(t.app, { url: '/api/keys/current', method: 'DELETE', headers: key ? { 'x-api-key': key } : {} });

async function untilStoreReady(t: TestApp) {
  for (let i = 0; i < 100; i++) {
    if ((await injectGet(t.app, '/health')).json().store === 'ok') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the store did not become ready');
}

const stores: [name: string, env: () => Promise<Record<string, string>>, skip: string | false][] = [
  ['embedded (SQLite)', async () => ({}), false],
  ['Redis', async () => ({ REDIS_URL: await redisUrl(), REDIS_KEY_PREFIX: uniquePrefix() }), redisSkip],
];

for (const [name, env, skip] of stores) {
  suite(`key rules, ${name}`, skip, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp({ ...(await env()), RATE_LIMIT_PER_HOUR: '3', REGISTER_LIMIT_PER_HOUR: '1000' });
      await untilStoreReady(t);
    });
    after(() => t.close());

    it('registering the same e-mail again issues another key and revokes nothing', async () => {
      const a = await injectRegister(t.app, 'again@example.com');
      const b = await injectRegister(t.app, ' Again@Example.com ');
      assert.notEqual(a, b);
      assert.deepEqual([await status(t, a), await status(t, b)], [200, 200]);
    });

    it("each key's hourly quota is its own", async () => {
      const a = await injectRegister(t.app, 'quota@example.com');
      const b = await injectRegister(t.app, 'quota@example.com');
      for (let i = 0; i < 3; i++) assert.equal(await status(t, a), 200);
      const refused = await injectGet(t.app, '/api/grains', a);
      assert.equal(refused.status, 429);
      const other = await injectGet(t.app, '/api/grains', b);
      assert.equal(other.status, 200);
      assert.equal(other.headers['x-ratelimit-used'], '1');
      assert.equal(other.headers['x-ratelimit-remaining'], '2');
    });

    it('a live key of the same account sent with the registration is replaced by the new one', async () => {
      const a = await injectRegister(t.app, 'rotate@example.com');
      const b = await injectRegister(t.app, 'rotate@example.com');
      const c = await injectRegister(t.app, 'rotate@example.com', { 'x-api-key': a });
      assert.deepEqual([await status(t, a), await status(t, b), await status(t, c)], [401, 200, 200]);
    });

    it('a key of another account sent with a registration revokes nothing', async () => {
      const mine = await injectRegister(t.app, 'mine@example.com');
      const theirs = await injectRegister(t.app, 'theirs@example.com', { 'x-api-key': mine });
      assert.deepEqual([await status(t, mine), await status(t, theirs)], [200, 200]);
    });

    it('a key revokes itself: 204, then 401 for it and for another revocation; other keys go on', async () => {
      const a = await injectRegister(t.app, 'self@example.com');
      const b = await injectRegister(t.app, 'self@example.com');
      const done = await revoke(t, a);
      assert.equal(done.status, 204);
      assert.equal(done.body.length, 0);
      assert.equal(done.headers['cache-control'], 'no-store');
      assert.deepEqual([await status(t, a), await status(t, b)], [401, 200]);
      const again = await revoke(t, a);
      assert.equal(again.status, 401);
      assert.deepEqual(again.json(), errorJson('invalidKey', 401));
      assert.equal((await revoke(t)).status, 401);
      assert.equal((await revoke(t, generateKey())).status, 401);
    });

    it(
      'an account holds at most 5 live keys: ' + 'the sixth is refused with 409 until one is revoked or rotated',
      async () => {
        const keys: string[] = [];
        for (let i = 0; i < 5; i++) keys.push(await injectRegister(t.app, 'five@example.com'));
        const body = JSON.stringify({ email: 'five@example.com' });
        const refused = await inject(t.app, { url: '/api/register', method: 'POST', headers: json, body });
        assert.equal(refused.status, 409);
        assert.deepEqual(refused.json(), errorJson('tooManyKeys', 409));
        assert.match(MESSAGES.tooManyKeys, /DELETE \/api\/keys\/current/);
        for (const k of keys) assert.equal(await status(t, k), 200, 'a refused registration changes nothing');
        const rotated = await injectRegister(t.app, 'five@example.com', { 'x-api-key': keys[0]! });
        assert.equal(await status(t, keys[0]!), 401);
        assert.equal((await revoke(t, keys[1]!)).status, 204);
        const sixth = await injectRegister(t.app, 'five@example.com');
        assert.deepEqual([await status(t, rotated), await status(t, sixth)], [200, 200]);
      },
    );
  });
}

describe('stores written before keys had ids of their own are migrated at start', () => {
  const now = Date.UTC(2026, 10, 22, 12);
  it('embedded: every key works, revoked ones stay revoked, and the hour goes on counting', async () => {
    const stateDir = tempDir('legacy');
    const db = new Database(join(stateDir, 'gateway.sqlite'));
    db.exec(`CREATE TABLE accounts (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, key_hash BLOB UNIQUE,
      created_at INTEGER NOT NULL, key_issued_at INTEGER, revoked_at INTEGER);
      CREATE TABLE window_snapshots (kind TEXT PRIMARY KEY, saved_at INTEGER NOT NULL, data BLOB NOT NULL);`);
    const live = generateKey();
    const gone = generateKey();
    const insert = db.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, ?, ?)');
    insert.run(7, 'old@example.com', digestBytes(hashKey(live)), now - 9_000, now - 9_000, null);
    insert.run(9, 'gone@example.com', null, now - 9_000, now - 9_000, now - 5_000);
    // account 7 used 2 of its hour (a version 1 snapshot: subject, start, count)
    const v1 = encodeWindows(new Map([['7', { start: now - 1_000, count: 2, last: 0, unsaved: 0 }]]));
    const legacy = Buffer.concat([Buffer.from([1]), stripLast(v1.subarray(1))]);
    db.prepare('INSERT INTO window_snapshots VALUES (?, ?, ?)').run('requests', now, legacy);
    db.close();
    const t = await startTestApp({ STATE_DIR: stateDir, RATE_LIMIT_PER_HOUR: '5' });
    try {
      t.clock.now = now;
      const res = await injectGet(t.app, '/api/grains', live);
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-ratelimit-used'], '3', 'the hour counted before the migration goes on');
      assert.equal(await status(t, gone), 401);
      const next = await injectRegister(t.app, 'new@example.com');
      assert.equal(await status(t, next), 200);
      const fresh = await injectGet(t.app, '/api/grains', next);
      assert.equal(fresh.headers['x-ratelimit-used'], '2', 'a new key does not inherit an old account window');
    } finally {
      await t.close();
    }
  });

  it('Redis: every key works and the hour goes on counting', { skip: redisSkip }, async () => {
    const prefix = uniquePrefix();
    const r = new Redis(await redisUrl());
    const live = generateKey();
    const hex = digestHex(hashKey(live));
    await r.set(`${prefix}seq`, '4');
    await r.set(`${prefix}email:old@example.com`, '4');
    await r.hset(
      `${prefix}account:4`,
      'email',
      'old@example.com',
      'created_at',
      now,
      'key_hash',
      hex,
      'key_issued_at',
      now,
    );
    await r.zadd(`${prefix}accounts`, 4, '4');
    await r.set(`${prefix}key:${hex}`, '4\told@example.com');
    await r.hset(`${prefix}window:req:4`, 'start', now - 1_000, 'count', 2);
    const t = await startTestApp({ REDIS_URL: await redisUrl(), REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PER_HOUR: '5' });
    try {
      await untilStoreReady(t);
      t.clock.now = now;
      const res = await injectGet(t.app, '/api/grains', live);
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-ratelimit-used'], '3');
      for (let i = 0; i < 50 && (await r.get(`${prefix}key:${hex}`)) === '4\told@example.com'; i++) {
        await new Promise((res) => setTimeout(res, 20));
      }
      assert.equal(await r.get(`${prefix}key:${hex}`), '4\t4\told@example.com');
      assert.equal(await r.hget(`${prefix}account:4`, 'key_hash'), null);
      const next = await injectRegister(t.app, 'new@example.com');
      assert.ok(Number((await r.get(`${prefix}seq:key`)) ?? 0) > 4, 'new keys are numbered past the old accounts');
      assert.equal(await status(t, next), 200);
    } finally {
      await t.close();
      r.disconnect();
    }
  });
});

/** A version 2 window record without its `last` (the 8 bytes at its end): version 1's layout. */
function stripLast(records: Buffer): Buffer {
  const n = records.readUInt16LE(0);
  return records.subarray(0, 2 + n + 12);
}
