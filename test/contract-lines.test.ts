// Lines of docs/contract.md held against the service, one test per line, so the words and the
// code cannot drift apart: the names of credentials refused in a query (Errors and HTTP) and every
// other parameter ignored; HEAD counted as its GET (Authentication and limits); 405 for every
// method Node's parser knows, 400 bad_http for one it does not (Errors and HTTP). The app is driven
// in process; the methods go over a socket, where Node's parser is the subject.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { METHODS } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KEY_PARAMS } from '../gateway/routes.ts';
import { errorJson } from './helpers/errors.ts';
import { root, startTestGateway, type TestGateway } from './helpers/gateway.ts';
import { inject, injectGet, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';

const contract = readFileSync(join(root, 'docs/contract.md'), 'utf8');

describe('query parameters (docs/contract.md, Errors and HTTP)', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_HOUR: '100000' });
    key = await injectRegister(t.app, 'contract-lines@example.com');
  });
  after(() => t.close());

  it('names in the contract exactly the credentials the code refuses', () => {
    const line = /A query parameter named like a credential, ([\s\S]+?) \(in any case/.exec(contract)?.[1];
    assert.ok(line, 'the contract names them');
    const named = [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    assert.deepEqual(named.sort(), [...KEY_PARAMS].sort());
  });

  const paths = ['/health', '/api/grains', '/api/changelog', '/api/openapi.json', '/', '/docs', '/nowhere'];
  it('refuses each of them on every path, whatever its value, with 400 key_in_query', async () => {
    for (const name of KEY_PARAMS) {
      for (const spelt of [
        name,
        name.toUpperCase(),
        encodeURIComponent(name).replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
      ]) {
        for (const path of paths) {
          for (const value of ['x', '', '1']) {
            const res = await injectGet(t.app, `${path}?${spelt}=${value}`, key);
            assert.equal(res.status, 400, `${path}?${spelt}=${value}`);
            assert.deepEqual(res.json(), errorJson('keyInQuery', 400));
          }
        }
      }
    }
  });

  it('ignores every other unknown parameter, even ones that look like the credentials', async () => {
    const others = ['foo=1', 'keys=x', 'tokens=y', 'key_id=3', 'monkey=1', 'api=1', 'x=ggt', 'tokenize'];
    for (const path of paths.filter((p) => p !== '/nowhere')) {
      const res = await injectGet(t.app, `${path}?${others.join('&')}`, key);
      assert.equal(res.status, 200, path);
    }
  });
});

describe('HEAD counts as its GET (docs/contract.md, Authentication and limits)', () => {
  it('takes one request from the hour, and says so in its headers', async () => {
    const t = await startTestApp();
    try {
      const key = await injectRegister(t.app, 'head-counts@example.com');
      const used = async (method: string) =>
        (await inject(t.app, { method, url: '/api/grains/CWRS', headers: { 'x-api-key': key } })).headers[
          'x-ratelimit-used'
        ];
      assert.equal(await used('GET'), '1');
      assert.equal(await used('HEAD'), '2');
      assert.equal(await used('HEAD'), '3');
      assert.equal(await used('GET'), '4');
    } finally {
      await t.close();
    }
  });
});

/** The status line and headers a raw request line gets. */
function rawStatus(url: string, method: string, path: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`),
    );
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('methods (docs/contract.md, Errors and HTTP)', () => {
  let g: TestGateway;
  before(async () => {
    g = await startTestGateway();
  });
  after(() => g.close());

  const allowed: [string, string][] = [
    ['/api/grains', 'GET, HEAD'],
    ['/health', 'GET, HEAD, OPTIONS'],
    ['/api/register', 'POST'],
    ['/api/keys/current', 'DELETE'],
  ];
  it("answers 405 with the path's Allow for every method Node's parser knows", async () => {
    for (const [path, allow] of allowed) {
      for (const method of METHODS) {
        if (method === 'CONNECT' || allow.split(', ').includes(method)) continue;
        const answer = await rawStatus(g.url, method, path);
        assert.match(answer, /^HTTP\/1\.1 405 /, `${method} ${path}`);
        assert.match(answer, new RegExp(`\r\nallow: ${allow}\r\n`, 'i'), `${method} ${path}`);
      }
    }
  });

  it('answers 400 bad_http for a method token it does not know: the request never reaches the service', async () => {
    for (const method of ['FOO', 'get', 'BREW']) {
      const answer = await rawStatus(g.url, method, '/api/grains');
      assert.match(answer, /^HTTP\/1\.1 400 /, method);
      assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), errorJson('badHttp', 400));
    }
  });
});
