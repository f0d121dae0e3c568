// The embedded default: one SQLite file (WAL, synchronous=FULL) under STATE_DIR holds accounts and
// key hashes; the hourly windows live in this process's memory, are saved every few seconds (one
// snapshot blob per kind) and at shutdown, and are restored at start, so a restart or deploy hands
// out no fresh quota.

import { digestBytes, hashKey } from '../../keys.ts';
import { type Account, type Registered, type Store, type StoreObserver, timed } from '../types.ts';
import { issuedKeys } from './issued-keys.ts';
import { keyStatements } from './key-statements.ts';
import { sqliteRecovery } from './recovery-tables.ts';
import { savedWindows } from './saved-windows.ts';
import { accountQueries, openDatabase } from './schema.ts';
import { storeAccess } from './store-access.ts';

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
  const keys = keyStatements(db);
  const access = storeAccess(opts);
  const { read, write } = access;
  const { windows, saveLast } = savedWindows(db, { ...opts, access });
  const issued = issuedKeys(db, { ...opts, allHashes: keys.allHashes });
  const { verified } = issued;
  const tokens = sqliteRecovery(db, keys);
  return {
    kind: 'sqlite',
    cachedAccount: (key) => verified.get(key),
    /** Called after cachedAccount missed (app.ts), so it does not look in the cache again. */
    findByKey(key): Account | null {
      const digest = hashKey(key);
      if (!issued.mightHold(digest)) return null;
      const row = read(() => timed(opts.observe, 'find_key', () => keys.find.get(digestBytes(digest))));
      if (!row) return null;
      // its window slot from the start: every cached account keeps one shape (the limiter fills it)
      const account: Account = { id: String(row.id), email: row.email, keyId: String(row.keyId), window: undefined };
      verified.set(key, account);
      return account;
    },
    register(email, digest, now, rotate): Registered {
      const r = write('register', () =>
        keys.issue(email, digestBytes(digest), now, rotate === null ? null : digestBytes(rotate)),
      );
      if (r.keyId === null) return 'too_many_keys';
      issued.add(digest);
      if (r.rotated !== undefined) verified.dropKey(String(r.rotated));
      return { id: String(r.id), email, keyId: String(r.keyId) };
    },
    revokeKey(digest, now) {
      const keyId = write('revoke', () => keys.revoke(now, digestBytes(digest)));
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
    ...windows,
    ...accountQueries(db),
    liveKeys: () => read(() => timed(opts.observe, 'live_keys', () => keys.countLive.get()!)),
    status: access.status,
    async close() {
      if (access.closed) return;
      access.close();
      issued.stop();
      try {
        saveLast();
      } catch (err) {
        // No space at shutdown: the windows since the last checkpoint cannot be kept; say how much.
        const lost = windows.requests.unsaved().rows.reduce((sum, [, n]) => sum + n, 0);
        opts.log?.({ event: 'windows_not_saved', requests: lost, error: (err as Error).message });
      } finally {
        db.close();
      }
    },
  };
}
