// tier: full (the sync CLI)
// `npm run sync` and the typed client against a real gateway on port 0 (docs/sync.md): a first sync
// equals the API byte for byte for one counted request (the snapshot); a second costs none; a
// changed dataset brings exactly the changed records for one; a spent quota, or a gateway gone
// mid-sync, leaves the old mirror untouched; a 429 with a short Retry-After is waited out when allowed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ApiError, createClient } from '../build/client/api.ts';
import { syncMirror } from '../build/client/sync.ts';
import { loadDataset } from '../build/load/load.ts';
import { publishSite } from '../build/publish/publish.ts';
import { WINDOW_MS } from '../gateway/rate-limit.ts';
import { buildSite, siteFromDataset, validateDataset } from './helpers/build.ts';
import { bundled } from './helpers/bundles.ts';
import { baseChangelog, baseGrain, tempDir, writeDataset } from './helpers/dataset.ts';
import { get, register, root, startTestGateway, type TestGateway } from './helpers/gateway.ts';

/** A dataset of our own: grains A, B, C; `change` alters B's ergot and adds a changelog entry. */
function datasetOf(change: boolean) {
  const b = change
    ? baseGrain('BBB').replace('thresholds: [0.04, 0.04, 0.10]', 'thresholds: [0.04, 0.05, 0.10]')
    : baseGrain('BBB');
  const ids = ['AAA', 'BBB', 'CCC'];
  const changelog =
    baseChangelog(ids) +
    (change
      ? `  - id: second\n    crop_year: 2026/27\n    effective_date: 2026-11-23\n    grain_ids_affected: [BBB]\n` +
        `    summary: BBB's ergot at No. 2.\n    created_at: 2026-11-23T10:00:00Z\n`
      : '');
  return writeDataset({ grains: { AAA: baseGrain('AAA'), BBB: b, CCC: baseGrain('CCC') }, changelog });
}
async function siteOf(change: boolean) {
  const r = await buildSite(datasetOf(change));
  assert.ok(r.ok, 'the test dataset builds');
  return r.site;
}
/** Publishes the site of our own into dir; returns its build id. */
async function site(dir: string, change = false) {
  const built = await siteOf(change);
  publishSite(dir, built);
  return built.manifest.build_id;
}

/** The hour's count of a key, read with a free conditional request (a 304 is not counted). */
async function usedBy(t: TestGateway, key: string): Promise<number> {
  const first = await get(t.url, '/api/grains', key);
  const again = await get(t.url, '/api/grains', key, { 'if-none-match': first.headers.etag! });
  assert.equal(again.status, 304);
  return Number(again.headers['x-ratelimit-used']);
}

/** A gateway on a site of our own (grains AAA, BBB, CCC), closed when `fn` is done. */
async function onOwnSite(env: Record<string, string>, fn: (t: TestGateway) => Promise<void>) {
  const siteDir = tempDir('sync-site');
  await site(siteDir);
  const t = await startTestGateway({ SITE_DIR: siteDir, ...env });
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

const mirrorFiles = (dir: string) => [
  ...readdirSync(dir).filter((f) => f.endsWith('.json')),
  ...readdirSync(join(dir, 'grains')).map((f) => `grains/${f}`),
];

describe('sync', () => {
  it('mirrors the API byte for byte, then costs nothing when nothing changed, then brings what changed', async () => {
    const siteDir = tempDir('sync-site');
    await site(siteDir);
    const t = await startTestGateway({ SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '100' }, { sitePollMs: 10 });
    try {
      const key = await register(t.url, 'sync@example.com');
      const out = join(tempDir('mirror'), 'tables');
      const first = await syncMirror({ baseUrl: t.url, key, out });
      assert.deepEqual(first.records, { new: 3, changed: 0, unchanged: 0, removed: 0 });
      assert.equal(first.counted, 1, 'the snapshot');
      for (const [file, path] of [
        ['grains.json', '/api/grains'],
        ['changelog.json', '/api/changelog'],
        ['grains/AAA.json', '/api/grains/AAA'],
        ['grains/BBB.json', '/api/grains/BBB'],
      ]) {
        assert.deepEqual(readFileSync(join(out, file!)), (await get(t.url, path!, key)).body, `${file} as served`);
      }
      // nothing changed: the snapshot's 304 is the only request, and it is free
      const before = await usedBy(t, key);
      const second = await syncMirror({ baseUrl: t.url, key, out });
      assert.equal(second.changed, false);
      assert.equal((await usedBy(t, key)) - before, 1, "no counted request but usedBy's own");
      assert.equal(second.counted, 0);
      // a new build with one record changed: exactly that record comes
      const id = await site(siteDir, true);
      for (let i = 0; i < 200 && (await get(t.url, '/health')).json().build_id !== id; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      const third = await syncMirror({ baseUrl: t.url, key, out });
      assert.deepEqual(third.records, { new: 0, changed: 1, unchanged: 2, removed: 0 });
      assert.equal(third.counted, 1, 'the snapshot, once');
      assert.deepEqual(readFileSync(join(out, 'grains/BBB.json')), (await get(t.url, '/api/grains/BBB', key)).body);
      assert.deepEqual(mirrorFiles(out).sort(), [
        'changelog.json',
        'grains.json',
        'grains/AAA.json',
        'grains/BBB.json',
        'grains/CCC.json',
        'sync-state.json',
      ]);
    } finally {
      await t.close();
    }
  });

  it(
    'verifies every record: a rollback, and a build published without an entry, ' + 'reach the mirror and are named',
    async () => {
      const siteDir = tempDir('sync-site');
      const original = await site(siteDir);
      const t = await startTestGateway({ SITE_DIR: siteDir }, { sitePollMs: 10 });
      const serving = async (id: string) => {
        for (let i = 0; i < 200 && (await get(t.url, '/health')).json().build_id !== id; i++) {
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      const equalsApi = async (out: string, key: string) => {
        const files = mirrorFiles(out).filter((f) => f !== 'sync-state.json');
        const ids = (await get(t.url, '/api/grains', key)).json().grains.map((g: { grain_id: string }) => g.grain_id);
        assert.deepEqual(
          files.filter((f) => f.startsWith('grains/')).sort(),
          ids.map((id: string) => `grains/${id}.json`),
        );
        for (const f of files) {
          const path =
            f === 'grains.json' ? '/api/grains' : f === 'changelog.json' ? '/api/changelog' : `/api/${f.slice(0, -5)}`;
          assert.deepEqual(readFileSync(join(out, f)), (await get(t.url, path, key)).body, `${f} equals ${path}`);
        }
      };
      try {
        const key = await register(t.url, 'verify@example.com');
        const out = join(tempDir('mirror'), 'tables');
        await syncMirror({ baseUrl: t.url, key, out });
        await serving(await site(siteDir, true));
        const logged: string[] = [];
        const announced = await syncMirror({ baseUrl: t.url, key, out, log: (l) => logged.push(l) });
        assert.deepEqual(announced.unannounced, [], 'the new entry names BBB');
        // the operator rolls back: BBB's old record, and a changelog without the entry that named it
        publishSite(siteDir, await siteOf(false));
        await serving(original);
        const rolledBack = await syncMirror({ baseUrl: t.url, key, out, log: (l) => logged.push(l) });
        assert.deepEqual(rolledBack.records, { new: 0, changed: 1, unchanged: 2, removed: 0 });
        assert.deepEqual(rolledBack.unannounced, ['BBB']);
        assert.ok(
          logged.includes(
            'BBB: changed with no new changelog entry naming it (a rollback, or a build published without one)',
          ),
        );
        await equalsApi(out, key);
        // a build copied in from elsewhere, made without the guard: the changelog is as it was (a 304)
        const unguarded = validateDataset(loadDataset(datasetOf(true))).dataset!;
        const copied = await siteFromDataset({ ...unguarded, changelog: unguarded.changelog.slice(0, 1) });
        publishSite(siteDir, copied);
        await serving(copied.manifest.build_id);
        const silent = await syncMirror({ baseUrl: t.url, key, out });
        assert.deepEqual(silent.unannounced, ['BBB']);
        assert.equal(silent.counted, 1, 'the snapshot');
        await equalsApi(out, key);
        const idle = await syncMirror({ baseUrl: t.url, key, out });
        assert.equal(idle.changed, false);
        assert.equal(idle.counted, 0, 'nothing changed: a free 304');
      } finally {
        await t.close();
      }
    },
  );

  it('a spent hour, or a gateway gone mid-sync, leaves the old mirror as it was', async () => {
    const siteDir = tempDir('sync-site');
    await site(siteDir);
    const t = await startTestGateway({ SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '2' }, { sitePollMs: 10 });
    const out = join(tempDir('mirror'), 'tables');
    try {
      const key = await register(t.url, 'small@example.com');
      await syncMirror({ baseUrl: t.url, key, out });
      await get(t.url, '/api/grains/AAA', key); // the hour's second and last request
      const snapshot = new Map(mirrorFiles(out).map((f) => [f, readFileSync(join(out, f))]));
      const id = await site(siteDir, true);
      for (let i = 0; i < 200 && (await get(t.url, '/health')).json().build_id !== id; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await assert.rejects(syncMirror({ baseUrl: t.url, key, out }), (err: Error) => {
        assert.ok(err instanceof ApiError, String(err));
        assert.equal(err.status, 429);
        assert.match(err.message, /retry in \d+ s/);
        return true;
      });
      for (const [f, bytes] of snapshot) assert.deepEqual(readFileSync(join(out, f)), bytes, `${f} untouched`);
      // a fresh key, and the gateway gone before it answers
      const other = await register(t.url, 'killed@example.com');
      const dying: typeof fetch = async (input, init) => {
        await t.close();
        return fetch(input, init);
      };
      await assert.rejects(
        syncMirror({ baseUrl: t.url, key: other, out, fetch: dying, retries: 1, sleep: async () => {} }),
        (err: Error) => err instanceof ApiError && /no answer/.test(err.message),
      );
      for (const [f, bytes] of snapshot) assert.deepEqual(readFileSync(join(out, f)), bytes, `${f} untouched`);
      assert.deepEqual(
        readdirSync(join(out, '..')).filter((n) => n !== 'tables'),
        [],
        'no half-written mirror left beside',
      );
    } finally {
      await t.close();
    }
  });

  it('takes over a copy made by the version that asked for each body, without rewriting what holds', () =>
    onOwnSite({}, async (t) => {
      const key = await register(t.url, 'older@example.com');
      const out = join(tempDir('mirror'), 'tables');
      await syncMirror({ baseUrl: t.url, key, out });
      // the state file as the earlier version wrote it: an ETag for each body it asked for
      const etags = Object.fromEntries(
        ['/api/changelog', '/api/grains', '/api/grains/AAA', '/api/grains/BBB', '/api/grains/CCC'].map((p) => [
          p,
          '"x"',
        ]),
      );
      writeFileSync(join(out, 'sync-state.json'), `${JSON.stringify({ etags }, null, 1)}\n`);
      const logged: string[] = [];
      const taken = await syncMirror({ baseUrl: t.url, key, out, log: (l) => logged.push(l) });
      assert.deepEqual(taken.records, { new: 0, changed: 0, unchanged: 3, removed: 0 });
      assert.deepEqual(taken.unannounced, []);
      assert.equal(taken.counted, 1);
      assert.ok(
        logged.some((l) => l.startsWith('taking over a copy made by an earlier version of sync')),
        logged.join('\n'),
      );
      const state = JSON.parse(readFileSync(join(out, 'sync-state.json'), 'utf8'));
      assert.deepEqual(Object.keys(state.etags), ['/api/snapshot']);
      assert.equal((await syncMirror({ baseUrl: t.url, key, out })).counted, 0, 'from then on, a free 304');
    }));

  it('waits out a short Retry-After when allowed, and fails saying when to retry when not', () =>
    onOwnSite({ RATE_LIMIT_PER_HOUR: '2' }, async (t) => {
      const key = await register(t.url, 'wait@example.com');
      const start = t.clock.now;
      for (let i = 0; i < 2; i++) await get(t.url, '/api/grains/AAA', key);
      t.clock.now = start + WINDOW_MS - 2_000; // the window ends in 2 s
      const waited: number[] = [];
      const patient = createClient({
        baseUrl: t.url,
        key,
        maxWaitSeconds: 5,
        sleep: async (ms) => {
          waited.push(ms);
          t.clock.advance(ms);
        },
      });
      const answer = await patient.getGrain('AAA');
      assert.equal(answer.body.grain_id, 'AAA');
      assert.deepEqual(waited, [2_000]);
      for (let i = 0; i < 1; i++) await get(t.url, '/api/grains/AAA', key);
      const hasty = createClient({ baseUrl: t.url, key });
      await assert.rejects(hasty.getGrain('AAA'), (err: Error) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.status, 429);
        assert.ok(err.retryAfter !== null && err.retryAfter > 5);
        assert.match(err.message, /retry in \d+ s/);
        return true;
      });
    }));

  it('names why nothing answered and how often it tried, when no service listens at the URL', async () => {
    const t = await startTestGateway();
    const base = t.url;
    await t.close(); // nothing listens on that port any more
    const client = createClient({ baseUrl: base, key: 'ggt_x', retries: 2, sleep: async () => {} });
    await assert.rejects(client.listGrains(), (err: Error) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, null);
      assert.match(err.message, /after 3 attempt\(s\): fetch failed \(ECONNREFUSED\)\. Check that the service runs/);
      return true;
    });
  });

  it('names a base URL that ends with /api as the mistake (every path is unknown under it)', () =>
    onOwnSite({}, async (t) => {
      const key = await register(t.url, 'api-suffix@example.com');
      const client = createClient({ baseUrl: `${t.url}/api/`, key });
      await assert.rejects(client.snapshot(), (err: Error) => {
        assert.ok(err instanceof ApiError);
        assert.deepEqual([err.status, err.code], [404, 'not_found']);
        assert.ok(err.message.endsWith(`The base URL is the service's address without /api: ${t.url}`), err.message);
        return true;
      });
    }));

  it('the client is served as a public module that works as its source does', () =>
    onOwnSite({}, async (t) => {
      const res = await get(t.url, '/client/api.js');
      assert.equal(res.status, 200);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      const file = join(tempDir('module'), 'api.mjs');
      writeFileSync(file, res.body);
      const served = (await import(pathToFileURL(file).href)) as typeof import('../build/client/api.ts');
      const key = await register(t.url, 'module@example.com');
      const fromModule = await served.createClient({ baseUrl: t.url, key }).getGrain('aaa');
      const fromSource = await createClient({ baseUrl: t.url, key }).getGrain('AAA');
      assert.equal(fromModule.text, fromSource.text);
      assert.equal(fromModule.etag, fromSource.etag);
      assert.equal(fromModule.rateLimit?.limit, 100);
    }));

  it('the CLI: exit codes, the key only in the header, a one-line summary', () =>
    onOwnSite({}, async (t) => {
      const key = await register(t.url, 'cli@example.com');
      const out = join(tempDir('mirror'), 'tables');
      // asynchronous: the gateway answering the CLI runs in this process
      const command = await bundled('sync');
      const cli = (args: string[], env: Record<string, string> = {}) =>
        new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, [...command, ...args], {
            cwd: root,
            env: { ...process.env, ...env },
          });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
          child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
          child.on('close', (status) => resolve({ status, stdout, stderr }));
        });
      const ok = await cli(['--url', t.url, '--out', out], { API_KEY: key });
      assert.equal(ok.status, 0, ok.stderr);
      assert.match(ok.stdout, /^synced: 3 new, 0 changed, 0 unchanged, 0 removed; 1 request\(s\) counted/);
      assert.ok(!ok.stdout.includes(key) && !ok.stderr.includes(key), 'the key is never printed');
      assert.ok(existsSync(join(out, 'grains/CCC.json')));
      for (const [args, env, message] of [
        [['--url', t.url, '--key', key], {}, /^--out is missing/],
        [
          ['--url', 'ftp://x', '--key', key, '--out', out],
          {},
          /^--url must be an http:\/\/ or https:\/\/ URL, not "ftp:\/\/x"/,
        ],
        [['--url', 'localhost:8080', '--key', key, '--out', out], {}, /^--url must be an http/],
        [['--url', t.url, '--out', out], { API_KEY: '' }, /^no API key: pass --key, or set API_KEY/],
        [['--url', t.url, '--out', out, '--wait', 'soon'], { API_KEY: key }, /^--wait must be a whole number/],
        [['--uri', t.url], {}, /^Unknown option '--uri'/],
        // the API's paths begin with /api: a base URL ending with it is named as the mistake
        [
          ['--url', `${t.url}/api/`, '--key', key, '--out', out],
          {},
          new RegExp(`^--url is the service's base URL, without /api: --url ${t.url.replaceAll('.', '\\.')}\n`),
        ],
      ] as const) {
        const run = await cli([...args], env);
        assert.equal(run.status, 2, args.join(' '));
        assert.match(run.stderr, message);
        assert.match(run.stderr, /usage: npm run sync -- --url/);
      }
      const help = await cli(['--help']);
      assert.equal(help.status, 0);
      assert.match(help.stdout, /^usage: npm run sync -- --url <base URL> --out <folder>/);
      const bad = await cli(['--url', t.url, '--key', 'nope', '--out', out]);
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /sync failed, the previous mirror is as it was: 401/);
      const fresh = join(tempDir('mirror'), 'first');
      const badFirst = await cli(['--url', t.url, '--key', 'nope', '--out', fresh]);
      assert.equal(badFirst.status, 1);
      assert.match(badFirst.stderr, /sync failed, nothing was written: 401/);
      assert.ok(!existsSync(fresh));
    }));
});
