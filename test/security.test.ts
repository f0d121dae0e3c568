// security: keys stay secret, hostile URLs and oversized input get clear errors, nothing reaches 500.
// What the app decides is asked of it in process (helpers/inject.ts); what node:http reads off the
// socket (raw bytes, sizes while reading) and the access log server.ts writes go to a listening gateway.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { clientAddress, parseTrustProxy } from '../gateway/client-address.ts';
import { MESSAGES } from '../gateway/errors.ts';
import {
  bodyCrc32,
  digestBytes,
  digestHex,
  generateKey,
  hashKey,
  isWellFormedKey,
  KEY_LENGTH,
} from '../gateway/keys.ts';
import { safePath } from '../gateway/log.ts';
import { createKeyCache } from '../gateway/store/sqlite/key-cache.ts';
import { createKeyFilter, prefixOf } from '../gateway/store/sqlite/key-filter.ts';
import { errorJson } from './helpers/errors.ts';
import { register, request, startTestGateway, type TestGateway } from './helpers/gateway.ts';
import { type InjectRequest, inject, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';

/** The gateway's app, in process. */
let t: TestApp;
/** A listening gateway: the bytes on the socket, and the access log. */
let wire: TestGateway;
let key: string;
/** Every answer either gave: none may hold a key but its 201 (checked last). */
const responses: { path: string; res: { status: number; headers: object; body: Buffer } }[] = [];
const issued: string[] = [];

before(async () => {
  const env = { REGISTER_LIMIT_PER_HOUR: '1000', RATE_LIMIT_PER_HOUR: '100000' };
  t = await startTestApp(env);
  wire = await startTestGateway(env);
  key = await injectRegister(t.app, 'security@example.com');
  issued.push(key);
});
after(() => Promise.all([t.close(), wire.close()]));

async function send(path: string, opts: Omit<InjectRequest, 'url'> = {}) {
  const res = await inject(t.app, { url: path, ...opts });
  responses.push({ path, res });
  return res;
}

/** Sends raw bytes and reads the raw answer (for requests a client library would not send). */
function raw(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new URL(wire.url);
    const socket = connect(Number(u.port), u.hostname, () => socket.end(bytes));
    let out = '';
    socket.on('data', (c) => (out += c.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', (e) => (out ? resolve(out) : reject(e)));
  });
}

describe('security', () => {
  describe('keys', () => {
    it('are 42 characters: prefix, 192 random bits, checksum; every single-character slip is caught', () => {
      const k = generateKey();
      assert.equal(k.length, KEY_LENGTH);
      assert.match(k, /^ggt_[A-Za-z0-9_-]{38}$/);
      assert.ok(isWellFormedKey(k));
      assert.notEqual(generateKey(), k);
      for (let i = 4; i < k.length; i++) {
        const c = k[i] === 'A' ? 'B' : 'A';
        assert.equal(isWellFormedKey(k.slice(0, i) + c + k.slice(i + 1)), false, `changed at ${i}`);
      }
      assert.equal(isWellFormedKey(`${k}x`), false);
      assert.equal(isWellFormedKey(k.toUpperCase()), false);
    });

    // The checksum and the digest are computed by hand-written code on the hot path (keys.ts); they
    // must stay exactly what zlib and OpenSSL compute, or keys issued earlier would stop working.
    const checksumOf = (body: string) => {
      const b = Buffer.alloc(4);
      b.writeUInt32BE(crc32(body) >>> 0);
      return b.toString('base64url');
    };
    const bodies: [string, string][] = [
      ['all A', 'A'.repeat(32)],
      ['all _', '_'.repeat(32)],
      ['all -', '-'.repeat(32)],
      ['the whole alphabet', 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef'],
      ['digits and the rest', 'ghijklmnopqrstuvwxyz0123456789-_'],
      ...Array.from({ length: 200 }, (_, i): [string, string] => [
        `random ${i}`,
        randomBytes(24).toString('base64url'),
      ]),
    ];
    it('checksum: CRC-32 as node:zlib computes it, in base64url of its 4 big-endian bytes', () => {
      for (const [name, body] of bodies) {
        assert.equal(bodyCrc32(body, 0, 32), crc32(body) >>> 0, name);
        assert.ok(isWellFormedKey(`ggt_${body}${checksumOf(body)}`), name);
      }
      for (let i = 0; i < 200; i++) {
        const k = generateKey();
        assert.equal(k.slice(36), checksumOf(k.slice(4, 36)), k.slice(0, 8));
      }
    });
    const notBase64url: [string, string][] = [
      ['a space', ' '],
      ['a plus', '+'],
      ['a slash', '/'],
      ['an equals sign', '='],
      ['a dot', '.'],
      ['NUL', '\0'],
      ['DEL', '\x7f'],
      ['é (one byte in latin1)', '\u00e9'],
      ['a CJK character', '\u4e2d'],
      ['half a surrogate pair', '\ud83d'],
    ];
    for (const [name, c] of notBase64url) {
      it(`refuses a key with ${name} in it, even with a checksum computed over it`, () => {
        const body = `${c}${'A'.repeat(31)}`;
        assert.equal(bodyCrc32(body, 0, 32), -1);
        const forged = `ggt_${body}${checksumOf(body)}`;
        assert.equal(isWellFormedKey(forged), false);
        assert.equal(isWellFormedKey(`ggt_${'A'.repeat(31)}${c}${checksumOf('A'.repeat(32))}`), false);
      });
    }
    it('refuses a wrong prefix and wrong lengths', () => {
      const k = generateKey();
      for (const bad of [
        '',
        'ggt_',
        k.slice(0, -1),
        `${k}A`,
        `GGT_${k.slice(4)}`,
        `ggx_${k.slice(4)}`,
        `xggt_${k.slice(5)}`,
      ]) {
        assert.equal(isWellFormedKey(bad), false, JSON.stringify(bad));
      }
    });
    it('digest: SHA-256 as node:crypto computes it, as bytes and hex', () => {
      for (const k of [
        ...bodies.map(([, b]) => `ggt_${b}${checksumOf(b)}`),
        '',
        'x',
        'a'.repeat(55),
        'a'.repeat(56),
        'a'.repeat(200),
        'é中🌾',
      ]) {
        const expected = createHash('sha256').update(k).digest();
        assert.equal(hashKey(k).length, 32);
        assert.deepEqual(digestBytes(hashKey(k)), expected, k);
        assert.equal(digestHex(hashKey(k)), expected.toString('hex'), k);
      }
    });

    // A flood of made-up keys is the cheapest attack there is: a key whose checksum
    // fails reaches no store lookup and gets the one prepared 401, allocated once; a well-formed
    // unknown key costs one lookup. The gateway's own app and store, counted, not replaced.
    it('refuses made-up keys without a store lookup, with one prepared response', () => {
      const { app, store } = t;
      const findByKey = store.findByKey;
      let lookups = 0;
      store.findByKey = (k) => {
        lookups++;
        return findByKey.call(store, k);
      };
      try {
        const ask = (k: string, method = 'GET') =>
          app.handle({
            method,
            url: '/api/grains/CWRS',
            headers: { 'x-api-key': k },
            remoteAddress: '127.0.0.1',
            readBody: async () => Buffer.alloc(0),
          });
        const wellFormed = generateKey();
        const cases: [name: string, key: string, method: string, lookups: number][] = [
          ['a wrong checksum', `${wellFormed.slice(0, -1)}${wellFormed.endsWith('A') ? 'B' : 'A'}`, 'GET', 0],
          ['the wrong length', `${wellFormed}A`, 'GET', 0],
          ['not our prefix', `xyz_${wellFormed.slice(4)}`, 'GET', 0],
          // two characters of the checksum changed (a key that happens to end in AA gets BB)
          ['a wrong checksum, HEAD', `${wellFormed.slice(0, -2)}${wellFormed.endsWith('AA') ? 'BB' : 'AA'}`, 'HEAD', 0],
          ['well-formed, never issued', wellFormed, 'GET', 1],
        ];
        const first = new Map<string, unknown>();
        for (const [name, k, method, expected] of cases) {
          lookups = 0;
          const r = ask(k, method);
          assert.ok(!(r instanceof Promise), name);
          assert.equal(r.status, 401, name);
          assert.equal(r.body === null, method === 'HEAD', name);
          assert.equal(lookups, expected, name);
          if (expected === 0) {
            // the same object every time: no response is built for a made-up key
            if (!first.has(method)) first.set(method, r);
            assert.equal(r, first.get(method), name);
            assert.equal(ask(`${generateKey().slice(0, -1)}-`, method), r, name);
          }
        }
      } finally {
        store.findByKey = findByKey;
      }
    });

    const inUrl = ['api_key', 'apikey', 'key', 'X-API-Key', 'token', 'access_token'];
    for (const name of inUrl) {
      it(`refuses a key in the query string as ${name}, without echoing it`, async () => {
        const res = await send(`/api/grains?${name}=${encodeURIComponent(key)}`);
        assert.equal(res.status, 400);
        assert.deepEqual(res.json(), errorJson('keyInQuery', 400));
      });
    }

    it('refuses a key anywhere in the URL, even with a valid header', async () => {
      for (const path of [`/api/grains/${key}`, `/api/changelog?x=${key}`, `/api/grains?${key}`]) {
        const res = await send(path, { headers: { 'x-api-key': key } });
        assert.equal(res.status, 400, path);
        assert.equal(res.headers['x-ratelimit-used'], undefined, 'not counted, not served');
      }
    });

    it('refuses two X-API-Key headers, saying so', async () => {
      const other = await injectRegister(t.app, 'security-2@example.com');
      issued.push(other);
      // as node:http hands two of them to the app: one value, joined
      const res = await send('/api/grains', { headers: { 'x-api-key': `${key}, ${other}` } });
      assert.equal(res.status, 400);
      assert.deepEqual(res.json().error, MESSAGES.repeatedKey);
      assert.ok(!res.text().includes(key) && !res.text().includes(other), 'no key is echoed');
    });

    describe('the filter of issued key hashes', () => {
      const hashes = Array.from({ length: 5_000 }, () => hashKey(generateKey()));
      const cases: [string, string[]][] = [
        ['none', []],
        ['one', hashes.slice(0, 1)],
        ['a prefix of 0 (stored as 1)', ['\0'.repeat(32)]],
        ['a prefix with the top bit set', [`\xff\xfe\x80\x01${'\0'.repeat(28)}`]],
        ['5,000, growing from 1,024 slots', hashes],
      ];
      for (const [name, held] of cases) {
        it(`holds every hash added: ${name}`, () => {
          const filter = createKeyFilter(held);
          for (const h of held) assert.ok(filter.mightHold(h));
          assert.equal(filter.size, new Set(held.map((h) => digestBytes(h).readUInt32BE(0) || 1)).size);
          for (const h of held) assert.equal(prefixOf(h), digestBytes(h).readUInt32BE(0) || 1);
        });
      }
      it('refuses hashes it was not given (false positives about n in 2^32)', () => {
        const filter = createKeyFilter(hashes);
        let positives = 0;
        for (let i = 0; i < 20_000; i++) if (filter.mightHold(hashKey(generateKey()))) positives++;
        assert.ok(positives <= 2, `${positives} false positives`);
        const added = hashKey(generateKey());
        assert.equal(filter.mightHold(added), false);
        filter.add(added);
        assert.equal(filter.mightHold(added), true);
      });
    });

    describe('the cache of verified keys', () => {
      const account = (id: string) => ({ id, email: `${id}@example.com`, keyId: `key-${id}` });
      type Cached = ReturnType<typeof account>;
      it('answers what was set, and forgets a key dropped (revoked) in either generation', () => {
        const cache = createKeyCache<Cached>(2);
        cache.set('k1', account('1'));
        cache.set('k2', account('2'));
        cache.set('k3', account('3')); // k1, k2 become the older generation
        assert.deepEqual(cache.get('k2'), account('2'));
        cache.dropKey('key-1');
        cache.dropKey('key-3');
        assert.equal(cache.get('k1'), undefined);
        assert.equal(cache.get('k3'), undefined);
        assert.deepEqual(cache.get('k2'), account('2'));
      });
      it('holds at most 2 × max keys, keeping the ones used lately', () => {
        const cache = createKeyCache<Cached>(100);
        for (let i = 0; i < 1_000; i++) {
          cache.set(`k${i}`, account(String(i)));
          assert.ok(cache.get('k0'), 'a key in use stays'); // used after every set
          assert.ok(cache.size <= 200);
        }
        assert.equal(cache.get('k1'), undefined, 'a key not used since is gone');
        // as many keys as max, used in turn, all stay (an LRU of max would keep them too)
        const cycle = createKeyCache<Cached>(100);
        for (let round = 0; round < 5; round++) {
          for (let i = 0; i < 100; i++) {
            if (round > 0) assert.ok(cycle.get(`c${i}`), `round ${round}, key ${i}`);
            else cycle.set(`c${i}`, account(String(i)));
          }
        }
        assert.ok(cache.get('k999'));
        cache.clear();
        assert.equal(cache.size, 0);
        assert.equal(cache.get('k0'), undefined);
      });
    });

    it('refuses a well-formed key never issued, and a rotated one, with the same 401', async () => {
      const unknown = generateKey();
      assert.ok(isWellFormedKey(unknown));
      const email = 'security-replace@example.com';
      const first = await injectRegister(t.app, email);
      const second = await injectRegister(t.app, email, { 'x-api-key': first });
      issued.push(first, second);
      assert.equal((await send('/api/grains', { headers: { 'x-api-key': second } })).status, 200);
      for (const k of [unknown, first]) {
        const res = await send('/api/grains', { headers: { 'x-api-key': k } });
        assert.equal(res.status, 401);
        assert.deepEqual(res.json(), errorJson('invalidKey', 401));
        assert.equal(res.headers['x-ratelimit-used'], undefined);
      }
    });

    it('masks key-shaped text in a logged path', () => {
      assert.equal(safePath('/api/grains/ggt_abc-DEF_12?api_key=ggt_x'), '/api/grains/ggt_[redacted]');
    });
  });

  describe('hostile paths', () => {
    const paths = [
      '/api/grains/../changelog',
      '/api/grains/..%2Fchangelog',
      '/api/grains/CWRS%2F..%2F..%2Fetc%2Fpasswd',
      '/api/grains/%2e%2e/%2e%2e/etc/passwd',
      '/api/grains%2FCWRS',
      '/api/grains/CWRS%00',
      '/api/grains/CWRS/',
      '/api/../api/grains',
      '//api/grains',
      '/API/GRAINS',
      '/api/grains/CWRS;.json',
      '/api/grains/%C3%A9',
      `/api/grains/${'A'.repeat(5000)}`,
      '/site/current.json',
      '/bodies/../manifest.json',
      '/api/changelog/../../site/current.json',
    ];
    for (const path of paths) {
      it(`never serves a file for ${path.slice(0, 60)}`, async () => {
        const res = await send(path, { headers: { 'x-api-key': key } });
        assert.ok([400, 404].includes(res.status), `${res.status} ${res.text()}`);
        assert.equal(res.json().status, res.status);
        assert.ok(!res.text().includes('root:'), 'no file content');
      });
    }
  });

  describe('oversized and malformed input', () => {
    it('431 for headers over 16 KiB, as JSON', async () => {
      const answer = await raw(`GET /api/grains HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 431 /);
      assert.match(answer, /"status":431/);
    });

    it('400 for a request line that is not HTTP', async () => {
      const answer = await raw('HELLO WORLD\r\n\r\n');
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.match(answer, /"error":"The request is not valid HTTP\."/);
    });

    it('413 for a declared body over 1 KiB, before reading it', async () => {
      // the body is never sent: the answer must come from the Content-Length alone
      const answer = await raw(
        'POST /api/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          'Content-Length: 5000000\r\n\r\n{"email":',
      );
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.match(answer, /\r\nConnection: close\r\n/i);
      assert.match(answer, /"status":413/);
    });

    it('413 for a chunked body that grows past 1 KiB', async () => {
      const chunk = `{"email":"big@example.com","pad":"${'x'.repeat(3000)}"}`;
      const answer = await raw(
        'POST /api/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          'Transfer-Encoding: chunked\r\n\r\n' +
          `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
      );
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.equal(await wire.gateway.store.show('big@example.com'), null);
    });

    it('a deeply nested or huge JSON body is a 400 or 413, never a crash', async () => {
      for (const body of [
        '['.repeat(900) + ']'.repeat(900),
        `{"email":{"email":{"email":"a@example.com"}}}`,
        '{"email":"a@example.com","email":"b"}',
      ]) {
        const res = await send('/api/register', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        assert.ok([400, 413].includes(res.status), `${res.status}`);
      }
    });
  });

  describe('client addresses', () => {
    const trust = (text: string) => {
      const t = parseTrustProxy(text);
      assert.ok(!('error' in t), text);
      return t;
    };
    const cdn = '10.0.0.0/8, 192.0.2.7';
    const cases: [string | undefined, string | undefined, string, string][] = [
      ['203.0.113.9', undefined, '0', '203.0.113.9'],
      ['203.0.113.9', '198.51.100.1', '0', '203.0.113.9'], // no proxy trusted: the header is ignored
      // the proxies named: X-Forwarded-For is read hop by hop while the writer is one of them
      ['10.0.0.1', '198.51.100.1', cdn, '198.51.100.1'],
      ['192.0.2.7', '198.51.100.1', cdn, '198.51.100.1'],
      ['10.0.0.2', '198.51.100.1, 10.0.0.1', cdn, '198.51.100.1'],
      ['10.0.0.1', '6.6.6.6, 198.51.100.1', cdn, '198.51.100.1'], // what the client wrote is not believed
      ['203.0.113.9', '198.51.100.1', cdn, '203.0.113.9'], // a direct client cannot choose its address
      ['::ffff:10.0.0.1', '198.51.100.1', cdn, '198.51.100.1'],
      ['10.0.0.1', 'not-an-address', cdn, '10.0.0.1'],
      ['2001:db8::5', '198.51.100.1', '2001:db8::/32', '198.51.100.1'],
      // the older hop count, kept with a warning: it believes whoever connects
      ['10.0.0.1', '198.51.100.1', '1', '198.51.100.1'],
      ['10.0.0.1', '6.6.6.6, 198.51.100.1', '1', '198.51.100.1'],
      ['10.0.0.2', '198.51.100.1, 10.0.0.1', '2', '198.51.100.1'],
      ['10.0.0.1', '198.51.100.1', '3', '198.51.100.1'], // fewer hops than trusted: the first
      ['::ffff:203.0.113.9', undefined, '0', '203.0.113.9'],
      ['2001:db8:1:2:3:4:5:6', undefined, '0', '2001:db8:1:2::/64'],
      ['2001:db8::1', undefined, '0', '2001:db8:0:0::/64'],
    ];
    for (const [remote, xff, text, expected] of cases) {
      it(`${remote} via ${xff ?? 'nothing'} trusting ${text} is ${expected}`, () =>
        assert.equal(clientAddress(remote, xff, trust(text)), expected));
    }
  });

  it('no key appears in the log, or in any response but its 201 (checked last)', async () => {
    // The access log is written by server.ts: these requests go to the listening gateway, which
    // knows the keys issued here (the others, issued in process, it refuses as unknown ones).
    const more = await Promise.all([1, 2, 3].map((n) => register(wire.url, `security-more-${n}@example.com`)));
    issued.push(...more);
    const sendOnWire = async (path: string, headers: Record<string, string> = {}) =>
      responses.push({ path, res: await request(wire.url, path, { headers }) });
    for (const k of issued) {
      await sendOnWire('/api/grains', { 'x-api-key': k });
      await sendOnWire('/api/changelog?limit=0', { 'x-api-key': k });
      await sendOnWire(`/api/grains/NOPE?api_key=${k}`);
      await sendOnWire(`/api/grains/${k}`, { 'x-api-key': k }); // a key in the path, as asked of the app above
      await sendOnWire('/api/grains', { 'x-api-key': `${k}x` });
    }
    await wire.close();
    const log = wire.logs.join('');
    assert.ok(log.length > 1000);
    for (const k of issued) {
      assert.ok(!log.includes(k), 'a key in the log');
      assert.ok(!log.includes(k.slice(4, 20)), 'part of a key in the log');
      for (const { path, res } of responses) {
        assert.ok(!res.body.toString().includes(k.slice(4)), `a key in the answer to ${path}`);
        assert.ok(!JSON.stringify(res.headers).includes(k.slice(4)), `a key in the headers of ${path}`);
      }
    }
    // and nothing answered 500
    assert.ok(responses.every(({ res }) => res.status < 500));
  });
});
