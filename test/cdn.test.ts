// tier: full (Varnish)
// Behind a real CDN (docs/operations.md, "Behind a CDN"): Debian's Varnish with the shipped
// configuration in front of a real gateway. Keyed requests pass with their conditional headers,
// so a revalidation is a free 304 (also for a spent key) and the gateway counts what it must;
// nothing keyed is stored or shared between keys; brotli reaches the clients that take it; and
// the sync client reports what the gateway counted.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { brotliDecompressSync } from 'node:zlib';
import { syncMirror } from '../build/client/sync.ts';
import { publishSite } from '../build/publish/publish.ts';
import { buildSite } from './helpers/build.ts';
import { baseGrain, tempDir, writeDataset } from './helpers/dataset.ts';
import { get, register, request, startTestGateway, type TestGateway } from './helpers/gateway.ts';

/** Behind a CDN the pages name its origin (docs/operations.md, Behind a CDN), and are shared. */
const CDN_ORIGIN = 'https://grain.example.org';

import { suite } from './helpers/suite.ts';
import { startVarnish, type TestVarnish, varnishSkipReason } from './helpers/varnish.ts';

suite('behind Varnish', varnishSkipReason(), () => {
  let t: TestGateway;
  let cdn: TestVarnish;
  before(async () => {
    t = await startTestGateway({ RATE_LIMIT_PER_HOUR: '30', REGISTER_LIMIT_PER_HOUR: '100', PUBLIC_URL: CDN_ORIGIN });
    cdn = await startVarnish(t.url);
  });
  after(async () => {
    await cdn?.close();
    await t?.close();
  });
  /** The hour's count of a key, asked of the gateway itself with a free revalidation (also when spent). */
  const usedAtGateway = async (key: string) => {
    const probe = await get(
      t.url,
      '/api/changelog?limit=1',
      await register(t.url, `probe-${key.slice(-6)}@example.com`),
    );
    const again = await get(t.url, '/api/changelog?limit=1', key, { 'if-none-match': probe.headers.etag! });
    assert.equal(again.status, 304);
    return Number(again.headers['x-ratelimit-used']);
  };

  it("two keys never see each other: each gets the gateway's own answer, and nothing keyed is stored", async () => {
    const [a, b] = [await register(cdn.url, 'a@example.com'), await register(cdn.url, 'b@example.com')];
    const ra = await get(cdn.url, '/api/grains/CWRS', a);
    const rb = await get(cdn.url, '/api/grains/CWRS', b);
    const rb2 = await get(cdn.url, '/api/grains/CWRS', b);
    assert.deepEqual([ra.status, rb.status, rb2.status], [200, 200, 200]);
    assert.deepEqual(
      [ra.headers['x-ratelimit-used'], rb.headers['x-ratelimit-used'], rb2.headers['x-ratelimit-used']],
      ['1', '1', '2'],
    );
    assert.equal(ra.headers['cache-control'], 'private, no-cache');
    const none = await get(cdn.url, '/api/grains/CWRS', 'ggt_not-a-key');
    assert.equal(none.status, 401);
    assert.equal(none.headers['x-ratelimit-used'], undefined);
    // Varnish's X-Varnish holds one transaction id for a pass or a miss, two for a hit
    for (const r of [ra, rb, rb2, none]) {
      assert.match(String(r.headers['x-varnish']), /^\d+$/, 'not from the cache');
      assert.equal(r.headers.age, '0');
    }
  });

  it('a revalidation through the cache is a free 304, also when the key is spent', async () => {
    const key = await register(cdn.url, 'reval@example.com');
    const first = await get(cdn.url, '/api/grains', key);
    assert.equal(first.status, 200, JSON.stringify(first.headers));
    for (let i = 0; i < 3; i++) {
      const again = await get(cdn.url, '/api/grains', key, { 'if-none-match': first.headers.etag! });
      assert.equal(again.status, 304);
      assert.equal(again.headers['x-ratelimit-used'], '1', 'a 304 is not counted');
      assert.equal(again.headers.etag, first.headers.etag);
    }
    for (let i = 0; i < 29; i++) assert.equal((await get(cdn.url, '/api/grains/CWAD', key)).status, 200);
    assert.equal((await get(cdn.url, '/api/grains/CWAD', key)).status, 429, 'the hour is spent');
    const spent = await get(cdn.url, '/api/grains', key, { 'if-none-match': first.headers.etag! });
    assert.equal(spent.status, 304);
    assert.equal(await usedAtGateway(key), 30);
  });

  it('brotli reaches a client that takes it, for data and for a page', async () => {
    const key = await register(cdn.url, 'br@example.com');
    const direct = await get(t.url, '/api/grains/CWRS', key);
    for (const path of ['/api/grains/CWRS', '/docs', '/docs']) {
      const r = await get(cdn.url, path, path.startsWith('/api') ? key : undefined, {
        'accept-encoding': 'gzip, deflate, br',
      });
      assert.equal(r.status, 200, path);
      assert.equal(r.headers['content-encoding'], 'br', path);
      if (path.startsWith('/api')) assert.deepEqual(brotliDecompressSync(r.body), direct.body);
    }
  });

  it('keeps a content-addressed file: the second request is a hit, and the gateway sees one', async () => {
    const home = (await get(cdn.url, '/')).text();
    const css = /href="(\/assets\/site\.[0-9a-f]{12}\.css)"/.exec(home)?.[1];
    assert.ok(css, 'the home page links the content-addressed stylesheet');
    const first = await get(cdn.url, css);
    const second = await get(cdn.url, css);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(second.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(second.headers['x-varnish']), /^\d+ \d+$/, 'a hit names two transactions');
    assert.deepEqual(second.body, first.body);
  });

  it('sync through the cache prints the count the gateway kept', async () => {
    const key = await register(cdn.url, 'sync@example.com');
    const out = join(tempDir('cdn-mirror'), 'tables');
    await get(cdn.url, '/api/grains/CWRS', key); // one counted request before the run
    const first = await syncMirror({ baseUrl: cdn.url, key, out });
    const used = await usedAtGateway(key);
    assert.equal(first.counted, used - 1);
    const second = await syncMirror({ baseUrl: cdn.url, key, out });
    assert.equal(second.counted, 0);
    assert.equal(await usedAtGateway(key), used);
  });
});

suite('behind Varnish, a new build', varnishSkipReason(), () => {
  it('reaches clients within the lifetime the gateway states for its pages', async () => {
    const siteDir = tempDir('cdn-site');
    const publish = async (grains: Record<string, string>) => {
      const r = await buildSite(writeDataset({ grains }));
      assert.ok(r.ok);
      publishSite(siteDir, r.site);
      return r.site.manifest.build_id;
    };
    await publish({ AAA: baseGrain('AAA') });
    const t = await startTestGateway(
      { SITE_DIR: siteDir, PUBLIC_CACHE_SECONDS: '1', PUBLIC_URL: CDN_ORIGIN },
      { sitePollMs: 10 },
    );
    const cdn = await startVarnish(t.url);
    try {
      const before = await get(cdn.url, '/');
      assert.equal(before.headers['cache-control'], 'public, max-age=1, s-maxage=1');
      assert.doesNotMatch(before.text(), /Test Wheat BBB/);
      assert.match(String((await get(cdn.url, '/')).headers['x-varnish']), /^\d+ \d+$/, 'kept: a hit');
      const id = await publish({ AAA: baseGrain('AAA'), BBB: baseGrain('BBB') });
      for (let i = 0; i < 200 && (await get(t.url, '/health')).json().build_id !== id; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, 1_100)); // Varnish's own clock: its lifetime of 1 s runs out
      assert.match((await get(cdn.url, '/')).text(), /Test Wheat BBB/, 'the new build, at once after the lifetime');
    } finally {
      await cdn.close();
      await t.close();
    }
  });
});

suite('behind Varnish, the client address', varnishSkipReason(), () => {
  it('TRUST_PROXY names the proxy: no direct client chooses its address; behind it, each is itself', async () => {
    const t = await startTestGateway({ TRUST_PROXY: '127.0.0.1', REGISTER_LIMIT_PER_HOUR: '2' });
    const cdn = await startVarnish(t.url);
    const registerFrom = (base: string, localAddress: string, n: number) =>
      request(base, '/api/register', {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${n}` },
        body: JSON.stringify({ email: `addr-${localAddress}-${n}@example.com` }),
      });
    try {
      // 127.0.0.2 reaches the gateway directly and writes another address each time: its own counts
      const direct = [];
      for (let n = 1; n <= 3; n++) direct.push((await registerFrom(t.url, '127.0.0.2', n)).status);
      assert.deepEqual(direct, [201, 201, 429]);
      // 127.0.0.3 comes through Varnish (127.0.0.1, trusted): its forged hop is not believed either
      const viaCdn = [];
      for (let n = 1; n <= 3; n++) viaCdn.push((await registerFrom(cdn.url, '127.0.0.3', n)).status);
      assert.deepEqual(viaCdn, [201, 201, 429], 'limited as 127.0.0.3, apart from 127.0.0.2');
      // and another client behind the same cache is counted as itself, not as the cache
      assert.equal((await registerFrom(cdn.url, '127.0.0.4', 1)).status, 201);
    } finally {
      await cdn.close();
      await t.close();
    }
  });
});
