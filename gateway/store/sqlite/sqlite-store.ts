// The embedded default: one SQLite file (WAL, synchronous=FULL) under STATE_DIR holds accounts and
// key hashes; the hourly windows live in this process's memory, are saved every few seconds (one
// snapshot blob per kind) and at shutdown, and are restored at start, so a restart or deploy hands
// out no fresh quota.

import { statfsSync } from 'node:fs';
import { RECOVERY_MAILS_PER_HOUR } from '../../../build/site-format.ts';
import { digestBytes, hashKey } from '../../keys.ts';
import { createMemoryLimiter, type MemoryLimiter } from '../memory-limiter.ts';
import { StoreStatus, StoreUnavailableError, writeFailureOf } from '../store-status.ts';
import { type Account, MAX_LIVE_KEYS, type Registered, type Store, type StoreObserver, timed } from '../types.ts';
import { createKeyCache } from './key-cache.ts';
import { createKeyFilter } from './key-filter.ts';
import { type SharedStatements, sqliteRecovery } from './recovery-tables.ts';
import { accountQueries, openDatabase } from './schema.ts';
import { decodeWindows, encodeWindows } from './window-snapshot.ts';

export interface SqliteStoreOptions {
  stateDir: string;
  rateLimitPerHour: number;
  registerLimitPerHour: number;
  /** Registration attempts per address per hour, refused ones included (rate-limit.ts). */
  registerAttemptsPerHour: number;
  /** Recovery mails per e-mail address per hour (RECOVERY_MAILS_PER_HOUR unless a test says). */
  recoveryMailsPerHour?: number;
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
  /** Told of each query and checkpoint (GET /metrics). */
  observe?: StoreObserver;
}

export function openSqliteStore(opts: SqliteStoreOptions): Store {
  const db = openDatabase(opts.stateDir);
  const find = db.prepare<[Buffer], { id: number; email: string; keyId: number }>(
    `SELECT a.id, a.email, k.id AS keyId FROM api_keys k JOIN accounts a ON a.id = k.account_id
     WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
  );
  const accountOf: SharedStatements['accountOf'] = db
    .prepare<[string], number>('SELECT id FROM accounts WHERE email = ?')
    .pluck();
  // Every registration writes its account's row and e-mail index entry, as creating one does (the
  // e-mail set to itself rewrites the index entry; the count, the row): registering a known address
  // costs the file what a new one does, so neither the answer's time nor the next request's tells
  // them apart (docs/contract.md, Getting a key back).
  const writeAccount = db
    .prepare<[string, number], number>(
      'INSERT INTO accounts (email, created_at, registrations) VALUES (?, ?, 1) ON CONFLICT (email) ' +
        'DO UPDATE SET email = excluded.email, registrations = registrations + 1 RETURNING id',
    )
    .pluck();
  const liveKeyOf = db
    .prepare<[Buffer, number], number>(
      'SELECT id FROM api_keys WHERE key_hash = ? AND account_id = ? AND revoked_at IS NULL',
    )
    .pluck();
  const liveCount = db
    .prepare<[number], number>('SELECT COUNT(*) FROM api_keys WHERE account_id = ? AND revoked_at IS NULL')
    .pluck();
  const insertKey: SharedStatements['insertKey'] = db
    .prepare<[number, Buffer, number], number>(
      'INSERT INTO api_keys (account_id, key_hash, created_at) VALUES (?, ?, ?) RETURNING id',
    )
    .pluck();
  const revokeById = db.prepare<[number, number]>('UPDATE api_keys SET revoked_at = ? WHERE id = ?');
  const revokeByHash = db
    .prepare<[number, Buffer], number>(
      'UPDATE api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL RETURNING id',
    )
    .pluck();
  const addUsage = db.prepare<[number, number, number]>(
    'UPDATE api_keys SET request_count = request_count + ?, ' +
      'last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?',
  );
  // In a transaction of its own: an UPDATE … RETURNING read with get() commits only when the
  // statement is reset, and a commit that fails there (no space) would go unreported: a 204 for a
  // revocation never saved. The transaction's COMMIT reports it.
  const revoke = db.transaction((now: number, digest: Buffer) => revokeByHash.get(now, digest));
  const countLive = db.prepare<[], number>('SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NULL').pluck();
  /**
   * docs/contract.md, Keys and registration: new key, rotation, and the bound, in one transaction
   * (a 201 is durable).
   */
  const issue = db.transaction((email: string, digest: Buffer, now: number, rotate: Buffer | null) => {
    const id = writeAccount.get(email, now)!;
    const rotated = rotate ? liveKeyOf.get(rotate, id) : undefined;
    if (rotated === undefined && liveCount.get(id)! >= MAX_LIVE_KEYS) return { id, keyId: null, rotated };
    const keyId = insertKey.get(id, digest, now)!;
    if (rotated !== undefined) revokeById.run(now, rotated);
    return { id, keyId, rotated };
  });
  const readSnapshot = db.prepare<[string], Buffer>('SELECT data FROM window_snapshots WHERE kind = ?').pluck();
  const writeSnapshot = db.prepare<[string, number, Buffer]>(
    'INSERT INTO window_snapshots (kind, saved_at, data) VALUES (?, ?, ?) ' +
      'ON CONFLICT(kind) DO UPDATE SET saved_at = excluded.saved_at, data = excluded.data',
  );

  let closed = false;
  const requests = createMemoryLimiter({ limit: opts.rateLimitPerHour });
  const registrations = createMemoryLimiter({
    limit: opts.registerLimitPerHour,
    maxSubjects: opts.maxAddresses ?? 100_000,
  });
  const registrationAttempts = createMemoryLimiter({
    limit: opts.registerAttemptsPerHour,
    maxSubjects: opts.maxAddresses ?? 100_000,
  });
  const recoveryMails = createMemoryLimiter({
    limit: opts.recoveryMailsPerHour ?? RECOVERY_MAILS_PER_HOUR,
    maxSubjects: opts.maxAddresses ?? 100_000,
  });
  const recoveryAddresses = createMemoryLimiter({
    limit: opts.registerLimitPerHour,
    maxSubjects: opts.maxAddresses ?? 100_000,
  });
  const limiters: [string, MemoryLimiter][] = [
    ['requests', requests],
    ['registrations', registrations],
    ['registration_attempts', registrationAttempts],
    ['recovery_mails', recoveryMails],
    ['recovery_addresses', recoveryAddresses],
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
  // and at shutdown. A key's usage (its request total and last use) is written in the
  // same transaction, not per request: the windows count it, and it is marked saved once committed.
  const saveAll = db.transaction((force: boolean) => {
    const now = opts.clock();
    const usage = requests.unsaved();
    for (const [keyId, n, last] of usage.rows) addUsage.run(n, last, Number(keyId));
    for (const [kind, limiter] of limiters) {
      if (limiter.takeChanged() || force) writeSnapshot.run(kind, now, encodeWindows(limiter.live(now)));
    }
    return usage;
  });
  const save = (force: boolean) => timed(opts.observe, 'checkpoint', () => saveAll(force)).settle();
  // A write that fails (no space, read-only, I/O error, locked past busy_timeout) degrades the
  // store until one succeeds; /health says why (docs/operations.md, "When something goes wrong").
  const status = new StoreStatus(opts.log);
  const freeBytes = () => {
    try {
      const fs = statfsSync(opts.stateDir);
      return fs.bavail * fs.bsize;
    } catch {
      return Number.POSITIVE_INFINITY; // cannot tell: the write that succeeded decides
    }
  };
  let lastSaveFailed = false;
  const checkpoint = setInterval(() => {
    try {
      // After a failure everything again, as its changes were taken; and while degraded, every
      // round, so the store finds out by itself that it can write again.
      save(lastSaveFailed || status.state === 'degraded');
      lastSaveFailed = false;
      status.wrote(freeBytes);
    } catch (err) {
      // Nothing admitted is forgotten: the windows stay in memory and unsettled usage stays
      // unsettled, so the next round saves them. Logged when the store degrades, not each round.
      lastSaveFailed = true;
      if (status.writeFailed(err, 'checkpoint') === err)
        opts.log?.({ event: 'windows_save_failed', error: (err as Error).message });
    }
  }, opts.checkpointMs ?? 2_000);
  checkpoint.unref();
  /** A write: a failure the file system causes is a 503 (StoreWriteError), any other a bug. */
  const write = <T>(operation: 'register' | 'revoke' | 'recover', run: () => T): T => {
    if (closed) throw new StoreUnavailableError('the gateway is shutting down');
    let result: T;
    try {
      result = timed(opts.observe, operation, run);
    } catch (err) {
      throw status.writeFailed(err, operation);
    }
    status.wrote(freeBytes);
    return result;
  };
  /** A read: one the file system fails is a 503 too, without degrading writes. */
  const read = <T>(run: () => T): T => {
    if (closed) throw new StoreUnavailableError('the gateway is shutting down');
    try {
      return run();
    } catch (err) {
      if (writeFailureOf(err) === null) throw err;
      throw new StoreUnavailableError((err as Error).message);
    }
  };

  // Verified keys, so the hot path neither hashes nor queries the file
  // (docs/performance.md: the measurements behind the code). Our own replacements drop the old key at once; a write
  // by another process (npm run accounts -- revoke) changes PRAGMA data_version, which is polled,
  // and empties the cache. Keys live here in memory only, as they do while a request is handled.
  const verified = createKeyCache<Account>(opts.maxCachedKeys ?? 100_000);
  // Which key hashes exist, so an unknown key costs a hash and no query (key-filter.ts).
  const allHashes = db.prepare<[], Buffer>('SELECT key_hash FROM api_keys WHERE revoked_at IS NULL').pluck();
  const issuedDigests = function* () {
    for (const h of allHashes.iterate()) yield h.toString('latin1');
  };
  let issued = createKeyFilter(issuedDigests());
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();
  const watchWrites = setInterval(() => {
    try {
      const v = dataVersion.get();
      if (v !== seenVersion) {
        issued = createKeyFilter(issuedDigests());
        seenVersion = v;
        verified.clear();
      }
    } catch {
      // a file the system cannot read now: looked at again next round, never a crash
    }
  }, opts.externalWritePollMs ?? 250);
  watchWrites.unref();

  const queries = accountQueries(db);
  const tokens = sqliteRecovery(db, { accountOf, insertKey });
  return {
    kind: 'sqlite',
    cachedAccount: (key) => verified.get(key),
    /** Called after cachedAccount missed (app.ts), so it does not look in the cache again. */
    findByKey(key): Account | null {
      const digest = hashKey(key);
      if (!issued.mightHold(digest)) return null;
      const row = read(() => timed(opts.observe, 'find_key', () => find.get(digestBytes(digest))));
      if (!row) return null;
      // its window slot from the start: every cached account keeps one shape (the limiter fills it)
      const account: Account = { id: String(row.id), email: row.email, keyId: String(row.keyId), window: undefined };
      verified.set(key, account);
      return account;
    },
    register(email, digest, now, rotate): Registered {
      const r = write('register', () =>
        issue(email, digestBytes(digest), now, rotate === null ? null : digestBytes(rotate)),
      );
      if (r.keyId === null) return 'too_many_keys';
      issued.add(digest);
      if (r.rotated !== undefined) verified.dropKey(String(r.rotated));
      return { id: String(r.id), email, keyId: String(r.keyId) };
    },
    revokeKey(digest, now) {
      const keyId = write('revoke', () => revoke(now, digestBytes(digest)));
      if (keyId === undefined) return false;
      verified.dropKey(String(keyId));
      return true;
    },
    recovery: {
      issue: (email, digest, now, expiresAt) =>
        write('recover', () => tokens.issue(email, digestBytes(digest), now, expiresAt)),
      use(digest, keyDigest, now) {
        const r = write('recover', () => tokens.use(digestBytes(digest), digestBytes(keyDigest), now));
        for (const id of r.revokedIds) verified.dropKey(String(id));
        if (typeof r.outcome === 'object') issued.add(keyDigest);
        return r.outcome;
      },
      state: (digest, now) => read(() => tokens.state(digestBytes(digest), now)),
    },
    requests,
    registrations,
    registrationAttempts,
    recoveryMails,
    recoveryAddresses,
    ...queries,
    liveKeys: () => read(() => timed(opts.observe, 'live_keys', () => countLive.get()!)),
    status,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(checkpoint);
      clearInterval(watchWrites);
      try {
        save(true);
      } catch (err) {
        // No space at shutdown: the windows since the last checkpoint cannot be kept; say how much.
        const lost = requests.unsaved().rows.reduce((sum, [, n]) => sum + n, 0);
        opts.log?.({ event: 'windows_not_saved', requests: lost, error: (err as Error).message });
      } finally {
        db.close();
      }
    },
  };
}
