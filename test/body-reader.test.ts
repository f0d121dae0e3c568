// The bodies read from disk when asked (gateway/body-reader.ts; docs/operations.md, "What an
// instance needs"): the reader alone on files of a temporary folder, then a gateway over HTTP on a
// copy of the real build: the compressed forms of what most ask for held from the load, the rest
// streamed from disk when asked, and a body that cannot be read a plain 500 with nothing inside (the server's
// answer to a failure, so a real one).
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { bodyHash, MANIFEST_FILE, type Manifest, POINTER_FILE, parsePointer } from '../build/site-format.ts';
import { createBodyReader } from '../gateway/body-reader.ts';
import { tempDir } from './helpers/dataset.ts';
import { get, realSiteDir, register, startTestGateway } from './helpers/gateway.ts';

function files(sizes: Record<string, number>) {
  const dir = tempDir('body-reader');
  for (const [name, size] of Object.entries(sizes)) writeFileSync(join(dir, name), Buffer.alloc(size, name));
  return (name: string) => join(dir, name);
}

describe('the body reader', () => {
  it('streams a file a chunk at a time, read afresh for each request', async () => {
    const size = 200 * 1024;
    const at = files({ 'a.json': size });
    const reader = createBodyReader();
    const chunks = (await (await reader.get(at('a.json'), size)).toArray()) as Buffer[];
    assert.deepEqual(
      chunks.map((c) => c.length),
      [65536, 65536, 65536, size - 3 * 65536],
      'a chunk held at a time, not the body',
    );
    assert.deepEqual(Buffer.concat(chunks), Buffer.alloc(size, 'a.json'));
    writeFileSync(at('a.json'), Buffer.alloc(size, 'b'));
    const again = Buffer.concat(await (await reader.get(at('a.json'), size)).toArray());
    assert.deepEqual(again, Buffer.alloc(size, 'b'), 'nothing kept from the last read');
  });

  it('unzips a gzip file as it reads it, a chunk at a time, and refuses one of another length', async () => {
    const plain = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `{"n":${i}}`).join(','));
    const at = files({});
    writeFileSync(at('a.json.gz'), gzipSync(plain));
    const reader = createBodyReader();
    const chunks = (await (await reader.unzipped(at('a.json.gz'), gzipSync(plain).length)).toArray()) as Buffer[];
    assert.ok(chunks.length > 1 && chunks.every((c) => c.length <= 65536), 'a chunk held at a time');
    assert.deepEqual(Buffer.concat(chunks), plain);
    await assert.rejects(reader.unzipped(at('a.json.gz'), 10), /a\.json\.gz has \d+ bytes; its manifest says 10/);
    writeFileSync(at('bad.json.gz'), Buffer.from('not gzip'));
    await assert.rejects((await reader.unzipped(at('bad.json.gz'), 8)).toArray(), { code: 'Z_DATA_ERROR' });
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
      const onDisk = readFileSync(join(build, whole.identity.file!));
      assert.ok(onDisk.length > 64 * 1024, 'a body of several chunks');
      const plain = await get(t.url, '/api/snapshot', key);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers['content-length'], String(onDisk.length));
      assert.equal(plain.headers.etag, whole.identity.etag);
      assert.deepEqual(plain.body, onDisk);
      const gz = await get(t.url, '/api/snapshot', key, { 'accept-encoding': 'gzip' });
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.deepEqual(gunzipSync(gz.body), onDisk);

      // its file cut short, then gone (a build pruned under the gateway): nothing inside, never a
      // body shorter than its Content-Length, and br still from memory
      writeFileSync(join(build, whole.identity.file!), onDisk.subarray(0, 1000));
      assert.equal((await get(t.url, '/api/snapshot', key)).status, 500);
      rmSync(join(build, whole.identity.file!));
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

      // a plain form stored only as gzip (build/emit/emit.ts): that file unzipped, the plain form's headers
      const one = entryOf('/api/changelog?limit=1');
      assert.equal(one.identity.file, undefined);
      const unzipped = await get(t.url, '/api/changelog?limit=1', key);
      assert.equal(unzipped.status, 200);
      assert.equal(unzipped.headers['content-encoding'], undefined);
      assert.equal(unzipped.headers['content-length'], String(one.identity.length));
      assert.equal(unzipped.headers.etag, one.identity.etag);
      assert.equal(`"${bodyHash(unzipped.body)}"`, one.identity.etag, 'the bytes its ETag names');
      assert.deepEqual(unzipped.body, gunzipSync(readFileSync(join(build, one.gzip!.file))));
      assert.equal(JSON.parse(unzipped.text()).count, 1);
      writeFileSync(join(build, one.gzip!.file), Buffer.alloc(one.gzip!.length)); // not gzip: nothing sent
      assert.equal((await get(t.url, '/api/changelog?limit=1', key).catch(() => null))?.status ?? 0, 0);
    } finally {
      await t.close();
    }
  });
});
