// tier: full (gateway processes on a failing disk)
// Faults of the state directory, against real gateway processes: a second gateway on one
// STATE_DIR, and a full disk under it (a real tmpfs filled to the last byte). Every key that got a
// 201 must work after kill -9 (docs/operations.md, "When something goes wrong").
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MESSAGES } from '../gateway/errors.ts';
import { bundled } from './helpers/bundles.ts';
import { tempDir } from './helpers/dataset.ts';
import { errorJson } from './helpers/errors.ts';
import {
  type ChildGateway,
  get,
  type RawResponse,
  realSiteDir,
  register,
  request,
  root,
  spawnGateway,
  startTestGateway,
} from './helpers/gateway.ts';
import { mountSmallDisk } from './helpers/small-disk.ts';

/** npm start's entry run to its end: its exit code, what it wrote, and how long it took. */
async function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string; ms: number }> {
  const command = await bundled('gateway');
  const started = Date.now();
  const child = spawn(process.execPath, command, {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, output, ms: Date.now() - started });
    }),
  );
}

const kill9 = async (g: ChildGateway) => {
  g.child.kill('SIGKILL');
  assert.equal(await g.exited, null);
};
const stop = async (g: ChildGateway) => {
  g.child.kill('SIGTERM');
  assert.equal(await g.exited, 0);
};

/** Every key works on `base` (200 for its first request there). */
async function allWork(base: string, keys: string[]) {
  const statuses = await Promise.all(keys.map(async (k) => (await get(base, '/api/grains', k)).status));
  assert.deepEqual(
    statuses,
    keys.map(() => 200),
  );
}

const registerRaw = (base: string, email: string, headers: Record<string, string> = {}) =>
  request(base, '/api/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email }),
  });

describe('one gateway per STATE_DIR', () => {
  it(
    'refuses a second gateway at once with a sentence, while the first serves; ' + 'kill -9 frees the directory',
    async () => {
      const stateDir = tempDir('locked');
      const env = { STATE_DIR: stateDir, SITE_DIR: realSiteDir() };
      const first = await spawnGateway(env);
      const keys = [await register(first.url, 'first@example.com')];
      const second = await runToExit(env);
      assert.notEqual(second.code, 0);
      assert.equal(second.code, 1);
      assert.ok(second.ms < 15_000, `refused after ${second.ms} ms`);
      assert.ok(
        second.output.includes(
          `start-up refused: STATE_DIR ${stateDir} is held by another gateway process: one process per state ` +
            'directory keeps the hourly limits exact. To run several gateways, give them one Redis server ' +
            '(REDIS_URL) or each its own STATE_DIR.',
        ),
        second.output,
      );
      assert.doesNotMatch(second.output, /"event":"listening"/);
      // the first was not disturbed
      await allWork(first.url, keys);
      keys.push(await register(first.url, 'during@example.com'));
      assert.equal((await get(first.url, '/health')).json().status, 'ok');

      await kill9(first);
      const third = await spawnGateway(env);
      try {
        await allWork(third.url, keys);
      } finally {
        await stop(third);
      }
    },
  );

  it('is not enforced with REDIS_URL, where nothing is written under STATE_DIR', async () => {
    const env = { STATE_DIR: tempDir('shared'), REDIS_URL: 'redis://127.0.0.1:1', REDIS_KEY_PREFIX: 'faults:' };
    const a = await startTestGateway(env);
    const b = await startTestGateway(env);
    try {
      for (const t of [a, b]) assert.equal((await get(t.url, '/health')).json().store, 'unavailable');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

const disk = mountSmallDisk('8m');

describe('a full disk under STATE_DIR', { skip: typeof disk === 'string' ? disk : false }, () => {
  it(
    '503 with Retry-After for what must write; existing keys work; ' + '/health degraded; recovers without a restart',
    async () => {
      assert.ok(typeof disk !== 'string');
      const env = {
        STATE_DIR: join(disk.dir, 'state'),
        SITE_DIR: realSiteDir(),
        REGISTER_LIMIT_PER_HOUR: '100000',
        METRICS_TOKEN: 'full-disk-test-token',
      };
      const g = await spawnGateway(env);
      const kept = await register(g.url, 'before@example.com');
      const issued = [kept];
      // smaller writes than a registration, so SQLite may fit some into space a failed write took
      const revocable: string[] = [];
      for (let i = 0; i < 8; i++) revocable.push(await register(g.url, `revocable-${i}@example.com`));
      disk.fill();

      // SQLite may still fit a few commits into its write-ahead log: every 201 is kept, and checked later
      let refused: RawResponse | null = null;
      for (let i = 0; i < 200 && !refused; i++) {
        const res = await registerRaw(g.url, `full-${i}@example.com`);
        if (res.status === 201) issued.push(res.json().api_key);
        else refused = res;
      }
      assert.ok(refused, 'registration was refused once the disk was full');
      assert.equal(refused.status, 503, refused.text());
      assert.equal(refused.headers['retry-after'], '10');
      assert.deepEqual(refused.json(), errorJson('cannotSaveKeys', 503));
      assert.equal(MESSAGES.cannotSaveKeys, 'The service cannot save new keys right now; try again in 10 seconds.');
      // a rotation must write as much: refused too, and the key it would have replaced stays live
      const rotation = await registerRaw(g.url, 'before@example.com', { 'x-api-key': kept });
      assert.equal(rotation.status, 503);
      assert.deepEqual(rotation.json(), refused.json());
      // a revocation: saved (204) while it fits, else 503
      let revokeRefused: RawResponse | null = null;
      // not saved: live now (whether a commit SQLite could not confirm reached the file shows at restart)
      const stillLive: string[] = [];
      for (const key of revocable) {
        const res = await request(g.url, '/api/keys/current', { method: 'DELETE', headers: { 'x-api-key': key } });
        if (res.status === 204) {
          assert.equal((await get(g.url, '/api/grains', key)).status, 401);
          continue;
        }
        revokeRefused ??= res;
        stillLive.push(key);
      }
      assert.ok(revokeRefused, 'a revocation was refused');
      assert.equal(revokeRefused.status, 503);
      assert.equal(revokeRefused.headers['retry-after'], '10');
      assert.deepEqual(revokeRefused.json(), errorJson('cannotSaveRevocation', 503));

      // reads go on: every key issued works, and is counted
      await allWork(g.url, [...issued, ...stillLive]);
      const counted = await get(g.url, '/api/grains', kept);
      assert.equal(counted.status, 200);
      assert.equal(counted.headers['x-ratelimit-used'], '2');

      const health = await get(g.url, '/health');
      assert.equal(health.status, 200);
      const h = health.json();
      assert.equal(h.status, 'store_degraded');
      assert.equal(h.store, 'degraded');
      assert.match(h.reason, /^The store cannot write: the file system under STATE_DIR is full \(.+\)\. /);
      const metrics = await get(g.url, '/metrics', undefined, { authorization: 'Bearer full-disk-test-token' });
      const failures = /gateway_store_write_failures_total\{store="sqlite",reason="no_space"\} (\d+)/.exec(
        metrics.text(),
      );
      assert.ok(failures && Number(failures[1]) >= 3, metrics.text());
      assert.match(metrics.text(), /gateway_store_up\{store="sqlite"\} 0/);

      // space back: registration works again, with no restart
      disk.free();
      const after = await registerRaw(g.url, 'after@example.com');
      assert.equal(after.status, 201, after.text());
      issued.push(after.json().api_key);
      assert.equal((await get(g.url, '/health')).json().status, 'ok');
      // the log (written in batches) says when it began and ended, once each, and holds no 500
      await logged(g, /"event":"store_writable"/);
      const log = g.output.join('');
      assert.equal(log.match(/"event":"store_cannot_write"/g)?.length, 1, 'logged once, when it began');
      assert.equal(log.match(/"event":"store_writable"/g)?.length, 1);
      assert.doesNotMatch(log, /"status":500/);

      // kill -9: every key that got a 201 works, and the hour counted while the disk was full is kept
      await waitForCheckpoint(g);
      await kill9(g);
      const next = await spawnGateway(env);
      try {
        await allWork(next.url, issued);
        assert.equal((await get(next.url, '/api/grains', kept)).headers['x-ratelimit-used'], '4');
      } finally {
        await stop(next);
      }
    },
  );
});

/**
 * Until the checkpoint (every 2 s) has saved the windows counted while the disk was full: the
 * key's next request shows its count, so this asks the metrics how many checkpoints succeeded.
 */
async function waitForCheckpoint(g: ChildGateway) {
  const scrape = async () =>
    (await get(g.url, '/metrics', undefined, { authorization: 'Bearer full-disk-test-token' })).text();
  const saved = (text: string) =>
    Number(
      /gateway_store_operation_duration_seconds_count\{store="sqlite",operation="checkpoint"\} (\d+)/.exec(text)?.[1],
    );
  const failedSoFar = (text: string) =>
    Number(/gateway_store_errors_total\{store="sqlite",operation="checkpoint"\} (\d+)/.exec(text)?.[1]);
  const first = await scrape();
  const target = saved(first) - failedSoFar(first) + 1;
  for (let i = 0; i < 100; i++) {
    const text = await scrape();
    if (saved(text) - failedSoFar(text) >= target) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('no checkpoint succeeded within 5 s');
}

/** Until the gateway's log holds `pattern` (its lines are written in batches, every 100 ms). */
async function logged(g: ChildGateway, pattern: RegExp) {
  for (let i = 0; i < 100 && !pattern.test(g.output.join('')); i++) await new Promise((r) => setTimeout(r, 20));
  assert.match(g.output.join(''), pattern);
}
