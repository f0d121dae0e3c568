// HTTP details a careful client meets (docs/contract.md, Errors and HTTP): the 401 challenge, Accept-Encoding with q=0,
// the absolute-form request target, If-Match before If-None-Match, and a 304 that costs nothing
// even when the key's hour is spent.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { createVariantChooser } from '../gateway/negotiate.ts';
import { MAX_TARGET_BYTES, overflowIsTarget } from '../gateway/request-target.ts';
import type { Resource, Variant } from '../gateway/site.ts';
import { get, register, startTestGateway, type TestGateway } from './helpers/gateway.ts';
import { inject, injectGet, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';

describe('Accept-Encoding (RFC 9110 §12.5.3)', () => {
  const chooseVariant = createVariantChooser();
  const v = (name: string) => ({ etag: name }) as unknown as Variant;
  const resource = { identity: v('identity'), br: v('br'), gzip: v('gzip') } as Resource;
  const cases: [string, string][] = [
    ['gzip, deflate, br', 'br'],
    ['*', 'br'],
    ['*, br;q=0', 'gzip'],
    ['br;q=0, *', 'gzip'],
    ['gzip;q=0, *', 'br'],
    ['*;q=0', 'identity'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0.8, gzip;q=0.8', 'br'],
    ['identity', 'identity'],
    ['identity;q=0', 'identity'],
    ['GZIP', 'gzip'],
    ['br;q=0, br', 'br'],
    // x-gzip is gzip (RFC 9110 §8.4.1.3), under its q and against `*` as gzip itself is
    ['x-gzip', 'gzip'],
    ['X-GZIP;q=0.5, identity', 'gzip'],
    ['x-gzip, br;q=0.5', 'gzip'],
    ['*, x-gzip;q=0', 'br'],
    ['x-gzip;q=0, br;q=0', 'identity'],
  ];
  for (const [header, expected] of cases) {
    it(`"${header}" gets ${expected}`, () => {
      assert.equal(chooseVariant(resource, header).etag, expected);
    });
  }
  it('answers each value for itself when a run of one value gives way to another (the last is kept)', () => {
    const choose = createVariantChooser();
    const turns: [string, string][] = [
      ['br', 'br'],
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip', 'gzip'],
      ['br;q=0', 'identity'],
      ['gzip', 'gzip'],
      ['br', 'br'],
    ];
    assert.deepEqual(
      turns.map(([header]) => choose(resource, header).etag),
      turns.map(([, expected]) => expected),
    );
  });
});

describe('a header overflow told apart: the request target (414) or the headers (431)', () => {
  const long = 'a'.repeat(20_000);
  const cases: [name: string, packet: string, at: number | 'end', target: boolean][] = [
    ['a long path, overflowing in the request line', `GET /${long} HTTP/1.1\r\nHost: x\r\n\r\n`, 20_005, true],
    ['a long absolute-form target', `GET http://x/${long} HTTP/1.1\r\n`, 20_010, true],
    ['a long header', `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${long}\r\n\r\n`, 20_030, false],
    [
      'a 9 KiB target then a header that runs over',
      `GET /${'a'.repeat(9 * 1024)} HTTP/1.1\r\nX-Big: ${long}\r\n`,
      'end',
      true,
    ],
    [
      'an 8 KiB target then a header that runs over',
      `GET /${'a'.repeat(8000)} HTTP/1.1\r\nX-Big: ${long}\r\n`,
      'end',
      false,
    ],
    ['a later packet, mid-header', `${long}\r\n`, 20_000, false],
    ['a later packet, mid-target (not recognised)', `${long} HTTP/1.1\r\n`, 20_000, false],
    ['a header value with spaces, mid-line', `aaa bbb ${long}`, 'end', false],
    ['a pipelined second request whose line runs over', `GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /${long}`, 'end', true],
    ['no packet at all', '', 0, false],
  ];
  for (const [name, packet, at, target] of cases) {
    it(`${name}: ${target ? '414' : '431'}`, () => {
      const bytes = Buffer.from(packet, 'latin1');
      assert.equal(overflowIsTarget(bytes, at === 'end' ? bytes.length : at), target);
    });
  }
});

// What the app answers: asked of it in process (helpers/inject.ts); the wire's own part is below
describe('HTTP details, asked of the app', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_HOUR: '5' });
  });
  after(() => t.close());

  it('a 401 names its scheme in WWW-Authenticate', async () => {
    for (const headers of [{}, { 'x-api-key': 'nope' }] as Record<string, string>[]) {
      const res = await injectGet(t.app, '/api/grains', undefined, headers);
      assert.equal(res.status, 401);
      assert.equal(res.headers['www-authenticate'], 'ApiKey realm="grain-grading-tables", header="X-API-Key"');
    }
  });

  it('*, br;q=0 is not answered with brotli', async () => {
    const res = await injectGet(t.app, '/api/openapi.json', undefined, { 'accept-encoding': '*, br;q=0' });
    assert.equal(res.headers['content-encoding'], 'gzip');
  });

  it('a request target over 8 KiB is 414 uri_too_long, one at the limit is routed as any other', async () => {
    const at = `/api/grains/${'A'.repeat(MAX_TARGET_BYTES - '/api/grains/'.length)}`;
    assert.equal((await injectGet(t.app, at)).status, 401, 'a data path: the key is asked for first');
    const over = await injectGet(t.app, `${at}A`);
    assert.equal(over.status, 414);
    assert.equal(over.json().code, 'uri_too_long');
    assert.equal(over.headers['content-type'], 'application/json; charset=utf-8');
  });

  it('x-gzip is answered with the gzip body, named gzip', async () => {
    const plain = await injectGet(t.app, '/api/openapi.json');
    const res = await injectGet(t.app, '/api/openapi.json', undefined, { 'accept-encoding': 'x-gzip' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(res.body), plain.body);
  });

  it(
    'If-Match: a strong match serves, anything else is 412 (counted), ' + 'and it is read before If-None-Match',
    async () => {
      const fresh = await injectRegister(t.app, 'preconditions@example.com');
      const first = await injectGet(t.app, '/api/grains/CANOLA', fresh);
      const etag = first.headers.etag!;
      const status = async (headers: Record<string, string>) =>
        (await injectGet(t.app, '/api/grains/CANOLA', fresh, headers)).status;
      assert.equal(await status({ 'if-match': etag }), 200);
      assert.equal(await status({ 'if-match': '*' }), 200);
      const failed = await injectGet(t.app, '/api/grains/CANOLA', fresh, { 'if-match': `W/${etag}` });
      assert.equal(failed.status, 412);
      assert.equal(failed.headers['x-ratelimit-used'], '4', 'a 412 is counted like any authorised answer');
      assert.equal(await status({ 'if-match': '"other"', 'if-none-match': etag }), 412);
    },
  );

  it('a false If-Match revokes nothing: 412 for a live key (a tag or *), 401 for another, 204 without', async () => {
    const k = await injectRegister(t.app, 'if-match-revoke@example.com');
    const revoke = (key: string, headers: Record<string, string> = {}) =>
      inject(t.app, { method: 'DELETE', url: '/api/keys/current', headers: { 'x-api-key': key, ...headers } });
    for (const ifMatch of ['"nope"', '*', 'W/"x", "y"']) {
      const res = await revoke(k, { 'if-match': ifMatch });
      assert.equal(res.status, 412, ifMatch);
      assert.equal(res.json().code, 'precondition_failed');
    }
    assert.equal((await injectGet(t.app, '/api/grains/CWRS', k)).status, 200, 'the key still works');
    const other = await injectRegister(t.app, 'if-match-other@example.com');
    assert.equal((await revoke(other)).status, 204);
    assert.equal((await revoke(other, { 'if-match': '*' })).status, 401, 'a revoked key is refused as it would be');
    assert.equal((await revoke(k)).status, 204);
  });

  it('a false If-Match is 412 on every route, before anything is done; * holds where a GET answers', async () => {
    const cases: [method: string, url: string, ifMatch: string, status: number, body?: string][] = [
      ['POST', '/api/register', '*', 412, '{"email":"if-match-register@example.com"}'],
      ['POST', '/api/register', '"x"', 412, '{"email":"if-match-register@example.com"}'],
      ['POST', '/api/keys/recover', '*', 412, '{"email":"if-match-register@example.com"}'],
      ['POST', '/api/keys/recover/confirm', '"x"', 412, '{"token":"x"}'],
      ['GET', '/health', '"x"', 412],
      ['HEAD', '/health', '"x"', 412],
      ['GET', '/health', '*', 200],
      ['GET', '/recover', '"x"', 412],
      ['GET', '/recover', '*', 200],
      ['GET', '/tables/', '"x"', 412],
      ['GET', '/tables/', '*', 200],
    ];
    for (const [method, url, ifMatch, status, body] of cases) {
      const headers = { 'if-match': ifMatch, ...(body ? { 'content-type': 'application/json' } : {}) };
      const res = await inject(t.app, { method, url, headers, body });
      assert.equal(res.status, status, `${method} ${url} If-Match: ${ifMatch}`);
      if (status === 412 && method !== 'HEAD') assert.equal(res.json().code, 'precondition_failed');
    }
    const form = await inject(t.app, {
      method: 'POST',
      url: '/register',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'if-match': '"x"' },
      body: 'email=if-match-form%40example.com',
    });
    assert.equal(form.status, 412);
  });

  it('a conditional GET is answered 304 even when the hour is spent, and costs nothing', async () => {
    const spent = await injectRegister(t.app, 'spent@example.com');
    const first = await injectGet(t.app, '/api/grains', spent);
    for (let i = 0; i < 4; i++) await injectGet(t.app, '/api/grains', spent);
    assert.equal((await injectGet(t.app, '/api/grains', spent)).status, 429);
    const nm = await injectGet(t.app, '/api/grains', spent, { 'if-none-match': first.headers.etag! });
    assert.equal(nm.status, 304);
    assert.equal(nm.headers.etag, first.headers.etag);
    assert.equal(nm.headers['x-ratelimit-remaining'], '0');
    assert.equal(nm.headers['x-ratelimit-used'], '5');
    assert.equal(nm.headers['retry-after'], undefined);
  });

  it('a 304 carries the ETag a 200 to the same request would (RFC 9110 §15.4.5); another tag is a 200', async () => {
    const k = await injectRegister(t.app, 'names-etag@example.com');
    const plain = await injectGet(t.app, '/api/grains/CWAD', k);
    const br = await injectGet(t.app, '/api/grains/CWAD', k, { 'accept-encoding': 'br' });
    assert.notEqual(plain.headers.etag, br.headers.etag);
    const ask = (etag: string, ae: string) =>
      injectGet(t.app, '/api/grains/CWAD', k, { 'if-none-match': etag, 'accept-encoding': ae });
    const cases: [sent: string, ae: string, status: number, etag: string][] = [
      [plain.headers.etag!, 'identity', 304, plain.headers.etag!],
      [br.headers.etag!, 'br', 304, br.headers.etag!],
      [`"other", ${plain.headers.etag}, ${br.headers.etag}`, 'br', 304, br.headers.etag!],
      [`W/${br.headers.etag}`, 'br', 304, br.headers.etag!],
      ['*', 'br', 304, br.headers.etag!],
      // the plain body's tag, asked with brotli: the 200 would send brotli, so the brotli body is sent
      [plain.headers.etag!, 'br, gzip', 200, br.headers.etag!],
      [br.headers.etag!, 'identity', 200, plain.headers.etag!],
    ];
    for (const [sent, ae, status, etag] of cases) {
      const res = await ask(sent, ae);
      assert.equal(res.status, status, `${sent} with ${ae}`);
      assert.equal(res.headers.etag, etag, `${sent} with ${ae}`);
    }
  });

  it('Last-Modified on the data, the pages and the feed; If-Modified-Since without If-None-Match', async () => {
    const k = await injectRegister(t.app, 'modified-since@example.com');
    const live = statSync(join(t.siteDir, 'current.json')).mtimeMs;
    const expected = new Date(Math.floor(live / 1000) * 1000).toUTCString();
    for (const path of [
      '/api/grains/CWRS',
      '/api/changelog',
      '/tables/',
      '/tables/CWRS',
      '/tables/changes.atom',
      '/',
    ]) {
      const res = await injectGet(t.app, path, path.startsWith('/api/') ? k : undefined);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers['last-modified'], expected, `${path}: the time the build went live`);
    }
    const first = await injectGet(t.app, '/api/grains/CWRS', k, { 'accept-encoding': 'gzip' });
    const used = Number(first.headers['x-ratelimit-used']);
    const since = (value: string, more: Record<string, string> = {}) =>
      injectGet(t.app, '/api/grains/CWRS', k, { 'if-modified-since': value, 'accept-encoding': 'gzip', ...more });
    const same = await since(expected);
    assert.equal(same.status, 304);
    assert.equal(same.body.length, 0);
    assert.equal(same.headers.etag, first.headers.etag, 'the 304 names the tag the 200 would');
    assert.equal(same.headers['last-modified'], expected);
    assert.equal(same.headers['x-ratelimit-used'], String(used), 'a 304 is not counted');
    const later = new Date(Date.parse(expected) + 3_600_000).toUTCString();
    const earlier = new Date(Date.parse(expected) - 1000).toUTCString();
    assert.equal((await since(later)).status, 304, 'a later date');
    assert.equal((await since(earlier)).status, 200, 'a second before');
    assert.equal((await since('yesterday')).status, 200, 'a date that does not parse is ignored');
    const other = await injectRegister(t.app, 'modified-since-2@example.com');
    const decides = await injectGet(t.app, '/api/grains/CWRS', other, {
      'if-modified-since': expected,
      'if-none-match': '"other"',
    });
    assert.equal(decides.status, 200, 'If-None-Match decides');
    const feed = await injectGet(t.app, '/tables/changes.atom', undefined, { 'if-modified-since': expected });
    assert.equal(feed.status, 304, 'a feed reader polling with the date downloads nothing');
    assert.equal(feed.headers['access-control-allow-origin'], '*');
  });
});

// node:http's parser hands the app a request target in absolute form as it came: bytes on a socket
describe('HTTP details on the wire', () => {
  let t: TestGateway;
  let key: string;
  before(async () => {
    t = await startTestGateway({ RATE_LIMIT_PER_HOUR: '5' });
    key = await register(t.url, 'details@example.com');
  });
  after(() => t.close());

  /** The status line of the answer to `bytes`, sent in one write on a connection of their own. */
  const statusOf = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => socket.end(bytes));
      let out = '';
      socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
      socket.on('close', () => resolve(out.split('\r\n')[0]!));
      socket.on('error', (e) => (out ? resolve(out.split('\r\n')[0]!) : reject(e)));
    });

  /** The whole answer to `bytes` (one request, `Connection: close`), head and body, as text. */
  const answerTo = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => socket.end(bytes));
      let out = '';
      socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
      socket.on('close', () => resolve(out));
      socket.on('error', (e) => (out ? resolve(out) : reject(e)));
    });
  const headerOf = (answer: string, name: string) =>
    new RegExp(`\r\n${name}: ([^\r]*)\r\n`, 'i').exec(answer.slice(0, answer.indexOf('\r\n\r\n') + 2))?.[1];

  it('every 405 names the methods in Allow, CONNECT included (RFC 9110 §15.5.6)', async () => {
    const connectAnswer = await answerTo('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assert.match(connectAnswer, /^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    assert.equal(headerOf(connectAnswer, 'Allow'), 'GET, HEAD, POST, DELETE, OPTIONS');
    assert.equal(JSON.parse(connectAnswer.slice(connectAnswer.indexOf('\r\n\r\n') + 4)).code, 'connect_not_allowed');
    const cases: [method: string, path: string, allow: string][] = [
      ['PUT', '/api/grains', 'GET, HEAD'],
      ['OPTIONS', '/api/grains', 'GET, HEAD'],
      ['DELETE', '/recover', 'GET, HEAD, POST'],
      ['GET', '/api/keys/current', 'DELETE'],
      ['POST', '/tables/', 'GET, HEAD, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await answerTo(`${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 405 /, `${method} ${path}`);
      assert.equal(headerOf(answer, 'Allow'), allow, `${method} ${path}`);
    }
  });

  it('X-API-Key sent twice is 400 repeated_key, naming the header; each key alone works', async () => {
    const other = await register(t.url, 'details-other@example.com');
    for (const [method, path] of [
      ['GET', '/api/grains/CWRS'],
      ['DELETE', '/api/keys/current'],
    ]) {
      const answer = await answerTo(
        `${method} ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nX-API-Key: ${other}\r\n` +
          'Connection: close\r\n\r\n',
      );
      assert.match(answer, /^HTTP\/1\.1 400 /, `${method} ${path}`);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
      assert.equal(body.code, 'repeated_key');
      assert.match(body.error, /^X-API-Key holds more than one value/);
      assert.ok(!answer.includes(key) && !answer.includes(other), 'no key is echoed');
    }
    assert.equal((await get(t.url, '/api/grains/CWRS', other)).status, 200, 'nothing was revoked');
  });

  it('a public body answers a preflight from another origin; a keyed one does not (Other origins)', async () => {
    const preflight = (path: string, headers = 'if-none-match') =>
      answerTo(
        `OPTIONS ${path} HTTP/1.1\r\nHost: x\r\nOrigin: https://viewer.example\r\n` +
          `Access-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: ${headers}\r\n` +
          'Connection: close\r\n\r\n',
      );
    for (const path of [
      '/api/openapi.json',
      '/tables/',
      '/tables/CWRS',
      '/tables/changes.atom',
      '/client/grade.js',
      '/health',
    ]) {
      const answer = await preflight(path);
      assert.match(answer, /^HTTP\/1\.1 204 /, path);
      assert.equal(headerOf(answer, 'Access-Control-Allow-Origin'), '*', path);
      assert.equal(headerOf(answer, 'Access-Control-Allow-Methods'), 'GET, HEAD', path);
      assert.match(headerOf(answer, 'Access-Control-Allow-Headers') ?? '', /If-None-Match/, path);
      assert.doesNotMatch(headerOf(answer, 'Access-Control-Allow-Headers') ?? '', /X-API-Key/i, path);
      assert.equal(headerOf(answer, 'Allow'), 'GET, HEAD, OPTIONS', path);
    }
    for (const path of ['/api/grains', '/api/grains/CWRS', '/api/changelog', '/api/snapshot', '/api/keys/current']) {
      const answer = await preflight(path, 'x-api-key');
      assert.match(answer, /^HTTP\/1\.1 405 /, path);
      assert.equal(headerOf(answer, 'Access-Control-Allow-Origin'), undefined, path);
    }
    const keyed = await answerTo(
      `GET /api/grains HTTP/1.1\r\nHost: x\r\nOrigin: https://viewer.example\r\nX-API-Key: ${key}\r\n` +
        'Connection: close\r\n\r\n',
    );
    assert.match(keyed, /^HTTP\/1\.1 200 /);
    assert.equal(headerOf(keyed, 'Access-Control-Allow-Origin'), undefined, 'a keyed answer says nothing to a page');
    const feed = await answerTo(
      'GET /tables/changes.atom HTTP/1.1\r\nHost: x\r\nOrigin: https://reader.example\r\nConnection: close\r\n\r\n',
    );
    assert.equal(headerOf(feed, 'Access-Control-Allow-Origin'), '*');
    assert.equal(headerOf(feed, 'Access-Control-Expose-Headers'), 'ETag');
  });

  it('OPTIONS * is answered with what the server takes (RFC 9110 §9.3.7)', async () => {
    const answer = await answerTo('OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 204 No Content\r\n/);
    assert.equal(headerOf(answer, 'Allow'), 'GET, HEAD, POST, DELETE, OPTIONS');
    assert.ok(answer.endsWith('\r\n\r\n'), 'no body');
    const get = await answerTo('GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(get, /^HTTP\/1\.1 404 /, 'only OPTIONS names the server as a whole');
  });

  it("a URL past the parser's 16 KiB is 414, a header past it 431 (RFC 9112 §3, RFC 6585 §5)", async () => {
    const big = 'a'.repeat(20 * 1024);
    assert.equal(await statusOf(`GET /${big} HTTP/1.1\r\nHost: x\r\n\r\n`), 'HTTP/1.1 414 URI Too Long');
    assert.equal(await statusOf(`GET /api/grains?q=${big} HTTP/1.1\r\nHost: x\r\n\r\n`), 'HTTP/1.1 414 URI Too Long');
    const nine = 'a'.repeat(9 * 1024);
    assert.equal(
      await statusOf(`GET /${nine} HTTP/1.1\r\nHost: x\r\nX-Big: ${nine}\r\n\r\n`),
      'HTTP/1.1 414 URI Too Long',
      'a 9 KiB URL is too long, whatever pushed the whole over',
    );
    assert.equal(
      await statusOf(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`),
      'HTTP/1.1 431 Request Header Fields Too Large',
    );
    assert.equal(
      await statusOf(`GET /${nine.slice(1025)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      'HTTP/1.1 404 Not Found',
      'an 8 KiB URL is routed',
    );
  });

  it('an absolute-form request target is served as its origin form', async () => {
    const { port } = new URL(t.url);
    const origin = await get(t.url, '/api/grains/CWRS', key);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(
          `GET http://127.0.0.1:${port}/api/grains/CWRS HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
            `X-API-Key: ${key}\r\nConnection: close\r\n\r\n`,
        ),
      );
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c)).on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
    });
    assert.match(raw, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(raw.endsWith(origin.text()), 'the same body as the origin form');
    assert.match(raw, new RegExp(`\r\nETag: ${origin.headers.etag}\r\n`, 'i'));
  });
});
