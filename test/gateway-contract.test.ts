// The contract (docs/contract.md) against the gateway's app, driven in process (helpers/inject.ts:
// the same answers as over HTTP, test/inject.test.ts); node:http's own part is tested where it is the subject.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { parse } from 'yaml';
import { changelogOrder } from '../build/compile/compile.ts';
import type { ChangelogEntry } from '../build/types.ts';
import { CODES, MESSAGES } from '../gateway/errors.ts';
import { INTERFACE_NINE, OTHER_WHEAT } from './helpers/dataset.ts';
import { root } from './helpers/gateway.ts';
import { inject, injectGet, injections, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';
import { responseChecker } from './helpers/openapi-check.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const IDS = [...INTERFACE_NINE, ...OTHER_WHEAT];
const REAL_CHANGELOG = (
  parse(readFileSync(join(root, 'dataset/changelog.yaml'), 'utf8')) as { entries: ChangelogEntry[] }
).entries;
let t: TestApp;
let key: string;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_HOUR: '100000', REGISTER_LIMIT_PER_HOUR: '1000' });
  key = await injectRegister(t.app, 'contract@example.com');
});
after(() => t.close());

/** The body of the catalogue's error with this sentence, code and all. */
const errorOf = (status: number, error: string) => {
  const name = (Object.keys(MESSAGES) as (keyof typeof MESSAGES)[]).find((n) => MESSAGES[n] === error)!;
  return { error, status, code: CODES[name], schema_version: '1.0' };
};

describe('data endpoints', () => {
  it('GET /api/grains lists the 23 classes in order, with every header', async () => {
    const res = await injectGet(t.app, '/api/grains', key);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], JSON_TYPE);
    assert.equal(res.headers['cache-control'], 'private, no-cache');
    assert.equal(res.headers.vary, 'Accept-Encoding');
    assert.equal(res.headers['content-length'], String(res.body.length));
    assert.match(res.headers.etag!, /^"[0-9a-f]{32}"$/);
    assert.equal(res.headers.etag, `"${createHash('sha256').update(res.body).digest('hex').slice(0, 32)}"`);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    const body = res.json();
    assert.equal(body.schema_version, '1.0');
    assert.equal(body.count, 23);
    assert.deepEqual(
      body.grains.map((g: { grain_id: string }) => g.grain_id),
      IDS,
    );
  });

  for (const [asked, id] of [
    ['CWRS', 'CWRS'],
    ['cwrs', 'CWRS'],
    ['CwRs', 'CWRS'],
    ['barley_gp_ce', 'BARLEY_GP_CE'],
    ['cefd', 'CEFD'],
    ['CwRw', 'CWRW'],
  ]) {
    it(`GET /api/grains/${asked} answers the ${id} record`, async () => {
      const res = await injectGet(t.app, `/api/grains/${asked}`, key);
      assert.equal(res.status, 200);
      const body = res.json();
      assert.equal(body.grain_id, id);
      assert.equal(body.schema_version, '1.0');
      assert.ok(Array.isArray(body.factor_groups) && body.factor_groups.length > 0);
    });
  }

  it('the same record, whatever the case, has the same ETag', async () => {
    const a = await injectGet(t.app, '/api/grains/CWRS', key);
    const b = await injectGet(t.app, '/api/grains/cwrs', key);
    assert.equal(a.headers.etag, b.headers.etag);
    assert.deepEqual(a.body, b.body);
  });

  const notFound: [string, string][] = [
    ['/api/grains/NOPE', MESSAGES.unknownGrain],
    ['/api/grains/', MESSAGES.unknownGrain],
    ['/api/grains/CWRS/extra', MESSAGES.unknownGrain],
    ['/api/changelog?grain_id=NOPE', MESSAGES.unknownGrain],
    ['/api/nothing', MESSAGES.notFound],
    ['/assets/missing.css', MESSAGES.notFound],
    ['/api', MESSAGES.notFound],
    ['/api/grains.json', MESSAGES.notFound],
  ];
  for (const [path, message] of notFound) {
    it(`404 for ${path}`, async () => {
      const res = await injectGet(t.app, path, key);
      assert.equal(res.status, 404);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(res.json(), errorOf(404, message));
    });
  }

  it('the unknown-grain text says the id was not found and points to GET /api/grains', () => {
    assert.match(MESSAGES.unknownGrain, /not found/);
    assert.match(MESSAGES.unknownGrain, /GET \/api\/grains/);
  });
});

describe('changelog', () => {
  // The counts follow the real dataset's changelog.
  const entries = REAL_CHANGELOG;
  const all = entries.length;
  const of = (id: string) => entries.filter((e) => e.grain_ids_affected.includes(id)).length;
  const ok: [string, number][] = [
    ['/api/changelog', Math.min(all, 20)],
    ['/api/changelog?limit=1', 1],
    ['/api/changelog?limit=100', Math.min(all, 100)],
    ['/api/changelog?limit=020', Math.min(all, 20)],
    // base 10, leading zeros allowed (docs/contract.md, Endpoints): however many
    ['/api/changelog?limit=05', Math.min(all, 5)],
    ['/api/changelog?limit=0100', Math.min(all, 100)],
    ['/api/changelog?limit=00000000007', Math.min(all, 7)],
    ['/api/changelog?grain_id=cwrs', of('CWRS')],
    ['/api/changelog?grain_id=SOYBEANS&limit=5', Math.min(of('SOYBEANS'), 5)],
    ['/api/changelog?limit=5&grain_id=Corn_Ce', Math.min(of('CORN_CE'), 5)],
    ['/api/changelog?grain_id=cefd', of('CEFD')],
    ['/api/changelog?unknown=1&other', Math.min(all, 20)],
    ['/api/changelog?grain_id=CW%52S', of('CWRS')],
  ];
  for (const [path, count] of ok) {
    it(`200 for ${path}`, async () => {
      const res = await injectGet(t.app, path, key);
      assert.equal(res.status, 200, res.text());
      const body = res.json();
      assert.equal(body.count, count);
      assert.equal(body.entries.length, count);
      assert.deepEqual(Object.keys(body.entries[0]), [
        'id',
        'crop_year',
        'effective_date',
        'grain_ids_affected',
        'summary',
        'created_at',
        'changes',
        'correction',
      ]);
    });
  }

  const bad: [string, string][] = [
    ['/api/changelog?limit=0', MESSAGES.badLimit],
    ['/api/changelog?limit=000', MESSAGES.badLimit],
    ['/api/changelog?limit=0101', MESSAGES.badLimit],
    ['/api/changelog?limit=%2B5', MESSAGES.badLimit],
    ['/api/changelog?limit=0x10', MESSAGES.badLimit],
    ['/api/changelog?limit=101', MESSAGES.badLimit],
    ['/api/changelog?limit=1.5', MESSAGES.badLimit],
    ['/api/changelog?limit=abc', MESSAGES.badLimit],
    ['/api/changelog?limit=', MESSAGES.badLimit],
    ['/api/changelog?limit=-1', MESSAGES.badLimit],
    ['/api/changelog?limit=1e2', MESSAGES.badLimit],
    ['/api/changelog?limit=%201', MESSAGES.badLimit],
    ['/api/changelog?limit=5&limit=5', MESSAGES.repeatedParam],
    ['/api/changelog?grain_id=CWRS&grain_id=CWAD', MESSAGES.repeatedParam],
    ['/api/changelog?limit=%zz', MESSAGES.badQuery],
    ['/api/grains/%E0%A4%A', MESSAGES.badQuery], // the same mistake in the path: the same answer
    ['/api/grains/CW%Z2S', MESSAGES.badQuery],
  ];
  it('reads percent-encoding in the grain path as in the query: /api/grains/CW%52S is CWRS', async () => {
    const res = await injectGet(t.app, '/api/grains/CW%52S', key);
    assert.equal(res.status, 200);
    assert.equal(res.json().grain_id, 'CWRS');
  });
  for (const [path, message] of bad) {
    it(`400 for ${path}`, async () => {
      const res = await injectGet(t.app, path, key);
      assert.equal(res.status, 400);
      assert.deepEqual(res.json(), errorOf(400, message));
    });
  }

  it('orders entries newest first and matches the limit and filter bodies of the build', async () => {
    const all = (await injectGet(t.app, '/api/changelog?limit=100', key)).json();
    const dates = all.entries.map((e: { effective_date: string }) => e.effective_date);
    assert.deepEqual(dates, [...dates].sort().reverse());
    for (const id of IDS) {
      const filtered = (await injectGet(t.app, `/api/changelog?grain_id=${id}`, key)).json();
      assert.ok(filtered.entries.every((e: { grain_ids_affected: string[] }) => e.grain_ids_affected.includes(id)));
    }
  });
});

describe('authentication', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['no key', {}, MESSAGES.missingKey],
    ['an empty key', { 'x-api-key': '' }, MESSAGES.missingKey],
    ['a made-up key', { 'x-api-key': 'hello' }, MESSAGES.invalidKey],
    [
      'a key with a broken checksum',
      { 'x-api-key': 'ggt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      MESSAGES.invalidKey,
    ],
  ];
  for (const [name, headers, message] of cases) {
    for (const path of [
      '/api/grains',
      '/api/grains/CWRS',
      '/api/changelog',
      '/api/grains/NOPE',
      '/api/changelog?limit=0',
    ]) {
      it(`401 for ${name} on ${path}`, async () => {
        const res = await inject(t.app, { url: path, headers });
        assert.equal(res.status, 401);
        assert.deepEqual(res.json(), errorOf(401, message));
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
        assert.match(res.json().error, /POST \/api\/register/);
      });
    }
  }

  it('401 for a well-formed key that was never issued', async () => {
    const { generateKey } = await import('../gateway/keys.ts');
    const res = await injectGet(t.app, '/api/grains', generateKey());
    assert.equal(res.status, 401);
    assert.deepEqual(res.json(), errorOf(401, MESSAGES.invalidKey));
  });

  it('a rotated key works at once and the key it replaces is refused at once', async () => {
    const first = await injectRegister(t.app, 'replace@example.com');
    assert.equal((await injectGet(t.app, '/api/grains', first)).status, 200);
    const second = await injectRegister(t.app, 'Replace@Example.com', { 'x-api-key': first });
    assert.notEqual(first, second);
    assert.equal((await injectGet(t.app, '/api/grains', first)).status, 401);
    assert.equal((await injectGet(t.app, '/api/grains', second)).status, 200);
  });

  const pages: [string, string][] = [
    ['/', 'text/html; charset=utf-8'],
    ['/docs', 'text/html; charset=utf-8'],
    ['/assets/site.css', 'text/css; charset=utf-8'],
    ['/assets/page.js', 'text/javascript; charset=utf-8'],
  ];
  for (const [path, type] of pages) {
    it(`${path} needs no key and is served as ${type.split(';')[0]} with its security headers`, async () => {
      const res = await injectGet(t.app, path, undefined, { 'accept-encoding': 'br' });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], type);
      assert.equal(res.headers['content-encoding'], 'br');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.match(String(res.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
      assert.equal(res.headers['x-ratelimit-limit'], undefined);
      const again = await injectGet(t.app, path, undefined, {
        'accept-encoding': 'br',
        'if-none-match': res.headers.etag!,
      });
      assert.equal(again.status, 304);
      // a 304 carries the caching headers its 200 would (RFC 9110 §15.4.5)
      assert.equal(again.headers['cache-control'], res.headers['cache-control']);
      assert.equal(again.headers.etag, res.headers.etag);
    });
  }

  // Who may keep an answer, and how long (docs/operations.md, "Behind a CDN"); /client/ is public to any origin
  it('says who may keep each answer: data private, content-addressed files a year, the rest minutes', async () => {
    const key = await injectRegister(t.app, 'cache@example.com');
    const home = (await injectGet(t.app, '/')).text();
    const css = /href="(\/assets\/site\.[0-9a-f]{12}\.css)"/.exec(home)![1]!;
    const shared = 'public, max-age=60, s-maxage=300';
    const cases: [string, string, string | undefined][] = [
      ['/api/grains/CWRS', 'private, no-cache', undefined],
      ['/api/changelog', 'private, no-cache', undefined],
      // without PUBLIC_URL a page and the OpenAPI document name the Host they were asked from: no
      // shared cache keeps them (with PUBLIC_URL they are shared: test/filled-pages.test.ts)
      ['/api/openapi.json', 'private, no-cache', '*'],
      ['/', 'private, no-cache', undefined],
      ['/docs', 'private, no-cache', undefined],
      ['/tables/', shared, '*'],
      ['/tables/CWRS', shared, '*'],
      ['/tables/changes.atom', shared, '*'],
      ['/assets/site.css', shared, undefined],
      [css, 'public, max-age=31536000, immutable', undefined],
      ['/client/grade.js', shared, '*'],
      ['/client/grade-suite.json', shared, '*'],
    ];
    for (const [path, cache, cors] of cases) {
      const res = await injectGet(t.app, path, path.startsWith('/api/') ? key : undefined);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers['cache-control'], cache, path);
      assert.equal(res.headers['access-control-allow-origin'], cors, path);
    }
  });

  it('/health and /api/openapi.json need no key', async () => {
    const health = await injectGet(t.app, '/health');
    assert.equal(health.status, 200);
    assert.equal(health.headers['cache-control'], 'no-store');
    const h = health.json();
    assert.deepEqual(Object.keys(h), [
      'status',
      'reason',
      'store',
      'store_primary',
      'store_warning',
      'mail',
      'dataset_version',
      'build_id',
      'refused_build',
      'schema_version',
    ]);
    assert.equal(h.status, 'ok');
    assert.equal(h.reason, null);
    assert.equal(h.store, 'ok');
    assert.equal(h.mail, 'ok');
    assert.equal(h.refused_build, null);
    assert.equal(h.dataset_version, [...REAL_CHANGELOG].sort(changelogOrder)[0]!.id); // the newest entry
    const doc = await injectGet(t.app, '/api/openapi.json');
    assert.equal(doc.status, 200);
    assert.equal(doc.json().openapi, '3.1.0');
    assert.ok(doc.headers.etag);
    const again = await injectGet(t.app, '/api/openapi.json', undefined, { 'if-none-match': doc.headers.etag! });
    assert.equal(again.status, 304);
  });
});

describe('registration', () => {
  it('201 with the key, the normalised e-mail and schema_version; not cached', async () => {
    const res = await inject(t.app, {
      url: '/api/register',
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ email: '  New.Person+tag@Example.CO.uk ' }),
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers['cache-control'], 'no-store');
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['api_key', 'email', 'schema_version']);
    assert.equal(body.email, 'new.person+tag@example.co.uk');
    assert.match(body.api_key, /^ggt_[A-Za-z0-9_-]{38}$/);
    assert.equal((await injectGet(t.app, '/api/grains', body.api_key)).status, 200);
  });

  const bad: [string, Record<string, string>, string | Buffer, number, string][] = [
    ['no content type', {}, '{"email":"a@example.com"}', 415, MESSAGES.unsupportedType],
    [
      'a multipart form (the front door posts url-encoded)',
      { 'content-type': 'multipart/form-data; boundary=x' },
      '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@example.com\r\n--x--\r\n',
      415,
      MESSAGES.unsupportedType,
    ],
    ['text/plain', { 'content-type': 'text/plain' }, '{"email":"a@example.com"}', 415, MESSAGES.unsupportedType],
    [
      'a body over 1 KiB',
      { 'content-type': 'application/json' },
      JSON.stringify({ email: 'a@example.com', pad: 'x'.repeat(1100) }),
      413,
      MESSAGES.tooLarge,
    ],
    ['malformed JSON', { 'content-type': 'application/json' }, '{"email":', 400, MESSAGES.badJson],
    ['an empty body', { 'content-type': 'application/json' }, '', 400, MESSAGES.badJson],
    ['a JSON array', { 'content-type': 'application/json' }, '["a@example.com"]', 400, MESSAGES.badJson],
    ['a JSON string', { 'content-type': 'application/json' }, '"a@example.com"', 400, MESSAGES.badJson],
    ['null', { 'content-type': 'application/json' }, 'null', 400, MESSAGES.badJson],
    ['no email', { 'content-type': 'application/json' }, '{}', 400, MESSAGES.badJson],
    ['a numeric email', { 'content-type': 'application/json' }, '{"email":5}', 400, MESSAGES.badJson],
    ['an email without @', { 'content-type': 'application/json' }, '{"email":"example.com"}', 400, MESSAGES.badEmail],
    [
      'an email without a tld',
      { 'content-type': 'application/json' },
      '{"email":"a@localhost"}',
      400,
      MESSAGES.badEmail,
    ],
    [
      'an email with spaces inside',
      { 'content-type': 'application/json' },
      '{"email":"a b@example.com"}',
      400,
      MESSAGES.badEmail,
    ],
    [
      'an email with two @',
      { 'content-type': 'application/json' },
      '{"email":"a@b@example.com"}',
      400,
      MESSAGES.badEmail,
    ],
    [
      'an email over 254 characters',
      { 'content-type': 'application/json' },
      JSON.stringify({ email: `${'a'.repeat(60)}@${'b'.repeat(190)}.com` }),
      400,
      MESSAGES.badEmail,
    ],
  ];
  for (const [name, headers, body, status, message] of bad) {
    it(`${status} for ${name}, and no account is made`, async () => {
      const before = (await t.store.list()).length;
      const res = await inject(t.app, { url: '/api/register', method: 'POST', headers, body });
      assert.equal(res.status, status, res.text());
      assert.deepEqual(res.json(), errorOf(status, message));
      assert.equal((await t.store.list()).length, before);
    });
  }
});

describe('HTTP behaviour', () => {
  it('If-None-Match with the current ETag answers 304 with no body', async () => {
    const first = await injectGet(t.app, '/api/grains/CANOLA', key);
    const res = await injectGet(t.app, '/api/grains/CANOLA', key, { 'if-none-match': first.headers.etag! });
    assert.equal(res.status, 304);
    assert.equal(res.body.length, 0);
    assert.equal(res.headers.etag, first.headers.etag);
    assert.equal(res.headers['cache-control'], first.headers['cache-control']);
    assert.equal(res.headers.vary, first.headers.vary);
    assert.ok(res.headers['x-ratelimit-remaining']);
    const list = await injectGet(t.app, '/api/grains/CANOLA', key, {
      'if-none-match': `"nope", W/${first.headers.etag}`,
    });
    assert.equal(list.status, 304);
    const stale = await injectGet(t.app, '/api/grains/CANOLA', key, { 'if-none-match': '"0000"' });
    assert.equal(stale.status, 200);
  });

  it('serves brotli and gzip from the precompressed forms, each with its own ETag', async () => {
    const plain = await injectGet(t.app, '/api/grains/CWAD', key);
    const br = await injectGet(t.app, '/api/grains/CWAD', key, { 'accept-encoding': 'gzip, deflate, br' });
    const gz = await injectGet(t.app, '/api/grains/CWAD', key, { 'accept-encoding': 'gzip' });
    const refused = await injectGet(t.app, '/api/grains/CWAD', key, { 'accept-encoding': 'br;q=0, gzip;q=0' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(refused.headers['content-encoding'], undefined);
    assert.deepEqual(brotliDecompressSync(br.body), plain.body);
    assert.deepEqual(gunzipSync(gz.body), plain.body);
    assert.ok(br.body.length < gz.body.length && gz.body.length < plain.body.length);
    assert.equal(new Set([plain.headers.etag, br.headers.etag, gz.headers.etag]).size, 3);
    assert.equal(br.headers['content-length'], String(br.body.length));
    // a 304 names the ETag of the encoding the client would get
    const nm = await injectGet(t.app, '/api/grains/CWAD', key, {
      'accept-encoding': 'br',
      'if-none-match': br.headers.etag!,
    });
    assert.equal(nm.status, 304);
    assert.equal(nm.headers.etag, br.headers.etag);
  });

  it('HEAD gives the headers of GET and no body', async () => {
    for (const path of ['/api/grains', '/api/grains/CWRS', '/api/changelog?limit=3', '/health', '/api/openapi.json']) {
      const g = await injectGet(t.app, path, key);
      const h = await inject(t.app, { url: path, method: 'HEAD', headers: { 'x-api-key': key } });
      assert.equal(h.status, 200, path);
      assert.equal(h.body.length, 0);
      assert.equal(h.headers['content-length'], g.headers['content-length']);
      assert.equal(h.headers.etag, g.headers.etag);
    }
  });

  const methods: [string, string, string][] = [
    ['POST', '/api/grains', 'GET, HEAD'],
    ['PUT', '/api/grains/CWRS', 'GET, HEAD'],
    ['DELETE', '/api/changelog', 'GET, HEAD'],
    ['PATCH', '/health', 'GET, HEAD, OPTIONS'],
    ['PUT', '/tables/CWRS', 'GET, HEAD, OPTIONS'],
    ['DELETE', '/recover', 'GET, HEAD, POST'],
    ['GET', '/api/register', 'POST'],
    ['OPTIONS', '/api/grains', 'GET, HEAD'],
  ];
  for (const [method, path, allow] of methods) {
    it(`405 with Allow: ${allow} for ${method} ${path}`, async () => {
      const res = await inject(t.app, { url: path, method, headers: { 'x-api-key': key } });
      assert.equal(res.status, 405);
      assert.equal(res.headers.allow, allow);
      assert.equal(res.json().status, 405);
    });
  }
});

// Last: every answer the suites above received, held against the OpenAPI document.
describe('every answer above, against the OpenAPI document', () => {
  it('declares its status, carries the declared headers, and its body validates', async () => {
    const doc = (await injectGet(t.app, '/api/openapi.json')).json();
    const check = responseChecker(doc);
    const mine = injections.filter((e) => e.app === t.app);
    assert.ok(mine.length > 100, `the suites above made ${mine.length} requests`);
    const problems = mine.flatMap((e) => check(e.method, e.url, e.response));
    assert.deepEqual(problems, []);
    // the check can fail: an undeclared status and a body off its schema are found
    const fake = (status: number, body: unknown) => ({
      status,
      headers: {},
      body: Buffer.from(JSON.stringify(body)),
      json: () => body,
      text: () => JSON.stringify(body),
    });
    assert.equal(check('GET', '/api/grains', fake(418, {})).length, 1);
    assert.equal(check('GET', '/health', fake(200, { status: 'fine' })).length, 1);
  });
});
