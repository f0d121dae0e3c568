// The pages as served without JavaScript (gateway/filled-pages.ts): their examples name the origin
// the request used and the page states the limits this deployment is configured with, never the
// build's placeholders. Asked of the gateway's app (helpers/inject.ts), no browser.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import {
  ORIGIN_PLACEHOLDER,
  PAGE_TEMPLATES,
  ROUTES,
  SLOTS,
  TEMPLATE_SLOT,
  TEMPLATE_SLOTS,
  type TemplateName,
} from '../build/site-format.ts';
import { realSiteDir, testClock } from './helpers/gateway.ts';
import { type Injected, inject, injectGet, startTestApp, type TestApp } from './helpers/inject.ts';

const PAGES = ['/', '/docs', '/grade'];
/** The origin of the Host the requests name (inject's, unless told). */
const ORIGIN = 'http://localhost';
const OPENAPI = ROUTES.openapi.path;

describe('pages filled by the gateway', () => {
  let t: TestApp;
  let proxied: TestApp;
  before(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_HOUR: '37', REGISTER_LIMIT_PER_HOUR: '4' });
    proxied = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  });
  after(async () => {
    await t.close();
    await proxied.close();
  });

  for (const path of PAGES) {
    it(`${path} leaves no slot unfilled and no placeholder host`, async () => {
      const res = await injectGet(t.app, path);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.doesNotMatch(res.text(), /\{\{[a-z_]+\}\}/);
      assert.ok(!res.text().includes(ORIGIN_PLACEHOLDER));
    });
  }

  it('the home page shows the origin the request used, and the configured hourly limit', async () => {
    const html = (await injectGet(t.app, '/')).text();
    assert.ok(
      html.includes(`'<span\nclass="origin">${ORIGIN}</span>/api/grains/CWRS'`),
      'the example names this origin',
    );
    assert.match(html, /each key may make\n37 requests an hour/);
    assert.doesNotMatch(html, /100 requests/);
  });

  it('the reference names the origin in every example and the configured limit in its example headers', async () => {
    const html = (await injectGet(t.app, '/docs')).text();
    const commands = html.match(/<span class="origin">[^<]*<\/span>/g) ?? [];
    assert.ok(commands.length >= 7, `an origin in each example (${commands.length})`);
    for (const c of commands) assert.equal(c, `<span class="origin">${ORIGIN}</span>`);
    assert.match(html, /Each key may make 37 requests in an hour/);
    assert.ok(html.includes('X-RateLimit-Limit: 37'), 'the example headers: the limit');
    assert.ok(html.includes('X-RateLimit-Remaining: 34'), 'the example headers: the limit less the 3 used');
    assert.ok(html.includes('RateLimit-Policy: &quot;default&quot;;q=37;w=3600'), 'the draft header');
  });

  it('another Host is another page, each with its own ETag, each revalidated for free', async () => {
    const a = await injectGet(t.app, '/', undefined, { host: 'grain.test:8443' });
    const b = await injectGet(t.app, '/', undefined, { host: 'tables.example.org' });
    assert.ok(a.text().includes('http://grain.test:8443</span>/api/grains/CWRS'));
    assert.ok(b.text().includes('http://tables.example.org</span>/api/grains/CWRS'));
    assert.notEqual(a.headers.etag, b.headers.etag);
    const again = await injectGet(t.app, '/', undefined, { host: 'grain.test:8443', 'if-none-match': a.headers.etag! });
    assert.equal(again.status, 304);
    assert.equal(again.headers.etag, a.headers.etag);
    assert.equal(a.headers['cache-control'], 'private, no-cache', "no shared cache gives one Host's page to another");
  });

  it('the compressed page says the same as the plain one', async () => {
    const plain = await injectGet(t.app, '/docs', undefined, { host: 'grain.test' });
    const res = await inject(t.app, { url: '/docs', headers: { host: 'grain.test', 'accept-encoding': 'br' } });
    assert.equal(res.headers['content-encoding'], 'br');
    assert.equal(brotliDecompressSync(res.body).toString(), plain.text());
    assert.notEqual(res.headers.etag, plain.headers.etag, 'each coding its own strong ETag');
    assert.equal(Number(res.headers['content-length']), res.body.length);
  });

  it('compresses a burst of pages at once, then one a second; past it, answers plain', async () => {
    const clock = testClock();
    const g = await startTestApp({}, { clock });
    try {
      const ask = (host: string) => inject(g.app, { url: '/docs', headers: { host, 'accept-encoding': 'br' } });
      for (let i = 0; i < 16; i++)
        assert.equal((await ask(`burst${i}.test`)).headers['content-encoding'], 'br', `${i}`);
      const first = await ask('past.test');
      assert.equal(first.headers['content-encoding'], undefined, 'past the burst, a new Host is answered plain');
      const again = await ask('past.test');
      assert.equal(again.headers['content-encoding'], undefined, 'and so is its second request: no budget left');
      assert.equal(again.headers.etag, first.headers.etag);
      clock.advance(1000);
      const later = await ask('past.test');
      assert.equal(later.headers['content-encoding'], 'br', 'a second later, one more compression');
      assert.equal(brotliDecompressSync(later.body).toString(), first.body.toString());
      const revalidated = await inject(g.app, {
        url: '/docs',
        headers: { host: 'past.test', 'accept-encoding': 'br', 'if-none-match': first.headers.etag! },
      });
      // the 200 would now send brotli: the plain tag is not its tag, so the brotli body is sent (RFC 9110 §13.1.2)
      assert.equal(revalidated.status, 200, 'the plain tag, once the page is compressed, is answered with brotli');
      assert.equal(revalidated.headers.etag, later.headers.etag);
      const held = await inject(g.app, {
        url: '/docs',
        headers: { host: 'past.test', 'accept-encoding': 'br', 'if-none-match': later.headers.etag! },
      });
      assert.equal(held.status, 304, 'and its own tag revalidates');
      assert.equal((await ask('later2.test')).headers['content-encoding'], undefined);
    } finally {
      await g.close();
    }
  });

  it("the OpenAPI document's servers names the origin it was asked from: per Host, each its own ETag", async () => {
    const servers = (res: Injected) => (JSON.parse(res.text()) as { servers: { url: string }[] }).servers;
    const plain = await injectGet(t.app, OPENAPI);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(
      servers(plain).map((s) => s.url),
      [ORIGIN],
    );
    assert.doesNotMatch(plain.text(), /\{\{[a-z_]+\}\}/);
    const other = await injectGet(t.app, OPENAPI, undefined, { host: 'grain.test:8443' });
    assert.equal(servers(other)[0]!.url, 'http://grain.test:8443');
    assert.notEqual(other.headers.etag, plain.headers.etag);
    assert.equal(other.headers['cache-control'], 'private, no-cache', "no shared cache gives one Host's to another");
    const again = await injectGet(t.app, OPENAPI, undefined, {
      host: 'grain.test:8443',
      'if-none-match': other.headers.etag!,
    });
    assert.equal(again.status, 304);
    assert.equal(again.headers.etag, other.headers.etag);
    for (const [coding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const res = await inject(t.app, {
        url: OPENAPI,
        headers: { host: 'grain.test:8443', 'accept-encoding': coding },
      });
      assert.equal(res.headers['content-encoding'], coding);
      assert.equal(decode(res.body).toString(), other.text());
      assert.notEqual(res.headers.etag, other.headers.etag, 'each coding its own strong ETag');
    }
    const https = await injectGet(proxied.app, OPENAPI, undefined, {
      host: 'grain.test',
      'x-forwarded-proto': 'https',
    });
    assert.equal(servers(https)[0]!.url, 'https://grain.test');
    // a Host that is not a plain host is never echoed: the placeholder, and the document stays JSON
    const odd = await injectGet(t.app, OPENAPI, undefined, { host: 'evil.example"\\x' });
    assert.equal(servers(odd)[0]!.url, ORIGIN_PLACEHOLDER);
  });

  it('with PUBLIC_URL, every page names that origin whatever the Host, and is shared-cacheable', async () => {
    const g = await startTestApp({ PUBLIC_URL: 'https://Grain.Example.org/' });
    try {
      // the OpenAPI document too, filled once, when the build was loaded
      const docs = await Promise.all(
        ['evil.test', 'other.test'].map((host) =>
          inject(g.app, { url: OPENAPI, headers: { host, 'accept-encoding': 'br' } }),
        ),
      );
      assert.equal(docs[0]!.headers['content-encoding'], 'br');
      assert.equal(docs[0]!.headers.etag, docs[1]!.headers.etag, 'one document for every Host');
      assert.equal(
        JSON.parse(brotliDecompressSync(docs[0]!.body).toString()).servers[0].url,
        'https://grain.example.org',
      );
      assert.equal(docs[0]!.headers['cache-control'], 'public, max-age=60, s-maxage=300');
      const a = await inject(g.app, { url: '/', headers: { host: 'evil.test', 'accept-encoding': 'br' } });
      const b = await inject(g.app, { url: '/', headers: { host: 'other.test', 'accept-encoding': 'br' } });
      assert.equal(a.headers['content-encoding'], 'br', 'compressed once, when the build was loaded');
      assert.equal(a.headers.etag, b.headers.etag, 'one page for every Host');
      const html = brotliDecompressSync(a.body).toString();
      assert.ok(html.includes('https://grain.example.org</span>/api/grains/CWRS'));
      assert.doesNotMatch(html, /evil\.test/);
      assert.match(String(a.headers['cache-control']), /^public, max-age=60, s-maxage=300$/);
      assert.ok(
        (await injectGet(g.app, '/docs', undefined, { host: 'x.test' })).text().includes('https://grain.example.org'),
      );
    } finally {
      await g.close();
    }
  });

  it('a Host that is not a plain host gets the placeholder host: a Host is never echoed as it came', async () => {
    const res = await injectGet(t.app, '/', undefined, { host: 'evil.example"><script>' });
    assert.equal(res.status, 200);
    assert.ok(res.text().includes(`${ORIGIN_PLACEHOLDER}</span>`));
    assert.doesNotMatch(res.text(), /evil\.example/);
  });

  it('https only when a trusted proxy says so in X-Forwarded-Proto', async () => {
    const headers = { host: 'grain.test', 'x-forwarded-proto': 'https' };
    assert.ok((await injectGet(proxied.app, '/', undefined, headers)).text().includes('https://grain.test</span>'));
    assert.ok(
      (await injectGet(t.app, '/', undefined, headers)).text().includes('http://grain.test</span>'),
      'untrusted',
    );
  });

  it('the build leaves only the slots the gateway knows in its pages and templates', () => {
    const known = new Set<string>(Object.values(SLOTS));
    const bodies = join(realSiteDir(), 'builds');
    const [build] = readdirSync(bodies);
    const manifest = JSON.parse(readFileSync(join(bodies, build!, 'manifest.json'), 'utf8'));
    const routes = [...PAGES, ...Object.values(PAGE_TEMPLATES), OPENAPI];
    for (const route of routes) {
      const entry = manifest.bodies[manifest.routes[route]];
      const text = readFileSync(join(bodies, build!, entry.identity.file), 'utf8');
      const slots = text.match(new RegExp(TEMPLATE_SLOT.source, 'g')) ?? [];
      for (const slot of slots) assert.ok(known.has(slot), `${route}: ${slot}`);
      if (route === OPENAPI) assert.deepEqual(slots, [SLOTS.origin], "the document's one slot: its servers' origin");
    }
    // each template holds exactly the slots TEMPLATE_SLOTS declares for it, the ones fillPage asks for
    for (const [name, route] of Object.entries(PAGE_TEMPLATES) as [TemplateName, string][]) {
      const entry = manifest.bodies[manifest.routes[route]];
      const text = readFileSync(join(bodies, build!, entry.identity.file), 'utf8');
      const names = new Set([...text.matchAll(new RegExp(TEMPLATE_SLOT.source, 'g'))].map((m) => m[1]));
      assert.deepEqual([...names].sort(), [...TEMPLATE_SLOTS[name]].sort(), route);
    }
  });
});
