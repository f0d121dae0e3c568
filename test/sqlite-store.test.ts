// The embedded store (gateway/store/sqlite/sqlite-store.ts) saving the hourly windows while it serves: every
// checkpoint writes what was counted, so a killed process loses at most one checkpoint's counting
// (docs/contract.md, Authentication and limits), and a store opened on the file counts on from it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { type Decision, WINDOW_MS } from '../gateway/rate-limit.ts';
import { DB_FILE } from '../gateway/store/sqlite/schema.ts';
import { openSqliteStore } from '../gateway/store/sqlite/sqlite-store.ts';
import { decodeWindows } from '../gateway/store/sqlite/window-snapshot.ts';
import { tempDir } from './helpers/dataset.ts';

describe('saving the hourly windows while serving', () => {
  it('saves what was counted every checkpoint, so a killed process loses at most that much', async () => {
    const stateDir = tempDir('checkpoint');
    const start = Date.UTC(2026, 10, 22, 12);
    let now = start;
    const clock = () => now;
    const first = openSqliteStore({
      stateDir,
      rateLimitPerHour: 100,
      registerLimitPerHour: 10,
      registerAttemptsPerHour: 100,
      clock,
      checkpointMs: 20,
    });
    for (let i = 0; i < 7; i++) assert.equal((first.requests.hit('1', now) as Decision).used, i + 1);
    for (let i = 0; i < 3; i++) first.requests.hit('2', now);
    first.registrations.hit('192.0.2.1', now);
    first.recoveryMails.hit('mailbox', now);
    now += 1_000;
    // another connection reads the file, as a restarted process would, until the checkpoint ran
    const reader = new Database(join(stateDir, DB_FILE), { readonly: true });
    const saved = () =>
      (
        reader.prepare('SELECT kind, data FROM window_snapshots ORDER BY kind').all() as {
          kind: string;
          data: Buffer;
        }[]
      ).map((r) => [r.kind, decodeWindows(r.data)]);
    const expected = [
      ['recovery_mails', [['mailbox', start, 1, start]]],
      ['registrations', [['192.0.2.1', start, 1, start]]],
      [
        'requests',
        [
          ['1', start, 7, start],
          ['2', start, 3, start],
        ],
      ],
    ];
    for (let i = 0; i < 200 && JSON.stringify(saved()) !== JSON.stringify(expected); i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(saved(), expected);
    // first is never closed (as after kill -9); a second store on the same file restores the windows
    const second = openSqliteStore({
      stateDir,
      rateLimitPerHour: 100,
      registerLimitPerHour: 10,
      registerAttemptsPerHour: 100,
      clock,
      checkpointMs: 60_000,
    });
    try {
      assert.equal((second.requests.hit('1', now) as Decision).used, 8);
      assert.equal((second.requests.peek('2', now) as Decision).used, 3);
      assert.equal((second.registrations.peek('192.0.2.1', now) as Decision).used, 1);
      assert.equal((second.recoveryMails.peek('mailbox', now) as Decision).used, 1);
      // an hour after its start a window is over, and is not saved again
      now = start + WINDOW_MS;
      assert.equal((second.requests.peek('1', now) as Decision).used, 0);
    } finally {
      await second.close();
    }
    assert.deepEqual(saved(), [
      ['recovery_addresses', []],
      ['recovery_mails', []],
      ['registration_attempts', []],
      ['registrations', []],
      ['requests', []],
    ]);
    reader.close();
  });
});
