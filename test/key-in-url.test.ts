// A key in a URL, however it is spelled (docs/contract.md, Errors and HTTP; docs/operations.md,
// Configuration): every spelling a client's library or a copy and paste can give is refused with 400
// key_in_query, never echoed, and never written to the access log or a metric's label. The server
// writes the log, so a real one answers, in this process.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodedAscii, holdsKey, maskKeys } from '../gateway/key-in-url.ts';
import { safePath } from '../gateway/log.ts';
import { errorJson } from './helpers/errors.ts';
import { get, register, startTestGateway, type TestGateway } from './helpers/gateway.ts';

/** Every character percent-encoded, hex digits in `upper` or lower case. */
const encodeAll = (s: string, upper: boolean) =>
  [...s]
    .map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`)
    .join('');
/** Every other character encoded, the case of the hex digits alternating too. */
const encodeMixed = (s: string) => [...s].map((c, i) => (i % 2 ? c : encodeAll(c, i % 4 === 0))).join('');

/** The spellings of `key` in a URL: [name, target]. */
function spellings(key: string): [string, string][] {
  const rest = key.slice(4);
  return [
    ['as written, in the path', `/api/grains/${key}`],
    ['the underscore encoded, in a query value', `/api/changelog?note=ggt%5F${rest}`],
    ['the first letter encoded, in a query value', `/api/changelog?note=%67gt_${rest}`],
    ['the prefix encoded in lower-case hex', `/api/changelog?note=%67%67%74%5f${rest}`],
    ['every character encoded, upper-case hex', `/api/changelog?note=${encodeAll(key, true)}`],
    ['every other character encoded, mixed-case hex', `/api/changelog?limit=5&note=${encodeMixed(key)}`],
    ['as a query parameter name', `/api/changelog?%67gt_${rest}`],
    ['encoded twice', `/api/grains?x=%2567gt_${rest}`],
    ['the first letter encoded, in the path', `/api/grains/%67gt_${rest}`],
    ['every character encoded, in the path', `/api/grains/${encodeAll(key, false)}`],
    ['its body partly encoded behind a plain prefix', `/api/grains/ggt_${encodeMixed(rest)}`],
    ['on a path that needs no key', `/health?note=%67gt_${rest}`],
    ['on an unknown path', `/nowhere/%67gt_${rest}`],
    ['in an absolute-form target', `http://localhost/api/grains/%67gt_${rest}`],
  ];
}

describe('a key in the URL, however it is spelled', () => {
  let t: TestGateway;
  let key: string;
  const TOKEN = 'metrics-token-for-the-key-test';
  before(async () => {
    t = await startTestGateway({ METRICS_TOKEN: TOKEN });
    key = await register(t.url, 'key-in-url@example.com');
  });
  after(() => t.close()); // closes once (the last test closes it to read the whole log)

  it('is refused with 400 key_in_query, not counted, the key never echoed', async () => {
    for (const [name, target] of spellings(key)) {
      // sent with the key in its header too: a request that would otherwise be served
      const res = await get(t.url, target, key);
      assert.equal(res.status, 400, name);
      assert.deepEqual(res.json(), errorJson('keyInQuery', 400), name);
      assert.equal(res.headers['x-ratelimit-used'], undefined, `${name}: not counted`);
      assert.ok(!decodedAscii(res.text()).includes(key.slice(4)), `${name}: not echoed`);
    }
  });

  it('leaves no key in the access log, nor in the metrics', async () => {
    const before = t.logs.length;
    for (const [, target] of spellings(key)) await get(t.url, target, key);
    const metrics = await get(t.url, '/metrics', undefined, { authorization: `Bearer ${TOKEN}` });
    assert.equal(metrics.status, 200);
    await t.close(); // the logger writes off the request's path: closing flushes it
    const lines = t.logs
      .slice(before)
      .join('')
      .split('\n')
      .filter((l) => l.includes('"status":400'));
    assert.ok(lines.length >= spellings(key).length, 'a line per request');
    for (const text of [...lines, metrics.text()]) {
      assert.ok(!text.includes(key.slice(4)) && !decodedAscii(text).includes(key.slice(4)), text.slice(0, 200));
    }
    const grainLines = lines.filter((l) => l.includes('"path":"/api/grains/'));
    assert.ok(grainLines.length >= 4);
    for (const l of grainLines) assert.equal(JSON.parse(l).path, '/api/grains/ggt_[redacted]');
  });
});

describe('the check and the mask (pure)', () => {
  const key = `ggt_${'aB3-_'.repeat(7)}xyz`;
  const cases: [name: string, path: string, holds: boolean, logged: string][] = [
    ['a plain path', '/api/grains/CWRS', false, '/api/grains/CWRS'],
    ['an encoded slash', '/api/grains/CWRS%2F..', false, '/api/grains/CWRS%2F..'],
    ['broken escapes left as they are', '/a%zz%6', false, '/a%zz%6'],
    ['a non-ASCII escape left as it is', '/caf%C3%A9', false, '/caf%C3%A9'],
    ['upper-case GGT_ is no key', '/api/grains/GGT_abc', false, '/api/grains/GGT_abc'],
    ['the plain prefix', `/api/grains/${key}`, true, '/api/grains/ggt_[redacted]'],
    ['an encoded prefix', `/api/grains/%67gt_${key.slice(4)}`, true, '/api/grains/ggt_[redacted]'],
    ['encoded twice', `/x/%2567%2567t_${key.slice(4)}/y`, true, '/x/ggt_[redacted]/y'],
    ['the query never logged', `/api/grains?k=%67gt_${key.slice(4)}`, true, '/api/grains'],
  ];
  for (const [name, path, holds, logged] of cases) {
    it(name, () => {
      assert.equal(holdsKey(path), holds);
      assert.equal(safePath(path), logged);
      if (!holds) assert.equal(maskKeys(path), path, 'a path without a key is logged as received');
    });
  }
});
