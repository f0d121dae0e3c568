// One gateway process per STATE_DIR with the embedded store (docs/operations.md, When something goes
// wrong, "One process per state directory"): each process counts the hourly windows and caches keys
// in its own memory, so a second one on the same file would hand out more than the limit. The lock is SQLite's own
// exclusive lock on a file of its own, gateway.lock: an fcntl lock that the operating system drops
// when the process dies, kill -9 included, so nothing stale is ever left to clean up by hand. The
// accounts CLI opens gateway.sqlite, never this file, so it keeps working beside a running gateway.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const LOCK_FILE = 'gateway.lock';

/** The state directory cannot be used by this process; the message says why and what to do. */
export class StateDirError extends Error {}

export interface StateLock {
  release(): void;
}

const sqliteCode = (err: unknown) => (err as { code?: unknown }).code;

/**
 * Takes the lock or throws StateDirError at once (no waiting: a second process must not sit
 * behind the first). The journal is kept in memory and nothing is ever written, so taking the
 * lock needs no free space: a gateway restarts on a full disk.
 */
export function lockStateDir(stateDir: string): StateLock {
  let db: Database.Database;
  try {
    mkdirSync(stateDir, { recursive: true });
    db = new Database(join(stateDir, LOCK_FILE));
  } catch (err) {
    throw new StateDirError(
      `STATE_DIR ${stateDir} cannot be opened (${(err as Error).message}); ` +
        'the gateway needs a directory it can write for its SQLite file.',
    );
  }
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if (sqliteCode(err) === 'SQLITE_BUSY')
      throw new StateDirError(
        `STATE_DIR ${stateDir} is held by another gateway process: one process per state directory keeps ` +
          'the hourly limits exact. To run several gateways, give them one Redis server (REDIS_URL) or ' +
          'each its own STATE_DIR.',
      );
    throw new StateDirError(`STATE_DIR ${stateDir} cannot be locked (${(err as Error).message}).`);
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      db.close();
    },
  };
}
