// The embedded default: one SQLite file (WAL, synchronous=FULL) under STATE_DIR holds accounts and
// key hashes; the hourly windows live in this process's memory, are saved every few seconds (one
// snapshot blob per kind) and at shutdown, and are restored at start, so a restart or deploy hands out no fresh quota.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { digestBytes, hashKey } from '../keys.ts';
import { createMemoryLimiter, type MemoryLimiter } from '../rate-limit.ts';
import { createKeyCache } from './key-cache.ts';
import { createKeyFilter } from './key-filter.ts';
import type { Account, AccountRow, Store } from './types.ts';
import { decodeWindows, encodeWindows } from './window-snapshot.ts';

export const DB_FILE = 'gateway.sqlite';

export interface SqliteStoreOptions {
  stateDir: string;
  rateLimitPerHour: number;
  registerLimitPerHour: number;
  clock: () => number;
  /** How often the windows are saved; a kill -9 loses at most this much counting. */
  checkpointMs?: number;
  /** Per-address registration windows held at most (a flood of addresses cannot grow memory). */
  maxAddresses?: number;
  /** Verified keys held in memory (an LRU); unknown keys are never cached. */
  maxCachedKeys?: number;
  /** Where the store reports trouble that is not a request's (the gateway's log). */
  log?: (event: Record<string, unknown>) => void;
  /** How often another process's writes (the accounts CLI) are looked for; bounds revocation delay. */
  externalWritePollMs?: number;
}

export function openDatabase(stateDir: string): Database.Database {
  mkdirSync(stateDir, { recursive: true });
  const db = new Database(join(stateDir, DB_FILE));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL'); // a 201 is answered after the commit reached the disk
  db.pragma('busy_timeout = 5000'); // the accounts CLI may write at the same time
  db.exec(`
    CREATE TABLE IF NOT EXISTS accounts (
      id INTEGER PRIMARY KEY,
      email TEXT NOT NULL UNIQUE,
      key_hash BLOB UNIQUE,
      created_at INTEGER NOT NULL,
      key_issued_at INTEGER,
      revoked_at INTEGER
    );
    CREATE TABLE IF NOT EXISTS window_snapshots (
      kind TEXT PRIMARY KEY,
      saved_at INTEGER NOT NULL,
      data BLOB NOT NULL
    );
  `);
  return db;
}

export function accountQueries(db: Database.Database) {
  const list = db.prepare<[], AccountRow>(
    'SELECT CAST(id AS TEXT) AS id, email, created_at, key_issued_at, revoked_at FROM accounts ORDER BY id',
  );
  const show = db.prepare<[string], AccountRow>(
    'SELECT CAST(id AS TEXT) AS id, email, created_at, key_issued_at, revoked_at FROM accounts WHERE email = ?',
  );
  const revoke = db.prepare<[number, string]>(
    'UPDATE accounts SET key_hash = NULL, revoked_at = ? WHERE email = ? AND key_hash IS NOT NULL',
  );
  return {
    list: () => list.all(),
    show: (email: string) => show.get(email) ?? null,
    revoke: (email: string, now: number) => revoke.run(now, email).changes > 0,
  };
}

export function openSqliteStore(opts: SqliteStoreOptions): Store {
  const db = openDatabase(opts.stateDir);
  const find = db.prepare<[Buffer], { id: number; email: string }>('SELECT id, email FROM accounts WHERE key_hash = ?');
  const upsert = db.prepare<[string, Buffer, number, number], { id: number }>(
    `INSERT INTO accounts (email, key_hash, created_at, key_issued_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(email) DO UPDATE SET key_hash = excluded.key_hash, key_issued_at = excluded.key_issued_at, revoked_at = NULL
     RETURNING id`,
  );
  const readSnapshot = db.prepare<[string], Buffer>('SELECT data FROM window_snapshots WHERE kind = ?').pluck();
  const writeSnapshot = db.prepare<[string, number, Buffer]>(
    'INSERT INTO window_snapshots (kind, saved_at, data) VALUES (?, ?, ?) ON CONFLICT(kind) DO UPDATE SET saved_at = excluded.saved_at, data = excluded.data',
  );

  const requests = createMemoryLimiter({ limit: opts.rateLimitPerHour });
  const registrations = createMemoryLimiter({
    limit: opts.registerLimitPerHour,
    maxSubjects: opts.maxAddresses ?? 100_000,
  });
  const limiters: [string, MemoryLimiter][] = [
    ['requests', requests],
    ['registrations', registrations],
  ];
  for (const [kind, limiter] of limiters) {
    const data = readSnapshot.get(kind);
    if (data === undefined) continue;
    try {
      limiter.restore(decodeWindows(data), opts.clock());
    } catch (err) {
      // Counters only: start without them rather than not at all, and say so.
      opts.log?.({ event: 'windows_unreadable', kind, error: (err as Error).message });
    }
  }

  // Each kind's windows are saved as one snapshot when something was counted, every few seconds
  // and at shutdown.
  const save = db.transaction((force: boolean) => {
    const now = opts.clock();
    for (const [kind, limiter] of limiters) {
      if (limiter.takeChanged() || force) writeSnapshot.run(kind, now, encodeWindows(limiter.live(now)));
    }
  });
  let lastSaveFailed = false;
  const checkpoint = setInterval(() => {
    try {
      save(lastSaveFailed); // after a failure, everything again: its changes were taken
      lastSaveFailed = false;
    } catch (err) {
      // e.g. the file locked past busy_timeout by the accounts CLI: logged, retried next round
      lastSaveFailed = true;
      opts.log?.({ event: 'windows_save_failed', error: (err as Error).message });
    }
  }, opts.checkpointMs ?? 2_000);
  checkpoint.unref();

  // Verified keys, so the hot path neither hashes nor queries the file
  // (docs/performance.md: the measurements behind the code). Our own replacements drop the old key at once; a write
  // by another process (npm run accounts -- revoke) changes PRAGMA data_version, which is polled,
  // and empties the cache. Keys live here in memory only, as they do while a request is handled.
  const verified = createKeyCache<Account>(opts.maxCachedKeys ?? 100_000);
  // Which key hashes exist, so an unknown key costs a hash and no query (key-filter.ts).
  const allHashes = db.prepare<[], Buffer>('SELECT key_hash FROM accounts WHERE key_hash IS NOT NULL').pluck();
  const issuedDigests = function* () {
    for (const h of allHashes.iterate()) yield h.toString('latin1');
  };
  let issued = createKeyFilter(issuedDigests());
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();
  const watchWrites = setInterval(() => {
    const v = dataVersion.get();
    if (v !== seenVersion) {
      seenVersion = v;
      verified.clear();
      issued = createKeyFilter(issuedDigests());
    }
  }, opts.externalWritePollMs ?? 250);
  watchWrites.unref();

  const queries = accountQueries(db);
  let closed = false;
  return {
    kind: 'sqlite',
    cachedAccount: (key) => verified.get(key),
    /** Called after cachedAccount missed (app.ts), so it does not look in the cache again. */
    findByKey(key): Account | null {
      const digest = hashKey(key);
      if (!issued.mightHold(digest)) return null;
      const row = find.get(digestBytes(digest));
      if (!row) return null;
      const account = { id: String(row.id), email: row.email };
      verified.set(key, account);
      return account;
    },
    register(email, digest, now): Account {
      const row = upsert.get(email, digestBytes(digest), now, now)!;
      issued.add(digest);
      const id = String(row.id);
      verified.dropAccount(id);
      return { id, email };
    },
    requests,
    registrations,
    ...queries,
    health: () => 'ok',
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(checkpoint);
      clearInterval(watchWrites);
      save(true);
      db.close();
    },
  };
}
