// UPSTREAM_URL: the same answers as local mode, with the bodies streamed from a static origin.
import assert from 'node:assert/strict';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir } from './helpers/dataset.ts';
import { errorJson } from './helpers/errors.ts';
import { get, realSiteDir, register, request, startTestGateway, type TestGateway } from './helpers/gateway.ts';
import { untilStoreReady } from './helpers/inject.ts';
import { fileRedis, redisSkipReason, uniquePrefix } from './helpers/redis.ts';
import { type StaticOrigin, startStaticOrigin } from './helpers/static-origin.ts';
import { suite } from './helpers/suite.ts';

describe('upstream static origin', () => {
  let origin: StaticOrigin;
  let local: TestGateway;
  let remote: TestGateway;
  let localKey: string;
  let remoteKey: string;
  before(async () => {
    origin = await startStaticOrigin(realSiteDir());
    local = await startTestGateway({ RATE_LIMIT_PER_HOUR: '100000' });
    remote = await startTestGateway({
      UPSTREAM_URL: `${origin.url}/`,
      UPSTREAM_TIMEOUT_MS: '1000', // long enough for the build to load on a busy machine
      RATE_LIMIT_PER_HOUR: '100000',
      SITE_DIR: '/nonexistent',
    });
    localKey = await register(local.url, 'local@example.com');
    remoteKey = await register(remote.url, 'remote@example.com');
  });
  after(async () => {
    await Promise.all([local.close(), remote.close()]);
    await origin.close();
  });

  const paths = [
    '/api/grains',
    '/api/grains/CWRS',
    '/api/grains/barley_gp_ce',
    '/api/changelog',
    '/api/changelog?grain_id=corn_cw&limit=7',
    '/api/changelog?limit=1', // its plain form stored only as gzip (build/emit/emit.ts): unzipped as it comes
    '/api/openapi.json',
  ];
  const encodings = [undefined, 'gzip', 'br', 'gzip, deflate, br'];
  for (const path of paths) {
    it(`answers ${path} with the bytes, ETags and encodings of local mode`, async () => {
      for (const enc of encodings) {
        // one Host for both gateways: the OpenAPI document names the origin it was asked from
        const h: Record<string, string> = { host: 'grain.test', ...(enc ? { 'accept-encoding': enc } : {}) };
        const a = await get(local.url, path, localKey, h);
        const b = await get(remote.url, path, remoteKey, h);
        assert.equal(b.status, 200, b.text());
        assert.deepEqual(b.body, a.body, `${path} ${enc}`);
        for (const name of ['etag', 'content-type', 'content-length', 'content-encoding', 'cache-control', 'vary']) {
          assert.equal(b.headers[name], a.headers[name], `${name} of ${path} ${enc}`);
        }
        const nm = await get(remote.url, path, remoteKey, { ...h, 'if-none-match': b.headers.etag! });
        assert.equal(nm.status, 304);
        assert.equal(nm.body.length, 0);
      }
    });
  }

  it('asks the origin for the precompressed file only, without the key or conditionals', async () => {
    origin.requests.length = 0;
    await get(remote.url, '/api/grains/CPSR', remoteKey, { 'accept-encoding': 'br', 'if-none-match': '"stale"' });
    const bodies = origin.requests.filter((r) => r.path.includes('/bodies/'));
    assert.equal(bodies.length, 1);
    const r = bodies[0]!;
    assert.match(r.path, /^\/builds\/[0-9a-f]{16}\/bodies\/[0-9a-f]{32}\.json\.br$/);
    assert.equal(r.headers['x-api-key'], undefined);
    assert.equal(r.headers['if-none-match'], undefined);
    assert.equal(r.headers['accept-encoding'], 'identity');
    // a plain form stored only as gzip: that file, asked for as it is
    origin.requests.length = 0;
    await get(remote.url, '/api/changelog?limit=1', remoteKey, { 'if-none-match': '"stale"' });
    const [gz, ...more] = origin.requests.filter((r) => r.path.includes('/bodies/'));
    assert.equal(more.length, 0);
    assert.match(gz!.path, /^\/builds\/[0-9a-f]{16}\/bodies\/[0-9a-f]{32}\.json\.gz$/);
    assert.equal(gz!.headers['x-api-key'], undefined);
    assert.equal(gz!.headers['if-none-match'], undefined);
    assert.equal(gz!.headers['accept-encoding'], 'identity');
    // an origin that labels that file with its coding: the same bytes, unzipped once
    const plain = await get(local.url, '/api/changelog?limit=1', localKey);
    origin.labelGzip = true;
    try {
      const labelled = await get(remote.url, '/api/changelog?limit=1', remoteKey);
      assert.equal(labelled.status, 200);
      assert.deepEqual(labelled.body, plain.body);
    } finally {
      origin.labelGzip = false;
    }
    // HEAD and 304 need no trip to the origin
    origin.requests.length = 0;
    const head = await request(remote.url, '/api/grains/CPSR', { method: 'HEAD', headers: { 'x-api-key': remoteKey } });
    assert.equal(head.status, 200);
    // (the gateway's polls of current.json may fall in this window: only body requests count)
    assert.deepEqual(
      origin.requests.filter((r) => r.path.includes('/bodies/')),
      [],
    );
  });

  it('504 when the origin is slower than UPSTREAM_TIMEOUT_MS, then recovers', async () => {
    const used = Number((await get(remote.url, '/api/grains/CANOLA', remoteKey)).headers['x-ratelimit-used']);
    origin.delayMs = 3_000;
    try {
      const res = await get(remote.url, '/api/grains/CANOLA', remoteKey);
      assert.equal(res.status, 504);
      assert.deepEqual(res.json(), errorJson('upstreamTimeout', 504));
      // docs/contract.md, Authentication and limits: not counted, and its headers say so
      assert.equal(res.headers['x-ratelimit-used'], String(used));
      assert.equal(res.headers['x-ratelimit-remaining'], String(100_000 - used));
      assert.match(String(res.headers.ratelimit), /^"default";r=\d+;t=\d+$/);
      const unzipped = await get(remote.url, '/api/changelog?limit=1', remoteKey);
      assert.equal(unzipped.status, 504, 'a plain form unzipped from the origin times out the same');
      assert.equal(unzipped.headers['x-ratelimit-used'], String(used));
    } finally {
      origin.delayMs = 0;
    }
    const next = await get(remote.url, '/api/grains/CANOLA', remoteKey);
    assert.equal(next.status, 200);
    assert.equal(next.headers['x-ratelimit-used'], String(used + 1), 'the 504 took nothing from the hour');
  });

  it('502 when the origin lacks the file, and when it is down; the gateway stays up', async () => {
    // an origin whose build lost its bodies, and one that goes away
    const partial = tempDir('partial-origin');
    cpSync(realSiteDir(), partial, { recursive: true });
    for (const d of readdirSync(join(partial, 'builds')))
      rmSync(join(partial, 'builds', d, 'bodies'), { recursive: true });
    const broken = await startStaticOrigin(partial);
    const doomed = await startStaticOrigin(realSiteDir());
    const a = await startTestGateway({ UPSTREAM_URL: broken.url, SITE_DIR: '/nonexistent' });
    const b = await startTestGateway({ UPSTREAM_URL: doomed.url, SITE_DIR: '/nonexistent' });
    try {
      // the form's page templates are missing too: its answer is a plain page, still with the key
      const form = await request(a.url, '/register', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=form-missing%40example.com',
      });
      assert.equal(form.status, 201);
      assert.equal(form.headers['cache-control'], 'no-store');
      assert.match(form.text(), /^<!doctype html>.*<h1>Your API key<\/h1><p><code>ggt_[A-Za-z0-9_-]{38}<\/code>/);
      const missing = await get(a.url, '/api/grains/SOYBEANS', await register(a.url, 'missing@example.com'));
      assert.equal(missing.status, 502);
      assert.deepEqual(missing.json(), errorJson('upstreamFailed', 502));
      assert.equal(missing.headers['x-ratelimit-used'], '0', 'a 502 is not counted');
      assert.equal(missing.headers['x-ratelimit-remaining'], '100');
      const unzipped = await get(a.url, '/api/changelog?limit=1', await register(a.url, 'gz-missing@example.com'));
      assert.equal(unzipped.status, 502, 'a plain form unzipped from the origin fails the same');
      assert.deepEqual(unzipped.json(), errorJson('upstreamFailed', 502));
      assert.equal(unzipped.headers['x-ratelimit-used'], '0');
      const key = await register(b.url, 'down@example.com');
      await doomed.close();
      const down = await get(b.url, '/api/grains/SOYBEANS', key);
      assert.equal(down.status, 502);
      assert.deepEqual(down.json(), errorJson('upstreamFailed', 502));
      assert.equal(down.headers['x-ratelimit-used'], '0');
      assert.equal((await get(b.url, '/api/grains/SOYBEANS', key)).headers['x-ratelimit-used'], '0', 'nor the next');
      assert.equal((await get(b.url, '/health')).status, 200);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await broken.close();
    }
  });
});

// docs/contract.md, Authentication and limits: a request the origin failed is taken back from the
// key's hour on Redis too, where the window is the server's.
const redisUrl = fileRedis();
suite('upstream failures on Redis', await redisSkipReason(), () => {
  it('a 502 is not counted: its headers and the next answer say so', async () => {
    const origin = await startStaticOrigin(realSiteDir());
    const g = await startTestGateway({
      UPSTREAM_URL: origin.url,
      SITE_DIR: '/nonexistent',
      REDIS_URL: await redisUrl(),
      REDIS_KEY_PREFIX: uniquePrefix(),
    });
    try {
      await untilStoreReady(g.gateway.app);
      const key = await register(g.url, 'upstream-redis@example.com');
      assert.equal((await get(g.url, '/api/grains/CWRS', key)).headers['x-ratelimit-used'], '1');
      await origin.close();
      const failed = await get(g.url, '/api/grains/CWRS', key);
      assert.equal(failed.status, 502);
      assert.equal(failed.headers['x-ratelimit-used'], '1');
      assert.equal(failed.headers['x-ratelimit-remaining'], '99');
      const again = await get(g.url, '/api/grains/CWRS', key);
      assert.equal(again.headers['x-ratelimit-used'], '1', 'the refund reached Redis before the next count');
      const account = await g.gateway.store.show('upstream-redis@example.com');
      assert.equal(account?.keys[0]?.requests, 1, "the key's total keeps only the answered request");
    } finally {
      await g.close();
      await origin.close().catch(() => {});
    }
  });
});
