// The build watcher (gateway/site-watch.ts) under load: a build published while the app serves is
// picked up without a restart, and every answer is whole, from one build (docs/operations.md,
// Configuration: SITE_DIR).
// The requests go through the app (helpers/inject.ts): the watcher and the app are the subject,
// not the socket.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { publishSite } from '../build/publish/publish.ts';
import { buildSite } from './helpers/build.ts';
import { baseGrain, tempDir, writeDataset } from './helpers/dataset.ts';
import { root } from './helpers/gateway.ts';
import { injectGet, injectRegister, startTestApp } from './helpers/inject.ts';

describe('a new build while serving', () => {
  it('is picked up without a restart, and no request fails or mixes builds', async () => {
    const siteDir = tempDir('reload-site');
    const real = await buildSite(join(root, 'dataset'));
    const other = await buildSite(writeDataset({ grains: { TEST: baseGrain() } }));
    assert.ok(real.ok && other.ok);
    publishSite(siteDir, real.site);
    const t = await startTestApp({ SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '1000000' }, { sitePollMs: 10 });
    const { app } = t;
    const health = async () => (await injectGet(app, '/health')).json();
    try {
      const key = await injectRegister(app, 'reload@example.com');
      let stop = false;
      const seen = new Set<number>();
      let requests = 0;
      // eight clients, each letting the event loop turn between requests (the watcher's polls and
      // reads run then), as requests over sockets would
      const load = Array.from({ length: 8 }, async () => {
        while (!stop) {
          const res = await injectGet(app, '/api/grains', key);
          requests++;
          assert.equal(res.status, 200);
          // the body is exactly the one its ETag names: never half of one build and half of another
          assert.equal(res.headers.etag, `"${createHash('sha256').update(res.body).digest('hex').slice(0, 32)}"`);
          seen.add(res.json().count);
          await new Promise((r) => setImmediate(r));
        }
      });
      for (let i = 0; i < 6; i++) {
        const next = (i % 2 ? real : other).site;
        publishSite(siteDir, next);
        // each build is served before the next is published, however loaded the machine is
        for (let w = 0; w < 500 && (await health()).build_id !== next.manifest.build_id; w++) {
          await new Promise((r) => setTimeout(r, 10));
        }
        await new Promise((r) => setTimeout(r, 30));
      }
      stop = true;
      await Promise.all(load);
      assert.deepEqual(
        [...seen].sort((a, b) => a - b),
        [1, real.dataset.grains.length],
      );
      assert.ok(requests > 50, `${requests} requests during the swaps`);
      console.log(`reload: ${requests} requests during 6 build swaps, none failed`);
      // the last build published is picked up (polled for, up to 5 s)
      let served = await health();
      for (let i = 0; i < 100 && served.build_id !== real.site.manifest.build_id; i++) {
        await new Promise((r) => setTimeout(r, 50));
        served = await health();
      }
      assert.equal(served.build_id, real.site.manifest.build_id);
      assert.match(t.logs.join(''), /"event":"site_swapped"/);
    } finally {
      await t.close();
    }
  });
});
