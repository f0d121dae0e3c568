// The embedded store's file: its tables, the migration from one key per account to keys of their
// own, and the operators' queries (scripts/accounts.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { digestBytes } from '../../keys.ts';
import type { AccountQueries, AccountRow, FoundKey, KeyRow } from '../types.ts';
import { createRecoveryTables } from './recovery-tables.ts';

export const DB_FILE = 'gateway.sqlite';

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
      created_at INTEGER NOT NULL,
      registrations INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS api_keys (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts (id),
      key_hash BLOB NOT NULL UNIQUE,
      created_at INTEGER NOT NULL,
      last_used_at INTEGER,
      revoked_at INTEGER,
      request_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS api_keys_by_account ON api_keys (account_id);
    CREATE TABLE IF NOT EXISTS window_snapshots (
      kind TEXT PRIMARY KEY,
      saved_at INTEGER NOT NULL,
      data BLOB NOT NULL
    );
  `);
  migrateOneKeyPerAccount(db);
  // A file from before keys' usage was kept: its keys start at 0.
  addColumn(db, 'api_keys', 'request_count', 'INTEGER NOT NULL DEFAULT 0');
  // A file from before registrations were counted per account (each one, refused or not, writes
  // its account's row: sqlite-store.ts): counted from the next one.
  addColumn(db, 'accounts', 'registrations', 'INTEGER NOT NULL DEFAULT 0');
  createRecoveryTables(db);
  return db;
}

/** A file from before `column` existed gains it. */
function addColumn(db: Database.Database, table: string, column: string, declaration: string) {
  const columns = db.prepare<[], { name: string }>(`PRAGMA table_info(${table})`).all();
  if (!columns.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${declaration}`);
}

/**
 * A file from before keys had their own table held each account's one key in accounts.key_hash,
 * and counted the hour per account. Each such key moves to api_keys under the account's own id,
 * so the hourly windows saved under that id go on counting for it (no fresh quota), and new keys
 * are numbered past every account id. Nothing is lost; running it again changes nothing.
 */
function migrateOneKeyPerAccount(db: Database.Database) {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(accounts)').all();
  if (!columns.some((c) => c.name === 'key_hash')) return;
  db.transaction(() => {
    db.exec(`
      INSERT INTO api_keys (id, account_id, key_hash, created_at, revoked_at)
        SELECT id, id, key_hash, COALESCE(key_issued_at, created_at), NULL FROM accounts
        WHERE key_hash IS NOT NULL AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.key_hash = accounts.key_hash);
      UPDATE accounts SET key_hash = NULL WHERE key_hash IS NOT NULL;
    `);
    const top = db.prepare<[], number>('SELECT COALESCE(MAX(id), 0) FROM accounts').pluck().get()!;
    const seq = db.prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'api_keys'").pluck().get() ?? 0;
    db.prepare("DELETE FROM sqlite_sequence WHERE name = 'api_keys'").run();
    db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('api_keys', ?)").run(Math.max(top, seq));
  })();
}

export function accountQueries(db: Database.Database): AccountQueries {
  const accounts = db.prepare<[], Omit<AccountRow, 'keys'>>(
    'SELECT CAST(id AS TEXT) AS id, email, created_at FROM accounts ORDER BY id',
  );
  const account = db.prepare<[string], Omit<AccountRow, 'keys'>>(
    'SELECT CAST(id AS TEXT) AS id, email, created_at FROM accounts WHERE email = ?',
  );
  const keysOf = db.prepare<[string], KeyRow>(
    `SELECT CAST(id AS TEXT) AS id, created_at, last_used_at, revoked_at, request_count AS requests FROM api_keys
     WHERE account_id = CAST(? AS INTEGER) ORDER BY id`,
  );
  const revokeOne = db.prepare<[number, string, string]>(
    `UPDATE api_keys SET revoked_at = ? WHERE revoked_at IS NULL AND id = CAST(? AS INTEGER)
     AND account_id = (SELECT id FROM accounts WHERE email = ?)`,
  );
  const revokeAll = db.prepare<[number, string]>(
    `UPDATE api_keys SET revoked_at = ? WHERE revoked_at IS NULL
     AND account_id = (SELECT id FROM accounts WHERE email = ?)`,
  );
  const byDigest = db.prepare<[Buffer], { keyId: string; email: string; revokedAt: number | null }>(
    `SELECT CAST(k.id AS TEXT) AS keyId, a.email, k.revoked_at AS revokedAt FROM api_keys k
     JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
  );
  const revokeId = db.prepare<[number, string]>(
    'UPDATE api_keys SET revoked_at = ? WHERE revoked_at IS NULL AND id = CAST(? AS INTEGER)',
  );
  // one transaction: a gateway revoking the same key at the same moment leaves one revocation time
  const revokeByDigest = db.transaction((digest: string, now: number): FoundKey | null => {
    const row = byDigest.get(digestBytes(digest));
    if (!row) return null;
    if (row.revokedAt !== null)
      return { email: row.email, keyId: row.keyId, revokedAt: row.revokedAt, revokedNow: false };
    revokeId.run(now, row.keyId);
    return { email: row.email, keyId: row.keyId, revokedAt: now, revokedNow: true };
  });
  const withKeys = (a: Omit<AccountRow, 'keys'>): AccountRow => ({ ...a, keys: keysOf.all(a.id) });
  return {
    list: () => accounts.all().map(withKeys),
    show: (email) => {
      const a = account.get(email);
      return a ? withKeys(a) : null;
    },
    revoke: (email, keyId, now) =>
      keyId === null ? revokeAll.run(now, email).changes : revokeOne.run(now, keyId, email).changes,
    revokeByDigest: (digest, now) => revokeByDigest(digest, now),
  };
}
