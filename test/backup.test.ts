// Backups of the embedded store (docs/operations.md, "Backups"): a copy taken while the gateway
// issues keys and serves keyed requests, restored into a new STATE_DIR, brings back every key issued
// before it with its account, its usage and its hourly window; the keys issued after it are refused;
// a backup never overwrites a file. (npm run backup, the CLI over backupStore, runs in CI's
// production step on the production dependencies alone.) The gateway is its app, asked in process
// (helpers/inject.ts): the store is the subject, not the socket.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { BackupError, backupStore } from '../gateway/store/backup.ts';
import { DB_FILE } from '../gateway/store/sqlite/schema.ts';
import { openSqliteStore } from '../gateway/store/sqlite/sqlite-store.ts';
import { tempDir } from './helpers/dataset.ts';
import { testClock } from './helpers/gateway.ts';
import { injectGet, injectRegister, startTestApp } from './helpers/inject.ts';

const LIMITS = { RATE_LIMIT_PER_HOUR: '1000', REGISTER_LIMIT_PER_HOUR: '1000' };

/** The gateway on a store that saves its windows and usage every 10 ms, so the test need not wait 2 s. */
function servingGateway(stateDir: string, clock: ReturnType<typeof testClock>) {
  const perHour = Number(LIMITS.REGISTER_LIMIT_PER_HOUR);
  const store = openSqliteStore({
    stateDir,
    rateLimitPerHour: Number(LIMITS.RATE_LIMIT_PER_HOUR),
    registerLimitPerHour: perHour,
    registerAttemptsPerHour: perHour * 10,
    clock,
    checkpointMs: 10,
  });
  return startTestApp({ STATE_DIR: stateDir, ...LIMITS }, { clock, store });
}

/** Requests saved in the file (the checkpoint's work), read as the backup reads it: another connection. */
function savedRequests(stateDir: string): number {
  const db = new Database(join(stateDir, DB_FILE), { readonly: true });
  try {
    return db.prepare<[], number>('SELECT COALESCE(SUM(request_count), 0) FROM api_keys').pluck().get()!;
  } finally {
    db.close();
  }
}

describe('backup and restore of the embedded store', () => {
  it('brings back every key issued before the copy, with its account and usage; later keys are refused', async () => {
    const stateDir = tempDir('backup-state');
    const clock = testClock();
    const gateway = await servingGateway(stateDir, clock);
    const { app } = gateway;
    const loadKey = await injectRegister(app, 'load@example.com');
    let loading = true;
    let served = 0;
    const load = (async () => {
      while (loading) {
        const res = await injectGet(app, '/api/grains', loadKey);
        assert.equal(res.status, 200);
        served++;
      }
    })();

    // keys issued under load, each used its own number of times
    const before = await Promise.all(
      Array.from({ length: 6 }, (_, i) => injectRegister(app, `before-${i}@example.com`).then((key) => ({ key, i }))),
    );
    for (const { key, i } of before)
      for (let n = 0; n <= i; n++) assert.equal((await injectGet(app, '/api/grains/CWRS', key)).status, 200);
    const usedBefore = before.reduce((n, { i }) => n + i + 1, 0);
    // the checkpoint has saved their usage (polled, not slept: it runs every 10 ms)
    const target = usedBefore + served;
    for (let i = 0; i < 500 && savedRequests(stateDir) < target; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(savedRequests(stateDir) >= usedBefore, 'the usage of the keys issued before is saved');

    // the copy, taken while keys are issued and requests served
    const file = join(tempDir('backup-out'), 'grain.sqlite');
    const during = injectRegister(app, 'during@example.com');
    const copied = await backupStore(stateDir, file);
    await during;
    assert.ok(copied.accounts >= 7 && copied.keys >= 7, JSON.stringify(copied));
    const later = await Promise.all(Array.from({ length: 3 }, (_, i) => injectRegister(app, `later-${i}@example.com`)));
    await assert.rejects(
      backupStore(stateDir, file),
      (err: Error) => err instanceof BackupError && /exists/.test(err.message),
    );
    loading = false;
    await load;
    await gateway.close();

    // restored: the file as the new STATE_DIR's store, the gateway started on it
    const restoredDir = tempDir('backup-restored');
    copyFileSync(file, join(restoredDir, DB_FILE));
    const restored = await startTestApp({ STATE_DIR: restoredDir, ...LIMITS }, { clock });
    try {
      for (const { key, i } of before) {
        const res = await injectGet(restored.app, '/api/grains/CWRS', key);
        assert.equal(res.status, 200, `a key issued before the copy works: ${res.text()}`);
        // the hour it had counted goes on: its window came back with it
        assert.equal(res.headers['x-ratelimit-used'], String(i + 2));
      }
      for (const { i } of before) {
        const account = await restored.store.show(`before-${i}@example.com`);
        assert.ok(account, `the account before-${i} is back`);
        assert.equal(account.keys.length, 1);
        assert.equal(account.keys[0]!.requests, i + 1, 'with the usage saved before the copy');
      }
      assert.equal((await injectGet(restored.app, '/api/grains', loadKey)).status, 200);
      for (const key of later)
        assert.equal((await injectGet(restored.app, '/api/grains', key)).status, 401, 'a later key is not');
      assert.equal(await restored.store.show('later-0@example.com'), null);
    } finally {
      await restored.close();
    }
  });

  it('refuses a file that exists and a STATE_DIR with no store, writing nothing', async () => {
    const existing = join(tempDir('backup-existing'), 'taken.sqlite');
    writeFileSync(existing, 'not ours');
    const empty = tempDir('backup-empty');
    await assert.rejects(backupStore(empty, join(empty, 'x.sqlite')), /no store at .*gateway\.sqlite/);
    assert.equal(existsSync(join(empty, 'x.sqlite')), false);
    const stateDir = tempDir('backup-state');
    const gateway = await servingGateway(stateDir, testClock());
    try {
      await assert.rejects(
        backupStore(stateDir, existing),
        (err: Error) => err instanceof BackupError && /exists/.test(err.message),
      );
      assert.equal(readFileSync(existing, 'utf8'), 'not ours');
    } finally {
      await gateway.close();
    }
  });
});
