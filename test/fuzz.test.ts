// Hostile input, generated. Requests are written as raw bytes, so malformed methods,
// paths, headers and bodies reach the server as sent. Every answer must be a documented status
// with a well-formed JSON error body, or a valid data response; never a 5xx, never a hang; the
// process stays up. npm test and CI: a fixed budget of FUZZ_RUNS (2,000) cases on a fixed seed,
// the same every run; `npm run fuzz` is the long run (100,000 cases on a random seed, said in its
// report so a failure can be replayed with FUZZ_SEED).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { get, register, startTestGateway, type TestGateway } from './helpers/gateway.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2_000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_RANDOM ? Date.now() : 20261122;
const DOCUMENTED = new Set([200, 201, 204, 301, 304, 400, 401, 404, 405, 408, 413, 414, 415, 429, 431]);

let t: TestGateway;
let key: string;
let host: string;
let port: number;
let tried = 0;
const statuses = new Map<number, number>();

before(async () => {
  t = await startTestGateway({
    RATE_LIMIT_PER_HOUR: '1000000000',
    REGISTER_LIMIT_PER_HOUR: '1000000000',
    TRUST_PROXY: '1',
  });
  key = await register(t.url, 'fuzz@example.com');
  const u = new URL(t.url);
  host = u.hostname;
  port = Number(u.port);
});
after(() => t.close());

interface Raw {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

/** Writes the bytes, reads one response (by Content-Length, or to the end), within 5 s. */
function exchange(bytes: Buffer): Promise<Raw | 'closed'> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 5 s'));
    }, 5_000);
    const finish = (r: Raw | 'closed') => {
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const tryParse = (ended: boolean) => {
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return ended ? finish('closed') : undefined;
      const head = data.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head[0]!)?.[1]);
      const headers = new Map<string, string>();
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        headers.set(line.slice(0, i).toLowerCase(), line.slice(i + 1).trim());
      }
      const body = data.subarray(end + 4);
      const length = headers.get('content-length');
      if (length !== undefined && body.length >= Number(length))
        return finish({ status, headers, body: body.subarray(0, Number(length)) });
      if (ended || status === 304 || status === 204) return finish({ status, headers, body });
    };
    socket.on('data', (c) => {
      data = Buffer.concat([data, c]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('error', () => tryParse(true));
    socket.write(bytes, () => socket.end());
  });
}

// ------------------------------------------------------------------ what is sent

const token = fc.stringMatching(/^[A-Za-z]{1,10}$/);
const method = fc.oneof(
  { arbitrary: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST'), weight: 6 },
  { arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT', 'get', 'PROPFIND'), weight: 2 },
  { arbitrary: token, weight: 1 },
);
const segment = fc.oneof(
  fc.constantFrom(
    'api',
    'grains',
    'changelog',
    'register',
    'health',
    'openapi.json',
    'CWRS',
    'cwrs',
    'CORN_CE',
    'NOPE',
    '',
    '..',
    '.',
    '%2e%2e',
    '%2F',
    '%252F',
    '%00',
    '%C3%A9',
    '%E2%80%AE',
    'ggt_',
    ';',
    '%',
    '%zz',
  ),
  fc.stringMatching(/^[A-Za-z0-9_.~%-]{0,24}$/),
  fc.string({ unit: 'grapheme', maxLength: 6 }).map(encodeURIComponent),
);
const path = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      '/api/grains',
      '/api/changelog',
      '/api/register',
      '/api/grains/CWRS',
      '/api/grains/soybeans',
      '/api/grains/cefd',
    ),
    weight: 5,
  },
  { arbitrary: fc.array(segment, { minLength: 1, maxLength: 6 }).map((s) => `/${s.join('/')}`), weight: 3 },
  fc.constantFrom(
    '/api/grains',
    '/api/grains/CWRS',
    '/api/changelog',
    '/health',
    '/api/openapi.json',
    '/api/register',
    '*',
    '//api//grains',
    '/api/grains/..%2F..%2Fsite',
    '/',
    '/docs',
    '/assets/site.css',
    '/assets/../site/current.json',
    '/assets/%2e%2e/manifest.json',
  ),
  fc.integer({ min: 1, max: 20_000 }).map((n) => `/api/grains/${'a'.repeat(n)}`),
);
const queryPart = fc.oneof(
  fc.constantFrom(
    'limit=20',
    'limit=0',
    'limit=101',
    'limit=1.5',
    'limit=abc',
    'limit=',
    'limit',
    'grain_id=cwrs',
    'grain_id=NOPE',
    'grain_id=',
    'grain_id=%zz',
    '%',
    '=',
    '&',
    'api_key=x',
    'limit=%31',
    'crop_year=2025/26',
    'crop_year=2025%2F26',
    'crop_year=2024/25',
    'crop_year=2025/27',
    'crop_year=%zz',
  ),
  fc
    .tuple(fc.stringMatching(/^[a-z_%0-9]{0,8}$/), fc.stringMatching(/^[A-Za-z0-9%+._-]{0,40}$/))
    .map(([k, v]) => `${k}=${v}`),
  fc.integer({ min: 1, max: 9_000 }).map((n) => `limit=${'9'.repeat(n)}`),
);
const query = fc.option(
  fc.array(queryPart, { maxLength: 4 }).map((p) => p.join('&')),
  { nil: undefined, freq: 2 },
);
const headerValue = fc.oneof(
  fc.stringMatching(/^[\x20-\x7e]{0,60}$/),
  fc.constantFrom(
    'gzip',
    'br',
    'br;q=0',
    'gzip;q=0.5, br;q=0.4',
    '*',
    'identity;q=0, *;q=0',
    'br;q=1.5',
    ';;;,,',
    'W/"x"',
    '*',
    '"a", "b"',
  ),
  fc.integer({ min: 1, max: 20_000 }).map((n) => 'x'.repeat(n)),
);
const headerName = fc.oneof(
  fc.constantFrom(
    'X-API-Key',
    'x-api-key',
    'Accept-Encoding',
    'If-None-Match',
    'Content-Type',
    'Content-Length',
    'X-Forwarded-For',
    'Transfer-Encoding',
    'Expect',
    'Host',
  ),
  fc.stringMatching(/^[A-Za-z-]{1,16}$/),
);
const keyHeader: fc.Arbitrary<string[]> = fc.constantFrom<string[]>(
  [],
  ['VALID'],
  ['VALID'],
  ['VALID'],
  ['VALID'],
  ['VALID', 'VALID'],
  ['ggt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ['VALIDx'],
  ['nonsense'],
  [''],
);
const jsonBody = fc.oneof(
  fc.emailAddress().map((email) => JSON.stringify({ email })),
  fc.string({ maxLength: 300 }).map((email) => JSON.stringify({ email })),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '',
    '{',
    '{"email":',
    'null',
    '[]',
    '{"email":null}',
    '{"email":["a@b.co"]}',
    '{"email":"a@b.co","email":1}',
    '\u0000',
    '{"__proto__":{"email":"a@b.co"}}',
  ),
  fc.integer({ min: 1, max: 3_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1, max: 5_000 }).map((n) => JSON.stringify({ email: `${'a'.repeat(n)}@example.com` })),
);

const request = fc.record({
  method,
  path,
  query,
  headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 5 }),
  keys: keyHeader,
  body: fc.option(jsonBody, { nil: undefined }),
  contentType: fc.constantFrom(
    undefined,
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'APPLICATION/JSON',
  ),
});
type Request = typeof request extends fc.Arbitrary<infer R> ? R : never;

function bytesOf(r: Request): Buffer {
  const target = r.query === undefined ? r.path : `${r.path}?${r.query}`;
  const lines = [`${r.method} ${target} HTTP/1.1`, `Host: ${host}`];
  for (const k of r.keys) lines.push(`X-API-Key: ${k.replace('VALID', key)}`);
  if (r.contentType) lines.push(`Content-Type: ${r.contentType}`);
  for (const [name, value] of r.headers) {
    if (/^(content-length|transfer-encoding|host)$/i.test(name)) continue; // framing is ours
    lines.push(`${name}: ${value}`);
  }
  const body = r.body === undefined ? Buffer.alloc(0) : Buffer.from(r.body);
  if (r.body !== undefined) lines.push(`Content-Length: ${body.length}`);
  lines.push('Connection: close', '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'utf8'), body]);
}

function check(r: Request, res: Raw | 'closed') {
  // not even bytes that are not HTTP may be dropped unanswered: node:http answers them 400 (server.ts)
  assert.notEqual(res, 'closed', 'every request is answered with a status, never a closed connection');
  if (res === 'closed') return;
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  assert.ok(DOCUMENTED.has(res.status), `status ${res.status}`);
  // a 204 answers OPTIONS where other origins may read (docs/contract.md, Other origins), a 301 /tables: no body
  if (res.status === 204 || res.status === 301 || res.status === 304 || r.method === 'HEAD') return;
  let body = res.body;
  const encoding = res.headers.get('content-encoding');
  if (encoding === 'br') body = brotliDecompressSync(body);
  if (encoding === 'gzip') body = gunzipSync(body);
  const type = res.headers.get('content-type');
  const page = res.status === 404 && !r.path.startsWith('/api/');
  if ((res.status === 200 || page) && type !== 'application/json; charset=utf-8') {
    // the front door's pages and assets; the page a browser gets for an unknown page
    assert.match(String(type), /^(text\/html|text\/css|text\/javascript|image\/svg\+xml)/);
    return;
  }
  assert.equal(type, 'application/json; charset=utf-8');
  const json = JSON.parse(body.toString('utf8'));
  if (res.status >= 400) {
    assert.deepEqual(Object.keys(json), ['error', 'status', 'code', 'schema_version']);
    assert.equal(json.status, res.status);
    assert.equal(typeof json.error, 'string');
    assert.ok(!body.toString().includes(key), 'the key is never echoed');
  } else {
    assert.equal((json.schema_version ?? json.openapi) ? true : json.status === 'ok', true);
  }
}

describe('fuzz', () => {
  it(`answers ${RUNS} generated requests (seed ${SEED}) with documented statuses and JSON bodies`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        tried++;
        check(r, await exchange(bytesOf(r)));
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // still up, still serving
    const health = await get(t.url, '/health');
    assert.equal(health.status, 200);
    assert.equal((await get(t.url, '/api/grains/CWRS', key)).status, 200);
    const answered = [...statuses.values()].reduce((a, b) => a + b, 0);
    assert.equal(answered, tried, 'every request tried was answered and checked');
    console.log(
      `fuzz: ${tried} requests, seed ${SEED}, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
  });
});
