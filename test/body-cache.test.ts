// The plain bodies read from disk when asked (gateway/body-cache.ts; docs/operations.md, "What an
// instance needs"): the cache alone on files of a temporary folder, then a gateway over HTTP on a
// copy of the real build: the compressed encodings held from the load, the plain one read once and
// then served from memory, and a body that cannot be read a plain 500 with nothing inside (the
// server's answer to a failure, so a real one).
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { MANIFEST_FILE, type Manifest, POINTER_FILE, parsePointer } from '../build/site-format.ts';
import { createBodyCache } from '../gateway/body-cache.ts';
import { tempDir } from './helpers/dataset.ts';
import { get, realSiteDir, register, startTestGateway } from './helpers/gateway.ts';

function files(sizes: Record<string, number>) {
  const dir = tempDir('body-cache');
  for (const [name, size] of Object.entries(sizes)) writeFileSync(join(dir, name), Buffer.alloc(size, name));
  return (name: string) => join(dir, name);
}

describe('the body cache', () => {
  it('reads a file once for every request waiting on it, then answers from memory', async () => {
    const at = files({ 'a.json': 100 });
    const cache = createBodyCache({ maxBytes: 1000 });
    const first = cache.get(at('a.json'), 100);
    const second = cache.get(at('a.json'), 100);
    assert.ok(first instanceof Promise, 'a miss is a read');
    assert.equal(second, first, 'the requests waiting on one read share it');
    assert.deepEqual(await first, Buffer.alloc(100, 'a.json'));
    rmSync(at('a.json'));
    const kept = cache.get(at('a.json'), 100);
    assert.ok(Buffer.isBuffer(kept), 'a hit is the bytes at once, the file no longer read');
    assert.deepEqual(kept, Buffer.alloc(100, 'a.json'));
    assert.equal(cache.size, 100);
  });

  it('keeps within its bound, and serves without keeping a body larger than the bound', async () => {
    const at = files({ 'a.json': 400, 'b.json': 400, 'c.json': 400, 'big.json': 1500 });
    const cache = createBodyCache({ maxBytes: 1000 });
    for (const name of ['a.json', 'b.json', 'c.json']) await cache.get(at(name), 400);
    assert.equal(cache.size, 800, 'the least recently used one left');
    assert.equal((await cache.get(at('big.json'), 1500)).length, 1500);
    assert.equal(cache.size, 800, 'the large body was served, not kept');
    assert.ok(cache.get(at('big.json'), 1500) instanceof Promise, 'and is read again when asked');
  });

  it('refuses a file whose length is not the manifest’s, and keeps nothing of it', async () => {
    const at = files({ 'short.json': 10 });
    const cache = createBodyCache({ maxBytes: 1000 });
    await assert.rejects(async () => cache.get(at('short.json'), 11), /short\.json has 10 bytes; its manifest says 11/);
    assert.equal(cache.size, 0);
  });
});

describe('a gateway serving from SITE_DIR', () => {
  it('holds what most ask for, reads the rest when asked, a body it cannot read a bare 500', async () => {
    const siteDir = tempDir('on-demand-site');
    cpSync(realSiteDir(), siteDir, { recursive: true });
    const pointer = parsePointer(readFileSync(join(siteDir, POINTER_FILE), 'utf8'));
    const build = join(siteDir, pointer.dir);
    const manifest = JSON.parse(readFileSync(join(build, MANIFEST_FILE), 'utf8')) as Manifest;
    const entryOf = (route: string) => manifest.bodies[manifest.routes[route]!]!;
    const t = await startTestGateway({ SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '1000' });
    try {
      const key = await register(t.url, 'on-demand@example.com');
      const record = t.gateway.site.current.routes.get('/api/grains/CWRS')!;
      assert.ok(Buffer.isBuffer(record.br?.body) && Buffer.isBuffer(record.gzip?.body), 'br and gzip held');
      assert.equal(record.identity.body, null, 'the plain body is not held');
      const changelog = (limit: number) => t.gateway.site.current.routes.get(`/api/changelog?limit=${limit}`)!;
      assert.ok(Buffer.isBuffer(changelog(20).br?.body), 'the changelog at its default limit held');
      assert.equal(changelog(3).br?.body, null, 'at another limit, read when asked');
      const three = await get(t.url, '/api/changelog?limit=3', key, { 'accept-encoding': 'br' });
      assert.equal(three.headers['content-encoding'], 'br');
      assert.equal(JSON.parse(brotliDecompressSync(three.body).toString()).count, 3);

      const cwrs = entryOf('/api/grains/CWRS');
      const onDisk = readFileSync(join(build, cwrs.identity.file));
      const plain = await get(t.url, '/api/grains/CWRS', key);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers['content-length'], String(onDisk.length));
      assert.equal(plain.headers.etag, cwrs.identity.etag);
      assert.deepEqual(plain.body, onDisk);
      // read once: the file gone, the body is still the same bytes, from memory
      rmSync(join(build, cwrs.identity.file));
      assert.deepEqual((await get(t.url, '/api/grains/CWRS', key)).body, onDisk);
      const gz = await get(t.url, '/api/grains/CWRS', key, { 'accept-encoding': 'gzip' });
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.deepEqual(gunzipSync(gz.body), onDisk);

      // a plain body never read, its file gone (a build pruned under the gateway): nothing inside
      const canola = entryOf('/api/grains/CANOLA');
      rmSync(join(build, canola.identity.file));
      const failed = await get(t.url, '/api/grains/CANOLA', key);
      assert.equal(failed.status, 500);
      assert.deepEqual(failed.json(), {
        error: 'Internal error.',
        status: 500,
        code: 'internal',
        schema_version: '1.0',
      });
      assert.doesNotMatch(failed.text(), /ENOENT|bodies\/|\.json/);
      assert.equal((await get(t.url, '/api/grains/CANOLA', key, { 'accept-encoding': 'br' })).status, 200);
    } finally {
      await t.close();
    }
  });
});
