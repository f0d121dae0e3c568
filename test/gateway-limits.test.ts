// Hourly limits (docs/contract.md, Authentication and limits): exact under concurrency, fixed
// windows from the first counted request, 304 and 429 not counted, the quota kept across a
// replacement key. Time is injected.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decide, WINDOW_MS, type WindowState } from '../gateway/rate-limit.ts';
import { createRateLimitHeaders } from '../gateway/rate-limit-headers.ts';
import { errorJson } from './helpers/errors.ts';
import { inject, injectGet, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';

const { rateLimitHeaders, retryHeaders } = createRateLimitHeaders();

describe('window arithmetic', () => {
  const t0 = 1_000_000;
  const cases: {
    name: string;
    state?: WindowState;
    now: number;
    count: boolean;
    allowed: boolean;
    used: number;
    resetAt: number;
  }[] = [
    { name: 'the first request opens a window', now: t0, count: true, allowed: true, used: 1, resetAt: t0 + WINDOW_MS },
    { name: 'a peek opens nothing', now: t0, count: false, allowed: true, used: 0, resetAt: t0 + WINDOW_MS },
    {
      name: 'counts inside the window',
      state: { start: t0, count: 4, last: t0, unsaved: 0 },
      now: t0 + 10,
      count: true,
      allowed: true,
      used: 5,
      resetAt: t0 + WINDOW_MS,
    },
    {
      name: 'refuses at the limit without counting',
      state: { start: t0, count: 5, last: t0, unsaved: 0 },
      now: t0 + 10,
      count: true,
      allowed: false,
      used: 5,
      resetAt: t0 + WINDOW_MS,
    },
    {
      name: 'the last millisecond is still the old window',
      state: { start: t0, count: 5, last: t0, unsaved: 0 },
      now: t0 + WINDOW_MS - 1,
      count: true,
      allowed: false,
      used: 5,
      resetAt: t0 + WINDOW_MS,
    },
    {
      name: 'a new window at the reset',
      state: { start: t0, count: 5, last: t0, unsaved: 0 },
      now: t0 + WINDOW_MS,
      count: true,
      allowed: true,
      used: 1,
      resetAt: t0 + 2 * WINDOW_MS,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const window = c.state ? { ...c.state } : { start: Number.NEGATIVE_INFINITY, count: 0, last: 0, unsaved: 0 };
      const before = { ...window };
      const decision = decide(window, c.now, 5, c.count);
      assert.deepEqual(decision, { allowed: c.allowed, limit: 5, used: c.used, resetAt: c.resetAt });
      // counted: the window changed in place; refused or peeked: untouched
      if (c.count && c.allowed)
        assert.deepEqual(window, {
          start: c.resetAt - WINDOW_MS,
          count: c.used,
          last: c.now,
          unsaved: before.unsaved + 1,
        });
      else assert.deepEqual(window, before);
    });
  }
  it('writes the rate-limit headers of the contract', () => {
    assert.deepEqual(
      rateLimitHeaders({ allowed: true, limit: 100, used: 3, resetAt: 1_800_000_500 }, 1_800_000_000 - 3_599_000),
      [
        'X-RateLimit-Limit',
        '100',
        'X-RateLimit-Remaining',
        '97',
        'X-RateLimit-Used',
        '3',
        'X-RateLimit-Reset',
        '1800001',
        'RateLimit-Policy',
        '"default";q=100;w=3600',
        'RateLimit',
        '"default";r=97;t=3600',
      ],
    );
  });
  it('follows a base list, with Retry-After first for a 429, whatever was asked before with the same base', () => {
    // The per-base templates are cached (rate-limit.ts): alternate limits and kinds on one base,
    // and change what an earlier answer returned, to show that each answer is its own copy.
    const base = ['Content-Type', 'application/json', 'ETag', '"x"'];
    const now = 1_800_000_000;
    const plain = (limit: number, used: number) => [
      ...base,
      'X-RateLimit-Limit',
      String(limit),
      'X-RateLimit-Remaining',
      String(Math.max(0, limit - used)),
      'X-RateLimit-Used',
      String(used),
      'X-RateLimit-Reset',
      '1800010',
      'RateLimit-Policy',
      `"default";q=${limit};w=3600`,
      'RateLimit',
      `"default";r=${Math.max(0, limit - used)};t=10`,
    ];
    const cases: [limit: number, used: number, retry: boolean, expected: string[]][] = [
      [100, 3, false, plain(100, 3)],
      [100, 4, false, plain(100, 4)],
      [100, 100, true, [...base, 'Retry-After', '10', ...plain(100, 100).slice(base.length)]],
      [100, 100, true, [...base, 'Retry-After', '10', ...plain(100, 100).slice(base.length)]],
      [100, 5, false, plain(100, 5)],
      [5, 2, false, plain(5, 2)],
      [5, 5, true, [...base, 'Retry-After', '10', ...plain(5, 5).slice(base.length)]],
      [100, 6, false, plain(100, 6)],
    ];
    for (const [limit, used, retry, expected] of cases) {
      const d = { allowed: !retry, limit, used, resetAt: now + 10_000 };
      const h = retry ? retryHeaders(d, now, base) : rateLimitHeaders(d, now, base);
      assert.deepEqual(h, expected);
      h.fill('changed');
    }
    assert.deepEqual(base, ['Content-Type', 'application/json', 'ETag', '"x"']);
  });
});

// The limits are the app's and the store's, not node:http's: asked of the app in process (helpers/inject.ts)
describe('the hourly limit, as a client meets it', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ REGISTER_LIMIT_PER_HOUR: '1000' });
  });
  after(() => t.close());

  it('admits exactly 100 of 250 concurrent requests with one key; the rest get 429 with Retry-After', async () => {
    const key = await injectRegister(t.app, 'burst@example.com');
    const results = await Promise.all(Array.from({ length: 250 }, () => injectGet(t.app, '/api/grains/CWRS', key)));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    assert.equal(ok.length, 100);
    assert.equal(refused.length, 150);
    assert.deepEqual(
      ok.map((r) => Number(r.headers['x-ratelimit-used'])).sort((a, b) => a - b),
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    for (const r of refused) {
      assert.equal(r.headers['retry-after'], '3600'); // the clock stands still: the whole window remains
      assert.equal(r.headers['x-ratelimit-remaining'], '0');
      assert.equal(r.headers.ratelimit, '"default";r=0;t=3600');
      assert.deepEqual(r.json(), errorJson('rateLimited', 429));
    }
  });

  it('resets at the end of the fixed window that the first counted request opened', async () => {
    const key = await injectRegister(t.app, 'window@example.com');
    const start = t.clock.now;
    const first = await injectGet(t.app, '/api/grains', key);
    assert.equal(first.headers['x-ratelimit-reset'], String(Math.ceil((start + WINDOW_MS) / 1000)));
    for (let i = 1; i < 100; i++) {
      t.clock.advance(1_000);
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200);
    }
    t.clock.now = start + WINDOW_MS - 1_500;
    const refused = await injectGet(t.app, '/api/grains', key);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '2'); // 1.5 s, rounded up
    t.clock.now = start + WINDOW_MS;
    const fresh = await injectGet(t.app, '/api/grains', key);
    assert.equal(fresh.status, 200);
    assert.equal(fresh.headers['x-ratelimit-used'], '1');
    assert.equal(fresh.headers['x-ratelimit-reset'], String(Math.ceil((start + 2 * WINDOW_MS) / 1000)));
  });

  it('does not count a 304, counts an authorised 400 and 404, and does not count a 429', async () => {
    const key = await injectRegister(t.app, 'counting@example.com');
    const first = await injectGet(t.app, '/api/changelog', key);
    assert.equal(first.headers['x-ratelimit-used'], '1');
    for (let i = 0; i < 5; i++) {
      const nm = await injectGet(t.app, '/api/changelog', key, { 'if-none-match': first.headers.etag! });
      assert.equal(nm.status, 304);
      assert.equal(nm.headers['x-ratelimit-used'], '1');
    }
    assert.equal((await injectGet(t.app, '/api/changelog?limit=0', key)).headers['x-ratelimit-used'], '2');
    assert.equal((await injectGet(t.app, '/api/grains/NOPE', key)).headers['x-ratelimit-used'], '3');
    for (let i = 3; i < 100; i++) await injectGet(t.app, '/api/grains', key);
    assert.equal((await injectGet(t.app, '/api/grains', key)).status, 429);
    assert.equal((await injectGet(t.app, '/api/grains', key)).headers['x-ratelimit-used'], '100');
    // past the limit a revalidation is still answered: a 304 costs nothing (docs/contract.md, Errors and HTTP)
    const nm = await injectGet(t.app, '/api/changelog', key, { 'if-none-match': first.headers.etag! });
    assert.equal(nm.status, 304);
    assert.equal(nm.headers['x-ratelimit-remaining'], '0');
  });

  it("counts a key's hour as its own: another key of the account starts at 1", async () => {
    const old = await injectRegister(t.app, 'carry@example.com');
    for (let i = 0; i < 60; i++) assert.equal((await injectGet(t.app, '/api/grains', old)).status, 200);
    const other = await injectRegister(t.app, 'carry@example.com');
    const res = await injectGet(t.app, '/api/grains', other);
    assert.equal(res.headers['x-ratelimit-used'], '1');
    assert.equal(res.headers['x-ratelimit-remaining'], '99');
    assert.equal((await injectGet(t.app, '/api/grains', old)).headers['x-ratelimit-used'], '61');
  });

  it('limits registrations per client address, and says when to retry', async () => {
    const g = await startTestApp({ REGISTER_LIMIT_PER_HOUR: '3', TRUST_PROXY: '1' });
    try {
      for (let i = 0; i < 3; i++)
        await injectRegister(g.app, `r${i}@example.com`, { 'x-forwarded-for': '203.0.113.7' });
      const refused = await inject(g.app, {
        url: '/api/register',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' },
        body: '{"email":"r9@example.com"}',
      });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '3600');
      assert.deepEqual(refused.json(), errorJson('registerLimited', 429));
      assert.equal(await g.store.show('r9@example.com'), null);
      // another client address behind the same CDN is not affected; a spoofed extra hop is ignored
      await injectRegister(g.app, 'other@example.com', { 'x-forwarded-for': '198.51.100.1, 203.0.113.8' });
      g.clock.advance(WINDOW_MS);
      await injectRegister(g.app, 'r9@example.com', { 'x-forwarded-for': '203.0.113.7' });
    } finally {
      await g.close();
    }
  });

  it('counts issued keys: nine refused attempts and one key leave the default limit room', async () => {
    const g = await startTestApp({ TRUST_PROXY: '1' });
    const from = (n: number) => ({ 'x-forwarded-for': `203.0.113.${n}` });
    const attempt = (n: number, body: string, type = 'application/json') =>
      inject(g.app, { url: '/api/register', method: 'POST', headers: { 'content-type': type, ...from(n) }, body });
    try {
      await injectRegister(g.app, 'typo-1@example.com', from(20));
      const refused = [];
      for (const body of ['{"email":"no-at-sign"}', '{}', 'not json', '{"email":"a@b"}', '{"mail":"x@example.com"}']) {
        refused.push((await attempt(20, body)).status);
      }
      for (let i = 0; i < 4; i++) refused.push((await attempt(20, 'email=x@example.com', 'text/plain')).status);
      assert.deepEqual(refused, [400, 400, 400, 400, 400, 415, 415, 415, 415]);
      await injectRegister(g.app, 'typo-2@example.com', from(20)); // a 201, not a 429
      // a body that is not JSON is refused before it counts: another site's page could post it
      for (let i = 0; i < 120; i++) await attempt(22, 'email=x@example.com', 'text/plain');
      await injectRegister(g.app, 'not-spent@example.com', from(22));
      // refused attempts have a bound of their own, ten times the keys'
      for (let i = 0; i < 100; i++) await attempt(21, '{}');
      const flood = await attempt(21, '{"email":"real@example.com"}');
      assert.equal(flood.status, 429);
      assert.deepEqual(flood.json(), errorJson('registerAttemptsLimited', 429));
      assert.ok(Number(flood.headers['retry-after']) > 0);
    } finally {
      await g.close();
    }
  });
});
