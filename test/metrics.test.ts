// tier: full (the accounts CLI beside a gateway)
// GET /metrics behind METRICS_TOKEN, per-key usage kept with the windows, and the
// accounts CLI's views of it, each on both stores. What the app and the store answer is asked of the
// app in process (helpers/inject.ts); the request series are counted by server.ts as it answers
// (gateway/server.ts, finish), so the tests that read them ask a listening gateway.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { App } from '../gateway/app.ts';
import { digestHex, hashKey } from '../gateway/keys.ts';
import { get, register, request, root, runAccounts, startTestGateway, testClock } from './helpers/gateway.ts';
import { inject, injectGet, injectRegister, startTestApp } from './helpers/inject.ts';
import { fileRedis, redisSkipReason, uniquePrefix } from './helpers/redis.ts';
import { suite } from './helpers/suite.ts';

const TOKEN = 'test-metrics-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const redisSkip = await redisSkipReason();
const redisUrl = fileRedis();
const prefix = uniquePrefix();

let run = 0;
/** Each store, with the variables that choose it (a fresh Redis prefix for each use). */
const STORES: [name: string, env: () => Promise<Record<string, string>>, skip: string | false][] = [
  ['sqlite', async () => ({}), false],
  ['redis', async () => ({ REDIS_URL: await redisUrl(), REDIS_KEY_PREFIX: `${prefix}${++run}:` }), redisSkip],
];

/** A sample's value in Prometheus text: `name{labels}` exactly as printed, or undefined. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

async function waitForStore(app: App) {
  for (let i = 0; i < 250; i++) {
    if ((await injectGet(app, '/health')).json().store === 'ok') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('store not ready within 5 s');
}

for (const [name, storeEnv, skip] of STORES) {
  suite(`GET /metrics (${name})`, skip, () => {
    it('is an unknown path without METRICS_TOKEN, and without the token sent', async () => {
      const off = await startTestApp(await storeEnv());
      const on = await startTestApp({ ...(await storeEnv()), METRICS_TOKEN: TOKEN });
      try {
        const unknown = await injectGet(off.app, '/no-such-path');
        const cases: [string, App, string, Record<string, string>][] = [
          ['not configured, token sent', off.app, 'GET', AUTH],
          ['configured, nothing sent', on.app, 'GET', {}],
          ['configured, another token', on.app, 'GET', { authorization: `Bearer ${TOKEN}x` }],
          ['configured, the token as Basic', on.app, 'GET', { authorization: `Basic ${TOKEN}` }],
          ['configured, the token in X-API-Key', on.app, 'GET', { 'x-api-key': TOKEN }],
          ['configured, POST without it', on.app, 'POST', {}],
        ];
        for (const [what, app, method, headers] of cases) {
          const r = await inject(app, { url: '/metrics', method, headers });
          assert.equal(r.status, 404, what);
          assert.deepEqual(r.json(), unknown.json(), what);
        }
        const post = await inject(on.app, { url: '/metrics', method: 'POST', headers: AUTH });
        assert.equal(post.status, 405, 'with the token, a wrong method is what it is');
        assert.equal(post.headers.allow, 'GET, HEAD');
        // the scrape has no ETag: a tag in If-Match is false (412), * holds; without the token, still 404
        const ifMatch = (value: string, headers: Record<string, string> = AUTH) =>
          inject(on.app, { url: '/metrics', headers: { ...headers, 'if-match': value } });
        assert.equal((await ifMatch('"x"')).status, 412);
        assert.equal((await ifMatch('*')).status, 200);
        assert.equal((await ifMatch('"x"', {})).status, 404);
      } finally {
        await off.close();
        await on.close();
      }
    });

    it('serves the Prometheus text; values move as requests are made; a scrape counts against no key', async () => {
      const t = await startTestGateway({ ...(await storeEnv()), METRICS_TOKEN: TOKEN });
      try {
        await waitForStore(t.gateway.app);
        const scrape = async () => {
          const r = await get(t.url, '/metrics', undefined, AUTH);
          assert.equal(r.status, 200);
          assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
          assert.equal(r.headers['cache-control'], 'no-store');
          return r.text();
        };
        const before = await scrape();
        const key = await register(t.url, `moving-${name}@example.com`);
        for (let i = 0; i < 3; i++) assert.equal((await get(t.url, '/api/grains/CWRS', key)).status, 200);
        assert.equal((await get(t.url, '/api/grains', 'ggt_not_a_real_key')).status, 401);
        // labelled by the row the request was routed to, whichever way it got there
        assert.equal((await get(t.url, '/api/grains/cwrs', key)).status, 200, 'routed, not an exact path');
        assert.equal((await get(t.url, '/api/changelog?limit=0', key)).status, 400);
        assert.equal((await get(t.url, '/api/grains/CWRS?api_key=x', key)).status, 400, 'a key in the URL');
        assert.equal((await get(t.url, '/nowhere', key)).status, 404);
        // sent with a key, a scrape is not one of the key's requests
        assert.equal((await get(t.url, '/metrics', key, AUTH)).status, 200);
        const after = await scrape();
        const delta = (series: string) => (sample(after, series) ?? 0) - (sample(before, series) ?? 0);
        assert.equal(delta('gateway_http_requests_total{route="/api/grains/{grain_id}",status="200"}'), 4);
        assert.equal(delta('gateway_http_requests_total{route="/api/changelog",status="400"}'), 1);
        assert.equal(delta('gateway_http_requests_total{route="/api/grains/{grain_id}",status="400"}'), 1);
        assert.equal(delta('gateway_http_requests_total{route="other",status="404"}'), 1);
        assert.equal(delta('gateway_http_requests_total{route="/api/grains",status="401"}'), 1);
        assert.equal(delta('gateway_http_requests_total{route="/api/register",status="201"}'), 1);
        assert.equal(delta('gateway_http_requests_total{route="/metrics",status="200"}'), 2);
        assert.equal(delta('gateway_http_request_duration_seconds_count{route="/api/grains/{grain_id}"}'), 5);
        assert.equal(delta('gateway_registrations_total'), 1);
        assert.equal(delta('gateway_rejected_requests_total{reason="key"}'), 1);
        assert.equal(delta('gateway_live_keys'), 1);
        assert.equal(sample(after, `gateway_store_up{store="${name}"}`), 1);
        assert.ok(delta(`gateway_store_operation_duration_seconds_count{store="${name}",operation="register"}`) === 1);
        const health = (await get(t.url, '/health')).json();
        assert.equal(
          sample(after, `gateway_site_info{build_id="${health.build_id}",dataset_version="${health.dataset_version}"}`),
          1,
        );
        assert.ok((sample(after, 'gateway_site_age_seconds') ?? -1) >= 0, 'the site has an age');
        assert.ok(sample(after, 'process_cpu_seconds_total') !== undefined, 'process metrics are there');
        const next = await get(t.url, '/api/grains/CWRS', key);
        // 3 + the lower-case path + the refused changelog + this one: the scrape was not counted
        assert.equal(next.headers['x-ratelimit-used'], '6', 'the scrape was not counted');

        // revoked: one key fewer
        const revoked = await request(t.url, '/api/keys/current', { method: 'DELETE', headers: { 'x-api-key': key } });
        assert.equal(revoked.status, 204);
        assert.equal(
          (sample(await scrape(), 'gateway_live_keys') ?? 0) - (sample(after, 'gateway_live_keys') ?? 0),
          -1,
        );
      } finally {
        await t.close();
      }
    });
  });

  suite(`per-key usage (${name})`, skip, () => {
    it('is exact after concurrent requests and a restart; npm run accounts lists, sorts and exports it', async () => {
      const env = { ...(await storeEnv()), RATE_LIMIT_PER_HOUR: '1000', REGISTER_LIMIT_PER_HOUR: '100' };
      const clock = testClock();
      const first = await startTestApp(env, { clock });
      const state = { ...env, STATE_DIR: first.stateDir };
      await waitForStore(first.app);
      const busy = await injectRegister(first.app, `busy-${name}@example.com`);
      const quiet = await injectRegister(first.app, `quiet-${name}@example.com`);
      await injectRegister(first.app, `idle-${name}@example.com`);
      const burst = [
        ...Array.from({ length: 40 }, () => injectGet(first.app, '/api/grains/CWRS', busy)),
        ...Array.from({ length: 25 }, () => injectGet(first.app, '/api/changelog', quiet)),
      ];
      for (const r of await Promise.all(burst)) assert.equal(r.status, 200);
      await first.close();

      clock.advance(60_000);
      const second = await startTestApp(state, { clock });
      await waitForStore(second.app);
      const used = (await injectGet(second.app, '/api/grains', busy)).headers['x-ratelimit-used'];
      assert.equal(used, '41', 'the hour goes on');
      await second.close();

      const list = await runAccounts(state, 'list', '--sort', 'last-used');
      assert.equal(list.status, 0, list.stderr);
      const lines = list.stdout.trim().split('\n');
      assert.deepEqual(
        lines.map((l) =>
          l
            .split('\t')
            .slice(1)
            .join('|')
            .replace(/created \S+\|/, ''),
        ),
        [
          `busy-${name}@example.com|1 live key(s) of 1|41 request(s)|last used 2026-11-22T12:01:00.000Z`,
          `quiet-${name}@example.com|1 live key(s) of 1|25 request(s)|last used 2026-11-22T12:00:00.000Z`,
          `idle-${name}@example.com|1 live key(s) of 1|0 request(s)|last used -`,
          '',
        ],
      );
      assert.equal(lines.at(-1), '3 account(s)');

      const csv = await runAccounts(state, 'list', '--sort', 'requests', '--csv');
      assert.equal(csv.status, 0, csv.stderr);
      const rows = csv.stdout.trim().split('\n');
      assert.equal(
        rows[0],
        'account_id,email,account_created_at,key_id,key_created_at,last_used_at,revoked_at,requests',
      );
      assert.deepEqual(
        rows.slice(1).map((r) => r.split(',').slice(1).join(',')),
        [
          `busy-${name}@example.com,2026-11-22T12:00:00.000Z,${rows[1]!.split(',')[3]},` +
            '2026-11-22T12:00:00.000Z,2026-11-22T12:01:00.000Z,,41',
          `quiet-${name}@example.com,2026-11-22T12:00:00.000Z,${rows[2]!.split(',')[3]},` +
            '2026-11-22T12:00:00.000Z,2026-11-22T12:00:00.000Z,,25',
          `idle-${name}@example.com,2026-11-22T12:00:00.000Z,${rows[3]!.split(',')[3]},2026-11-22T12:00:00.000Z,,,0`,
        ],
      );
      const show = await runAccounts(state, 'show', `busy-${name}@example.com`, '--csv');
      assert.equal(show.stdout, `${rows[0]}\n${rows[1]}\n`);
      for (const [bad, why] of [
        [['list', '--sort'], /^Option '--sort <value>' argument missing/],
        [['list', '--sort', 'size'], /^--sort must be created, last-used or requests, not "size"/],
        [['list', '--format'], /^Unknown option '--format'/],
        [['show'], /^show needs an e-mail address/],
        [['revoke', 'x@example.com'], /^revoke names one key id, or --all/],
        [[], /^a command is missing: list, show, revoke, revoke-leaked or accept-loss$/m],
      ] as const) {
        const r = await runAccounts(state, ...bad);
        assert.equal(r.status, 2, bad.join(' '));
        assert.match(r.stderr, why);
        assert.match(r.stderr, /\nusage: npm run accounts -- list/);
      }
      const help = await runAccounts(state, '--help');
      assert.equal(help.status, 0);
      assert.match(help.stdout, /^usage: npm run accounts -- list/);
    });
  });

  suite(`security: GET /metrics (${name})`, skip, () => {
    it("never shows a key, a key's hash or an e-mail of the accounts it serves", async () => {
      const t = await startTestGateway({ ...(await storeEnv()), METRICS_TOKEN: TOKEN, REGISTER_LIMIT_PER_HOUR: '100' });
      try {
        await waitForStore(t.gateway.app);
        const emails = ['scan-one@example.com', 'scan.two+tag@example.org'];
        const keys = [await register(t.url, emails[0]!), await register(t.url, emails[1]!)];
        keys.push(await register(t.url, emails[0]!, { 'x-api-key': keys[0]! })); // a rotation
        for (const key of keys) await get(t.url, '/api/grains/CWRS', key);
        await get(t.url, `/api/grains/${keys[2]!}`, keys[2]); // a key in a path (refused)
        const text = (await get(t.url, '/metrics', undefined, AUTH)).text();
        assert.ok(text.includes('gateway_http_requests_total'), 'a real scrape');
        for (const key of keys) {
          const digest = hashKey(key);
          const forms = [key, key.slice(4), digestHex(digest), Buffer.from(digest, 'latin1').toString('base64')];
          for (const form of forms) assert.ok(!text.includes(form), 'a key or its hash is in the metrics');
        }
        for (const email of emails) {
          assert.ok(!text.includes(email) && !text.includes(email.split('@')[0]!), 'an e-mail is in the metrics');
        }
      } finally {
        await t.close();
      }
    });
  });
}

// The dashboard and the alert rules checked into docs/ read these metrics (docs/operations.md,
// Monitoring): every metric they query is one a real scrape has, on both stores' gateway (here the embedded one).
describe('docs: the dashboard and the alert rules query metrics that exist', () => {
  const names = (text: string) => new Set(text.match(/\b(?:gateway|process|nodejs)_[a-z0-9_]+/g) ?? []);
  const dashboard = JSON.parse(readFileSync(join(root, 'docs/grafana-dashboard.json'), 'utf8')) as {
    panels: { targets?: { expr: string }[] }[];
  };
  const operations = readFileSync(join(root, 'docs/operations.md'), 'utf8');
  const rules = /Three alert rules[^`]*```yaml\n([\s\S]*?)```/.exec(operations)?.[1] ?? '';
  const queried: [string, Set<string>][] = [
    [
      'docs/grafana-dashboard.json',
      names(
        dashboard.panels
          .flatMap((p) => p.targets ?? [])
          .map((t) => t.expr)
          .join('\n'),
      ),
    ],
    ['the alert rules in docs/operations.md', names(rules)],
  ];
  it('every one of them is in a scrape', async () => {
    const t = await startTestGateway({ METRICS_TOKEN: TOKEN });
    try {
      await get(t.url, '/api/grains'); // a request, so that the request series have samples
      const text = (await get(t.url, '/metrics', undefined, AUTH)).text();
      const exposed = new Set([...text.matchAll(/^([a-z_:][a-z0-9_:]*)[{ ]/gm)].map((m) => m[1]!));
      for (const [where, wanted] of queried) {
        assert.ok(wanted.size >= 3, `${where}: its queries were read`);
        for (const name of wanted) assert.ok(exposed.has(name), `${where} queries ${name}, which no scrape has`);
      }
    } finally {
      await t.close();
    }
  });
});
