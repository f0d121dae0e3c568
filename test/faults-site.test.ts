// Faults of the published site, asked of the gateway's app in process (helpers/inject.ts): a newer
// build that cannot be loaded (a body cut short, as by a copy that stopped half-way), and a SITE_DIR that disappears.
// The previous build keeps serving, whole; /health says what is wrong; the log says it once
// (docs/operations.md, "When something goes wrong").
import assert from 'node:assert/strict';
import { cpSync, readdirSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { publishSite } from '../build/publish/publish.ts';
import { POINTER_FILE, pointerFor } from '../build/site-format.ts';
import { buildSite } from './helpers/build.ts';
import { baseGrain, tempDir, writeDataset } from './helpers/dataset.ts';
import { root } from './helpers/gateway.ts';
import { injectGet, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';

async function built(datasetDir: string) {
  const r = await buildSite(datasetDir);
  if (!r.ok) throw new Error('the datasets of these tests must build');
  return r;
}
const real = await built(join(root, 'dataset'));
const other = await built(writeDataset({ grains: { TEST: baseGrain() } }));

/** Polls /health (the site is polled every 10 ms) until `done` holds, for at most 5 s. */
// biome-ignore lint/suspicious/noExplicitAny: the health body is asserted field by field
async function healthWhen(t: TestApp, done: (h: any) => boolean) {
  let h = (await injectGet(t.app, '/health')).json();
  for (let i = 0; i < 250 && !done(h); i++) {
    await new Promise((r) => setTimeout(r, 20));
    h = (await injectGet(t.app, '/health')).json();
  }
  assert.ok(done(h), JSON.stringify(h));
  return h;
}

/**
 * Every grain record, the list and the changelog, as the gateway answers them now to a client that
 * takes brotli: what it holds in memory (docs/operations.md, What an instance needs).
 */
async function everything(t: TestApp, key: string) {
  const paths = ['/api/grains', '/api/changelog', ...real.dataset.grains.map((g) => `/api/grains/${g.grain_id}`)];
  const answers = await Promise.all(paths.map((p) => injectGet(t.app, p, key, { 'accept-encoding': 'br' })));
  for (const a of answers) assert.equal(a.status, 200);
  return answers.map((a) => `${a.headers.etag} ${a.body.toString('base64')}`);
}

const logCount = (t: TestApp, pattern: RegExp) => t.logs.join('').match(pattern)?.length ?? 0;
/** Until the log (written in batches, every 100 ms) holds `pattern`. */
async function untilLogged(t: TestApp, pattern: RegExp) {
  for (let i = 0; i < 100 && !pattern.test(t.logs.join('')); i++) await new Promise((r) => setTimeout(r, 20));
}
const TOKEN = 'faults-site-metrics-token';

describe('a newer build that cannot be loaded', () => {
  it('keeps the previous build whole, names the refused one in /health, and logs it once', async () => {
    const siteDir = tempDir('damaged-site');
    publishSite(siteDir, real.site);
    const env = { SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '100000', METRICS_TOKEN: TOKEN };
    const t = await startTestApp(env, { sitePollMs: 10 });
    try {
      const key = await injectRegister(t.app, 'damaged@example.com');
      const before = await everything(t, key);

      // the new build, copied in with one body cut short, then pointed at
      const staging = tempDir('staging-site');
      publishSite(staging, other.site);
      const id = other.site.manifest.build_id;
      const bodies = join(staging, 'builds', id, 'bodies');
      const cut = readdirSync(bodies).find((f) => statSync(join(bodies, f)).size > 10)!;
      truncateSync(join(bodies, cut), 10);
      cpSync(join(staging, 'builds', id), join(siteDir, 'builds', id), { recursive: true });
      writeFileSync(join(siteDir, 'pointer.tmp'), JSON.stringify(pointerFor(id)));
      renameSync(join(siteDir, 'pointer.tmp'), join(siteDir, POINTER_FILE));

      const h = await healthWhen(t, (x) => x.status === 'build_refused');
      assert.equal(h.build_id, real.site.manifest.build_id, 'names the build served');
      assert.equal(h.store, 'ok');
      assert.equal(h.refused_build.build_id, id);
      assert.match(h.refused_build.reason, new RegExp(`${cut} has 10 bytes; the manifest says \\d+`));
      assert.match(h.reason, new RegExp(`^The newer build ${id} was refused \\(.+\\); build ${h.build_id} is served`));
      assert.deepEqual(await everything(t, key), before, 'the previous build, whole');

      // many polls later (10 ms each), still one line for the refused build
      for (let i = 0; i < 30; i++) await injectGet(t.app, '/health');
      await untilLogged(t, /"event":"site_load_failed"/);
      assert.equal(logCount(t, /"event":"site_load_failed"/g), 1, t.logs.join(''));
      assert.match(t.logs.join(''), new RegExp(`"event":"site_load_failed","build_id":"${id}"`));

      // the metrics say which build is served and which was refused
      const metrics = (await injectGet(t.app, '/metrics', undefined, { authorization: `Bearer ${TOKEN}` })).text();
      assert.match(metrics, new RegExp(`gateway_site_info\\{build_id="${h.build_id}",[^}]*\\} 1`));
      assert.match(metrics, new RegExp(`gateway_site_refused\\{build_id="${id}"\\} 1`));

      // a good build published: served, and all is well again
      const third = await built(writeDataset({ grains: { TEST: baseGrain(), MORE: baseGrain('MORE') } }));
      publishSite(siteDir, third.site);
      const well = await healthWhen(t, (x) => x.build_id === third.site.manifest.build_id);
      assert.equal(well.status, 'ok');
      assert.equal(well.reason, null);
      assert.equal(well.refused_build, null);
    } finally {
      await t.close();
    }
  });
});

describe('a SITE_DIR that disappears', () => {
  it('serves what it holds of the build, says so in /health once, and takes a build published again', async () => {
    const siteDir = tempDir('vanishing-site');
    publishSite(siteDir, real.site);
    const t = await startTestApp({ SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '100000' }, { sitePollMs: 10 });
    try {
      const key = await injectRegister(t.app, 'vanishing@example.com');
      const before = await everything(t, key);
      rmSync(siteDir, { recursive: true, force: true });
      const h = await healthWhen(t, (x) => x.status === 'site_unreadable');
      assert.equal(h.build_id, real.site.manifest.build_id);
      assert.match(h.reason, /^The pointer to the published build cannot be read \(ENOENT/);
      assert.deepEqual(await everything(t, key), before);
      for (let i = 0; i < 30; i++) await injectGet(t.app, '/health');
      await untilLogged(t, /"event":"site_unreadable"/);
      assert.equal(logCount(t, /"event":"site_unreadable"/g), 1);

      publishSite(siteDir, other.site);
      const back = await healthWhen(t, (x) => x.build_id === other.site.manifest.build_id);
      assert.equal(back.status, 'ok');
      await untilLogged(t, /"event":"site_readable"/);
      assert.equal(logCount(t, /"event":"site_readable"/g), 1);
    } finally {
      await t.close();
    }
  });
});
