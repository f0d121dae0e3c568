// The in-process helper (test/helpers/inject.ts) answers exactly as the real server does: the
// same status, headers and body for the same request, so a glue test that uses it tests what a
// client gets. Only what node:http adds on the wire (Date, Connection, Keep-Alive,
// Transfer-Encoding) is left out of the comparison.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { get, type RawResponse, register, request, startTestGateway } from './helpers/gateway.ts';
import {
  type Injected,
  type InjectRequest,
  inject,
  injectGet,
  injectRegister,
  startTestApp,
} from './helpers/inject.ts';

/** A body by its length and hash: a failure then names what differs without printing pages. */
const digest = (body: Buffer) => `${body.length} bytes, sha256 ${createHash('sha256').update(body).digest('hex')}`;
const WIRE_ONLY = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

const fromServer = (r: RawResponse) => ({
  status: r.status,
  headers: Object.fromEntries(Object.entries(r.headers).filter(([name]) => !WIRE_ONLY.has(name))),
  body: digest(r.body),
});
const fromApp = (r: Injected) => ({ status: r.status, headers: r.headers, body: digest(r.body) });

describe('inject', () => {
  it('answers each request as the server does', async () => {
    const t = await startTestGateway({ RATE_LIMIT_PER_HOUR: '3' });
    try {
      // two keys with the same history: one asked over HTTP, the other through inject
      const overHttp = await register(t.url, 'inject-http@example.com');
      const injected = await register(t.url, 'inject-app@example.com');
      const grains = await get(t.url, '/api/grains', overHttp);
      const etag = String(grains.headers.etag);
      const host = new URL(t.url).host; // the Host header the HTTP client sends
      const cases: [name: string, req: (key: string) => InjectRequest][] = [
        ['a page', () => ({ url: '/' })],
        ['health', () => ({ url: '/health' })],
        ['an unknown path', () => ({ url: '/nowhere' })],
        ['no key', () => ({ url: '/api/grains' })],
        ['a made-up key', () => ({ url: '/api/grains', headers: { 'x-api-key': `ggt_${'a'.repeat(38)}` } })],
        [
          'a record, brotli',
          (key) => ({ url: '/api/grains/CWRS', headers: { 'x-api-key': key, 'accept-encoding': 'br' } }),
        ],
        ['HEAD', (key) => ({ method: 'HEAD', url: '/api/grains', headers: { 'x-api-key': key } })],
        ['a 304', (key) => ({ url: '/api/grains', headers: { 'x-api-key': key, 'if-none-match': etag } })],
        ['a 429', (key) => ({ url: '/api/changelog', headers: { 'x-api-key': key } })],
        [
          'a body over 1 KiB',
          () => ({
            method: 'POST',
            url: '/api/register',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: `${'a'.repeat(2_000)}@example.com` }),
          }),
        ],
        ['a method not allowed', () => ({ method: 'PUT', url: '/api/grains' })],
      ];
      // the key asked through inject catches up with the first GET
      assert.equal(
        (await inject(t.gateway.app, { url: '/api/grains', headers: { 'x-api-key': injected } })).status,
        200,
      );
      const differences: string[] = [];
      const statuses: number[] = [];
      for (const [name, req] of cases) {
        const a = req(overHttp);
        const server = await request(t.url, a.url, { method: a.method, headers: a.headers, body: a.body });
        const app = await inject(t.gateway.app, { ...req(injected), headers: { host, ...req(injected).headers } });
        statuses.push(server.status);
        try {
          assert.deepEqual(fromApp(app), fromServer(server));
        } catch (err) {
          differences.push(`${name}: ${(err as Error).message}`);
        }
      }
      assert.deepEqual(differences, []);
      // the cases reach what they name (two equal 404s would prove little)
      assert.deepEqual(statuses, [200, 200, 404, 401, 401, 200, 200, 304, 429, 413, 405]);
    } finally {
      await t.close();
    }
  });

  it('drives an app assembled with no socket: a key, its hour, a 304 and the store behind it', async () => {
    const t = await startTestApp({ RATE_LIMIT_PER_HOUR: '2' });
    try {
      const key = await injectRegister(t.app, 'no-socket@example.com');
      const first = await injectGet(t.app, '/api/grains', key);
      assert.equal(first.status, 200);
      assert.equal(first.headers['x-ratelimit-remaining'], '1');
      const again = await injectGet(t.app, '/api/grains', key, { 'if-none-match': first.headers.etag! });
      assert.equal(again.status, 304);
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200);
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 429);
      t.clock.advance(3_600_000);
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200, 'the injected clock opens a new hour');
      assert.equal((await t.store.show('no-socket@example.com'))?.keys.length, 1);
    } finally {
      await t.close();
    }
  });
});
