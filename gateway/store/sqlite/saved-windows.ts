// The embedded store's hourly windows: counted in this process's memory, saved as one snapshot blob a
// kind when something was counted, every few seconds and at shutdown, and restored at start, so a
// restart or deploy hands out no fresh quota. A key's usage (its request total and last use) is
// written in the same transaction, not per request: the windows count it, and it is marked saved once
// committed.
import type Database from 'better-sqlite3';
import { RECOVERY_MAILS_PER_HOUR } from '../../../build/site-format.ts';
import { createMemoryLimiter, type MemoryLimiter } from '../memory-limiter.ts';
import { type StoreObserver, timed } from '../types.ts';
import type { StoreAccess } from './store-access.ts';
import { decodeWindows, encodeWindows } from './window-snapshot.ts';

export interface SavedWindowsOptions {
  rateLimitPerHour: number;
  registerLimitPerHour: number;
  registerAttemptsPerHour: number;
  recoveryMailsPerHour?: number;
  maxAddresses?: number;
  clock: () => number;
  checkpointMs?: number;
  log?: (event: Record<string, unknown>) => void;
  observe?: StoreObserver;
  /** Told of each checkpoint's success or failure: the store degrades while saving fails. */
  access: StoreAccess;
}

/** The limiters, each under the kind its snapshot is saved as. */
function createWindows(opts: SavedWindowsOptions) {
  const perAddress = (limit: number) => createMemoryLimiter({ limit, maxSubjects: opts.maxAddresses ?? 100_000 });
  return {
    requests: createMemoryLimiter({ limit: opts.rateLimitPerHour }),
    registrations: perAddress(opts.registerLimitPerHour),
    registrationAttempts: perAddress(opts.registerAttemptsPerHour),
    recoveryMails: perAddress(opts.recoveryMailsPerHour ?? RECOVERY_MAILS_PER_HOUR),
    recoveryAddresses: perAddress(opts.registerLimitPerHour),
  };
}

export function savedWindows(db: Database.Database, opts: SavedWindowsOptions) {
  const readSnapshot = db.prepare<[string], Buffer>('SELECT data FROM window_snapshots WHERE kind = ?').pluck();
  const writeSnapshot = db.prepare<[string, number, Buffer]>(
    'INSERT INTO window_snapshots (kind, saved_at, data) VALUES (?, ?, ?) ' +
      'ON CONFLICT(kind) DO UPDATE SET saved_at = excluded.saved_at, data = excluded.data',
  );
  const addUsage = db.prepare<[number, number, number]>(
    'UPDATE api_keys SET request_count = request_count + ?, ' +
      'last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?',
  );
  const windows = createWindows(opts);
  const limiters: [string, MemoryLimiter][] = [
    ['requests', windows.requests],
    ['registrations', windows.registrations],
    ['registration_attempts', windows.registrationAttempts],
    ['recovery_mails', windows.recoveryMails],
    ['recovery_addresses', windows.recoveryAddresses],
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

  const saveAll = db.transaction((force: boolean) => {
    const now = opts.clock();
    const usage = windows.requests.unsaved();
    for (const [keyId, n, last] of usage.rows) addUsage.run(n, last, Number(keyId));
    for (const [kind, limiter] of limiters) {
      if (limiter.takeChanged() || force) writeSnapshot.run(kind, now, encodeWindows(limiter.live(now)));
    }
    return usage;
  });
  const save = (force: boolean) => timed(opts.observe, 'checkpoint', () => saveAll(force)).settle();
  const { status, freeBytes } = opts.access;
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

  return {
    windows,
    /** The last save, at shutdown: the checkpoints stop, and everything is written. */
    saveLast() {
      clearInterval(checkpoint);
      save(true);
    },
  };
}
