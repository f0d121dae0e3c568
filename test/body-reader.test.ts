// The bodies read from disk when asked (gateway/body-reader.ts; docs/operations.md, "What an
// instance needs"): the reader alone on files of a temporary folder, then a gateway over HTTP on a
// copy of the real build: the compressed forms of what most ask for held from the load, the rest
// read when asked, and a body that cannot be read a plain 500 with nothing inside (the server's
// answer to a failure, so a real one).
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { MANIFEST_FILE, type Manifest, POINTER_FILE, parsePointer } from '../build/site-format.ts';
import { createBodyReader } from '../gateway/body-reader.ts';
import { tempDir } from './helpers/dataset.ts';
import { get, realSiteDir, register, startTestGateway } from './helpers/gateway.ts';

function files(sizes: Record<string, number>) {
  const dir = tempDir('body-reader');
  for (const [name, size] of Object.entries(sizes)) writeFileSync(join(dir, name), Buffer.alloc(size, name));
  return (name: string) => join(dir, name);
}

describe('the body reader', () => {
  it('reads a file once for the requests that wait on it, and keeps nothing once read', async () => {
    const at = files({ 'a.json': 100 });
    const reader = createBodyReader();
    const first = reader.get(at('a.json'), 100);
    assert.equal(reader.get(at('a.json'), 100), first, 'the requests waiting on one read share it');
    assert.deepEqual(await first, Buffer.alloc(100, 'a.json'));
    writeFileSync(at('a.json'), Buffer.alloc(100, 'b'));
    assert.notEqual(reader.get(at('a.json'), 100), first, 'a later request reads again');
    assert.deepEqual(await reader.get(at('a.json'), 100), Buffer.alloc(100, 'b'));
  });

  it('refuses a file whose length is not the manifest’s, or that is gone', async () => {
    const at = files({ 'short.json': 10 });
    const reader = createBodyReader();
    await assert.rejects(reader.get(at('short.json'), 11), /short\.json has 10 bytes; its manifest says 11/);
    rmSync(at('short.json'));
    await assert.rejects(reader.get(at('short.json'), 10), { code: 'ENOENT' });
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
      assert.ok(Buffer.isBuffer(record.identity.body), 'and its plain form, small');
      const snapshot = t.gateway.site.current.routes.get('/api/snapshot')!;
      assert.ok(Buffer.isBuffer(snapshot.br?.body), 'the snapshot compressed held');
      assert.equal(snapshot.identity.body, null, 'plain, large: read when asked');
      const changelog = (limit: number) => t.gateway.site.current.routes.get(`/api/changelog?limit=${limit}`)!;
      assert.ok(Buffer.isBuffer(changelog(20).br?.body), 'the changelog at its default limit held');
      assert.equal(changelog(3).br?.body, null, 'at another limit, read when asked');
      const three = await get(t.url, '/api/changelog?limit=3', key, { 'accept-encoding': 'br' });
      assert.equal(three.headers['content-encoding'], 'br');
      assert.equal(JSON.parse(brotliDecompressSync(three.body).toString()).count, 3);

      const whole = entryOf('/api/snapshot');
      const onDisk = readFileSync(join(build, whole.identity.file));
      const plain = await get(t.url, '/api/snapshot', key);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers['content-length'], String(onDisk.length));
      assert.equal(plain.headers.etag, whole.identity.etag);
      assert.deepEqual(plain.body, onDisk);
      const gz = await get(t.url, '/api/snapshot', key, { 'accept-encoding': 'gzip' });
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.deepEqual(gunzipSync(gz.body), onDisk);

      // its file gone (a build pruned under the gateway): nothing inside, and br still from memory
      rmSync(join(build, whole.identity.file));
      const failed = await get(t.url, '/api/snapshot', key);
      assert.equal(failed.status, 500);
      assert.deepEqual(failed.json(), {
        error: 'Internal error.',
        status: 500,
        code: 'internal',
        schema_version: '1.0',
      });
      assert.doesNotMatch(failed.text(), /ENOENT|bodies\/|\.json/);
      assert.equal((await get(t.url, '/api/snapshot', key, { 'accept-encoding': 'br' })).status, 200);
    } finally {
      await t.close();
    }
  });
});
