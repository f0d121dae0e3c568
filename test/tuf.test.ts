// tier: full (a tuf-js client under faketime, in a child process)
// Signed editions (docs/operations.md, "Signed editions") checked by tuf-js's own Updater, unmodified
// (its fetcher adds X-API-Key): every target of /tuf/ on a running gateway and on a copy served by a
// plain static server equals its API route byte for byte; a flipped byte, a mirror one edition behind
// what the client has seen, metadata past its expiry (faketime) and an unknown root signer are
// refused; a rollback and a rotated root are followed. Small datasets of the tests' own, built in process.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { writeMirror } from '../build/client/mirror.ts';
import { SYNC_FILES, snapshotFiles, syncMirror } from '../build/client/sync.ts';
import { publishSite, rollBack } from '../build/publish/publish.ts';
import { consistentTargetFile, fileIn, type Manifest, TUF_METADATA_DIR } from '../build/site-format.ts';
import { newKeyPem, roleKeyOf, stateKeys } from '../build/tuf/keys.ts';
import { publishEdition, renewEdition, rotateRoot } from '../build/tuf/publish-edition.ts';
import { buildSite } from './helpers/build.ts';
import { baseChangelog, baseGrain, tempDir, writeDataset } from './helpers/dataset.ts';
import { get, register, request, startTestGateway, type TestGateway, testClock } from './helpers/gateway.ts';
import { type StaticOrigin, startStaticOrigin } from './helpers/static-origin.ts';
import { updaterFetch } from './helpers/tuf-updater.mjs';

const DAY = 86_400_000;
/** Until the gateway serves what `ok` looks for (its polls of the pointer and of the timestamp), 10 s at most. */
async function until(ok: () => Promise<boolean>) {
  for (let i = 0; i < 200 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 50));
}
const serving = (url: string, buildId: string) => async () =>
  (await request(url, '/health')).json().build_id === buildId;
const timestampAt = (url: string, version: number) => async () =>
  (await get(url, fileIn('tufMetadata', 'timestamp.json'))).json().signed.version === version;
/** CI installs faketime (.ci/run); elsewhere the expiry test says it skipped. */
const FAKETIME = spawnSync('faketime', ['-f', '+0d', 'true']).status === 0 || process.env.CI ? false : 'no faketime';
const START = Date.UTC(2026, 10, 22, 12, 0, 0);

/** A dataset's build published into `site` with its signed edition (as npm run build does). */
async function publish(grains: string[], site: string, state: string, now = START): Promise<Manifest> {
  const dataset = writeDataset({
    grains: Object.fromEntries(grains.map((id) => [id, baseGrain(id)])),
    changelog: baseChangelog(grains),
  });
  const built = await buildSite(dataset);
  assert.ok(built.ok, 'the dataset builds');
  publishEdition(built.site.manifest, { siteDir: site, stateDir: state, now });
  publishSite(site, built.site);
  return built.site.manifest;
}

/** A client's trusted folder, holding the root it starts from (the site's first, unless given). */
function clientDir(site: string, root = '1.root.json'): string {
  const dir = tempDir('tuf-client');
  copyFileSync(join(site, TUF_METADATA_DIR, root), join(dir, 'root.json'));
  return dir;
}

const targetsOf = (site: string) => {
  const dir = join(site, TUF_METADATA_DIR);
  const ts = JSON.parse(readFileSync(join(dir, 'timestamp.json'), 'utf8'));
  const snap = JSON.parse(readFileSync(join(dir, `${ts.signed.meta['snapshot.json'].version}.snapshot.json`), 'utf8'));
  const t = snap.signed.meta['targets.json'].version;
  return JSON.parse(readFileSync(join(dir, `${t}.targets.json`), 'utf8')).signed as {
    version: number;
    targets: Record<string, { length: number; hashes: { sha256: string }; custom: { route: string } }>;
  };
};

/** The /tuf tree a static server serves: metadata as is, each target under its consistent name. */
async function copyTree(gw: TestGateway, key: string, site: string, out: string) {
  cpSync(join(site, TUF_METADATA_DIR), join(out, 'tuf/metadata'), { recursive: true });
  for (const [name, t] of Object.entries(targetsOf(site).targets)) {
    const file = consistentTargetFile(name, t.hashes.sha256);
    const res = await get(gw.url, fileIn('tufTargets', file), key, { 'accept-encoding': 'identity' });
    assert.equal(res.status, 200, file);
    mkdirSync(dirname(join(out, 'tuf/targets', file)), { recursive: true });
    writeFileSync(join(out, 'tuf/targets', file), res.body);
  }
}

describe('signed editions, verified by an unmodified tuf-js Updater', () => {
  const site = tempDir('tuf-site');
  const state = tempDir('tuf-state');
  let gw: TestGateway;
  let key: string;
  let first: Manifest;
  const clock = testClock(START);
  const from = (base: string, dir: string, target?: string) =>
    updaterFetch({
      metadataDir: dir,
      metadataUrl: `${base}/tuf/metadata/`,
      targetsUrl: `${base}/tuf/targets/`,
      key,
      target,
    });

  before(async () => {
    first = await publish(['TEST'], site, state);
    gw = await startTestGateway({ SITE_DIR: site }, { clock });
    key = await register(gw.url, 'tuf@example.com');
  });
  after(() => gw.close());

  it('metadata is public and cacheable, targets are keyed and counted, a newer root is a real 404', async () => {
    const ts = await get(gw.url, fileIn('tufMetadata', 'timestamp.json'));
    assert.equal(ts.status, 200);
    assert.match(String(ts.headers['cache-control']), /^public, max-age=\d+, s-maxage=(\d+)$/);
    assert.ok(Number(/s-maxage=(\d+)/.exec(String(ts.headers['cache-control']))![1]) <= 300);
    assert.equal(ts.json().signed._type, 'timestamp');
    assert.equal((await get(gw.url, fileIn('tufMetadata', '1.root.json'))).status, 200);
    assert.equal((await get(gw.url, fileIn('tufMetadata', '2.root.json'))).status, 404);
    const [name, t] = Object.entries(targetsOf(site).targets)[0]!;
    const file = fileIn('tufTargets', consistentTargetFile(name, t.hashes.sha256));
    assert.equal((await get(gw.url, file)).status, 401, 'a target needs a key');
    const served = await get(gw.url, file, key, { 'accept-encoding': 'identity' });
    assert.equal(served.status, 200);
    const used = Number(served.headers['x-ratelimit-used']);
    const again = await get(gw.url, file, key, { 'if-none-match': String(served.headers.etag) });
    assert.equal(again.status, 304, 'unchanged: a free 304');
    assert.equal(Number(again.headers['x-ratelimit-used']), used);
  });

  it('downloads every target from the gateway, each equal to its custom.route byte for byte', async () => {
    const dir = clientDir(site);
    const { targets } = targetsOf(site);
    assert.ok(Object.keys(targets).length >= 3, 'the list, the snapshot and the record at least');
    for (const [name, t] of Object.entries(targets)) {
      const body: Buffer = await from(gw.url, dir, name);
      const api = await get(gw.url, t.custom.route, key, { 'accept-encoding': 'identity' });
      assert.equal(api.status, 200, t.custom.route);
      assert.ok(body.equals(api.body), `${name} is ${t.custom.route}`);
    }
  });

  it('verifies a copy served by a plain static server, and refuses a flipped byte there', async () => {
    const copy = tempDir('tuf-mirror');
    await copyTree(gw, key, site, copy);
    const origin: StaticOrigin = await startStaticOrigin(copy);
    try {
      const base = `${origin.url}/tuf`;
      const o = { metadataUrl: `${base}/metadata/`, targetsUrl: `${base}/targets/`, key };
      const record = (await updaterFetch({ ...o, metadataDir: clientDir(site), target: 'grains/TEST.json' })) as Buffer;
      assert.ok(record.equals((await get(gw.url, '/api/grains/TEST', key, { 'accept-encoding': 'identity' })).body));
      const t = targetsOf(site).targets['grains/TEST.json']!;
      const file = join(copy, 'tuf/targets/grains', `${t.hashes.sha256}.TEST.json`);
      const bytes = readFileSync(file);
      bytes[100]! ^= 1;
      writeFileSync(file, bytes);
      await assert.rejects(
        updaterFetch({ ...o, metadataDir: clientDir(site), target: 'grains/TEST.json' }),
        /hash|length/i,
      );
    } finally {
      await origin.close();
    }
  });

  it('a rollback is a new edition; a mirror one edition behind what the client saw is refused', async () => {
    const behind = tempDir('tuf-behind');
    await copyTree(gw, key, site, behind); // edition 1
    const second = await publish(['TEST', 'TESTB'], site, state);
    await until(serving(gw.url, second.build_id));
    await until(timestampAt(gw.url, 2));
    const seen = clientDir(site);
    await from(gw.url, seen); // the client has seen edition 2
    assert.equal(targetsOf(site).version, 2);
    publishEdition(first, { siteDir: site, stateDir: state, now: START });
    rollBack(site, first.build_id);
    assert.equal(targetsOf(site).version, 3, 'the rollback lists the older bodies again, version 3');
    await until(serving(gw.url, first.build_id));
    await until(timestampAt(gw.url, 3));
    const back = await from(gw.url, seen, 'grains.json');
    assert.ok(back.equals((await get(gw.url, '/api/grains', key, { 'accept-encoding': 'identity' })).body));
    assert.notEqual(first.build_id, second.build_id);
    const origin = await startStaticOrigin(behind);
    try {
      const o = { metadataUrl: `${origin.url}/tuf/metadata/`, targetsUrl: `${origin.url}/tuf/targets/`, key };
      await assert.rejects(updaterFetch({ ...o, metadataDir: seen }), /version|rollback|expected/i);
    } finally {
      await origin.close();
    }
  });

  it('follows a rotated root, and refuses one signed by a key the trusted root does not name', async () => {
    const seen = clientDir(site);
    const oldRoot = stateKeys(state, false).keys;
    const newRoot = roleKeyOf(newKeyPem());
    const keys = { ...(oldRoot as Required<typeof oldRoot>), root: newRoot } as Parameters<typeof rotateRoot>[1];
    const v = rotateRoot({ siteDir: site, now: START }, keys, [oldRoot.root!, newRoot]);
    const renewed = renewEdition({ siteDir: site, stateDir: state, now: START }); // as npm run tuf -- root does
    await until(timestampAt(gw.url, renewed.versions.timestamp));
    await from(gw.url, seen);
    assert.equal(JSON.parse(readFileSync(join(seen, 'root.json'), 'utf8')).signed.version, v);
    // a root signed only by a stranger's key, where the next version is looked for
    const stranger = roleKeyOf(newKeyPem());
    rotateRoot({ siteDir: site, now: START }, { ...keys, root: stranger }, [stranger]);
    const again = renewEdition({ siteDir: site, stateDir: state, now: START });
    await until(timestampAt(gw.url, again.versions.timestamp));
    await assert.rejects(from(gw.url, seen), /signed by 0\/1 keys/);
  });

  it('faketime past the timestamp expiry: refused; re-signed: verified; /health warns two days ahead', {
    skip: FAKETIME,
  }, async () => {
    const site2 = tempDir('tuf-site2');
    await publish(['TEST'], site2, state, Date.now());
    const gw2 = await startTestGateway({ SITE_DIR: site2 }, { clock });
    try {
      // the gateway answers from this process: the child is awaited, never waited for
      const run = async (fake: string) =>
        (
          await promisify(execFile)(
            'faketime',
            [
              '-f',
              fake,
              process.execPath,
              'test/helpers/tuf-updater.mjs',
              clientDir(site2),
              `${gw2.url}/tuf/metadata/`,
              `${gw2.url}/tuf/targets/`,
              key,
            ],
            { encoding: 'utf8', timeout: 30_000, env: { ...process.env, FAKETIME_DONT_FAKE_MONOTONIC: '1' } },
          )
        ).stdout.trim();
      assert.equal(await run('+1d'), 'ok 0');
      assert.match(await run('+8d'), /^refused .*timestamp\.json is expired/);
      const renewed = renewEdition({ siteDir: site2, stateDir: state, now: Date.now() + 6 * DAY });
      await until(timestampAt(gw2.url, renewed.versions.timestamp));
      assert.equal(await run('+8d'), 'ok 0');
      clock.now = Date.now() + 12 * DAY; // two days before the renewed timestamp lapses, less a day
      const health = (await request(gw2.url, '/health')).json();
      assert.equal(health.status, 'tuf_timestamp_lapsing');
      assert.match(health.reason, /npm run tuf -- timestamp/);
    } finally {
      await gw2.close();
    }
  });
});

describe('grain-tables sync verifies the signed edition', () => {
  const site = tempDir('tuf-sync-site');
  const state = tempDir('tuf-sync-state');
  let gw: TestGateway;
  let key: string;
  before(async () => {
    await publish(['TEST'], site, state);
    gw = await startTestGateway({ SITE_DIR: site });
    key = await register(gw.url, 'tuf-sync@example.com');
  });
  after(() => gw.close());
  const copyOf = (out: string) =>
    Object.fromEntries(['grains.json', 'grains/TEST.json'].map((f) => [f, readFileSync(join(out, f), 'utf8')]));
  /** A fetch that alters what the service answers at `path`: the tampering or stale mirror a client may meet. */
  const altering =
    (match: string, alter: (body: Buffer, url: string) => Buffer): typeof fetch =>
    async (input, init) => {
      const res = await fetch(input, init);
      const url = String(input);
      if (!url.includes(match) || res.status !== 200) return res;
      return new Response(new Uint8Array(alter(Buffer.from(await res.arrayBuffer()), url)), {
        status: 200,
        headers: res.headers,
      });
    };

  it('a verified sync costs 1 counted request, 0 unchanged, and keeps the edition it trusts', async () => {
    const out = join(tempDir('tuf-sync'), 'tables');
    const first = await syncMirror({ baseUrl: gw.url, key, out });
    assert.equal(first.counted, 1);
    assert.equal(JSON.parse(readFileSync(join(out, 'sync-state.json'), 'utf8')).edition.targets, 1);
    const again = await syncMirror({ baseUrl: gw.url, key, out });
    assert.deepEqual([again.changed, again.counted], [false, 0]);
  });

  it('grain-tables mirror writes a tree a static server serves; sync --from verifies it, offline too', async () => {
    const tree = tempDir('tuf-tree');
    const m = await writeMirror({ baseUrl: gw.url, key, out: tree }, (s) => snapshotFiles(s).get(SYNC_FILES.list)!);
    assert.equal(m.counted, 2, 'one request a snapshot: the current tables and the crop year');
    const origin = await startStaticOrigin(tree);
    try {
      const o = { metadataUrl: `${origin.url}/tuf/metadata/`, targetsUrl: `${origin.url}/tuf/targets/`, key: '' };
      const record = await updaterFetch({ ...o, metadataDir: clientDir(site), target: 'grains/TEST.json' });
      assert.ok(record.equals((await get(gw.url, '/api/grains/TEST', key, { 'accept-encoding': 'identity' })).body));
      const trustedRoot = readFileSync(join(site, TUF_METADATA_DIR, '1.root.json'), 'utf8');
      const byUrl = join(tempDir('tuf-from'), 'tables');
      const s = await syncMirror({ baseUrl: '', key: '', out: byUrl, from: origin.url, trustedRoot });
      assert.equal(s.counted, 0);
      assert.equal(
        readFileSync(join(byUrl, 'grains/TEST.json'), 'utf8'),
        (await get(gw.url, '/api/grains/TEST', key)).text(),
      );
    } finally {
      await origin.close();
    }
    const offline = join(tempDir('tuf-from'), 'tables');
    await assert.rejects(syncMirror({ baseUrl: '', key: '', out: offline, from: tree }), /pin one with --root/);
    const trustedRoot = readFileSync(join(tree, 'tuf/metadata/1.root.json'), 'utf8');
    const t = targetsOf(site).targets['snapshot.json']!;
    const file = join(tree, 'tuf/targets', consistentTargetFile('snapshot.json', t.hashes.sha256));
    writeFileSync(file, readFileSync(file, 'utf8').replace('"value":0.', '"value":1.'));
    await assert.rejects(syncMirror({ baseUrl: '', key: '', out: offline, from: tree, trustedRoot }), /tampered/);
  });

  it('refuses a flipped byte, an older edition, expired metadata and an unknown signer; the copy stays', async () => {
    const out = join(tempDir('tuf-sync'), 'tables');
    await syncMirror({ baseUrl: gw.url, key, out });
    const before = copyOf(out);
    const flipped = altering('/api/snapshot', (b) => {
      const at = /"value":\d/.exec(b.toString('latin1'))!.index + 8; // a threshold's first digit
      b[at] = b[at] === 0x39 ? 0x38 : b[at]! + 1;
      return b;
    });
    rmSync(join(out, 'sync-state.json')); // so that the snapshot is fetched again, not a 304
    await assert.rejects(
      syncMirror({ baseUrl: gw.url, key, out, fetch: flipped }),
      /not the body the edition signed|tampered/,
    );
    assert.deepEqual(copyOf(out), before);
    await syncMirror({ baseUrl: gw.url, key, out }); // trusted again, edition 1
    const older = readFileSync(join(site, TUF_METADATA_DIR, 'timestamp.json'));
    const renewed = renewEdition({ siteDir: site, stateDir: state, now: Date.now() });
    await until(timestampAt(gw.url, renewed.versions.timestamp));
    await syncMirror({ baseUrl: gw.url, key, out }); // has seen timestamp 2
    const stale = altering('/tuf/metadata/timestamp.json', () => older);
    await assert.rejects(syncMirror({ baseUrl: gw.url, key, out, fetch: stale }), /older than version 2/);
    await assert.rejects(
      syncMirror({ baseUrl: gw.url, key, out, now: Date.now() + 8 * DAY }),
      /timestamp\.json expired/,
    );
    // a root pinned by someone else: none of its keys signed this service's edition
    const foreign = tempDir('tuf-foreign');
    const fresh = () => roleKeyOf(newKeyPem());
    rotateRoot(
      { siteDir: foreign, now: Date.now() },
      { root: fresh(), targets: fresh(), snapshot: fresh(), timestamp: fresh() },
      [],
    );
    const trustedRoot = readFileSync(join(foreign, TUF_METADATA_DIR, '1.root.json'), 'utf8');
    const other = join(tempDir('tuf-sync'), 'tables');
    await assert.rejects(
      syncMirror({ baseUrl: gw.url, key, out: other, trustedRoot }),
      /timestamp\.json is not signed .*unknown signer/,
    );
    assert.deepEqual(copyOf(out), before);
  });
});
