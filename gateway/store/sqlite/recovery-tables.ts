// Recovery tokens in the embedded store's file (docs/contract.md, Getting a key back): a token's
// SHA-256, its account and its times. Using one revokes every live key of the account and issues
// the new key in one transaction, so a 201 is durable and a token works once. An address no
// account holds gets a decoy row instead, of the same size and written the same way (a commit to
// disk), so that the work a request causes after its answer is the same for every address
// (docs/contract.md, Getting a key back: nothing learned from timing).
import type Database from 'better-sqlite3';
import { type Recovered, type TokenState, tokenState } from '../types.ts';

/** A used or expired token is kept this long after it expires, so it is answered as such, then deleted. */
const KEPT_AFTER_EXPIRY_MS = 86_400_000;

export function createRecoveryTables(db: Database.Database) {
  db.exec(`
    CREATE TABLE IF NOT EXISTS recovery_tokens (
      token_hash BLOB PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts (id),
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at INTEGER,
      superseded_at INTEGER
    );
    CREATE INDEX IF NOT EXISTS recovery_tokens_by_account ON recovery_tokens (account_id);
    CREATE TABLE IF NOT EXISTS recovery_decoys (
      token_hash BLOB PRIMARY KEY,
      subject INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS recovery_decoys_by_subject ON recovery_decoys (subject);
  `);
}

interface TokenRow {
  expires_at: number;
  used_at: number | null;
  superseded_at: number | null;
}

/** What registration and recovery both ask of the file, prepared once by sqlite-store.ts. */
export interface SharedStatements {
  /** An address's account id. */
  accountOf: Database.Statement<[email: string], number>;
  /** A key inserted for an account: its id. */
  insertKey: Database.Statement<[accountId: number, digest: Buffer, now: number], number>;
}

/** The statements, as two transactions; `issue` answers the new key's id and the revoked keys' ids. */
export function sqliteRecovery(db: Database.Database, { accountOf, insertKey }: SharedStatements) {
  const supersede = db.prepare<[number, number]>(
    'UPDATE recovery_tokens SET superseded_at = ? WHERE account_id = ? AND used_at IS NULL AND superseded_at IS NULL',
  );
  const forget = db.prepare<[number]>('DELETE FROM recovery_tokens WHERE expires_at < ?');
  const insert = db.prepare<[Buffer, number, number, number]>(
    'INSERT INTO recovery_tokens (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
  );
  // the decoy's statements mirror the three above, one for one: a delete, an update by index (which
  // finds nothing, as a first token's finds nothing), an insert into a table with the same indexes
  const supersedeDecoy = db.prepare<[number, number]>(
    'UPDATE recovery_decoys SET expires_at = ? WHERE subject = ? AND expires_at < 0',
  );
  const forgetDecoys = db.prepare<[number]>('DELETE FROM recovery_decoys WHERE expires_at < ?');
  const insertDecoy = db.prepare<[Buffer, number, number, number]>(
    'INSERT INTO recovery_decoys (token_hash, subject, created_at, expires_at) VALUES (?, ?, ?, ?)',
  );
  const lookup = db.prepare<[Buffer], TokenRow>(
    'SELECT expires_at, used_at, superseded_at FROM recovery_tokens WHERE token_hash = ?',
  );
  const token = db.prepare<[Buffer], TokenRow & { account_id: number; email: string }>(
    `SELECT t.account_id, t.expires_at, t.used_at, t.superseded_at, a.email FROM recovery_tokens t
     JOIN accounts a ON a.id = t.account_id WHERE t.token_hash = ?`,
  );
  const revokeAll = db
    .prepare<[number, number], number>(
      'UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL RETURNING id',
    )
    .pluck();
  const markUsed = db.prepare<[number, Buffer]>('UPDATE recovery_tokens SET used_at = ? WHERE token_hash = ?');

  const issue = db.transaction((email: string, digest: Buffer, now: number, expiresAt: number): boolean => {
    const id = accountOf.get(email);
    if (id === undefined) {
      forgetDecoys.run(now);
      supersedeDecoy.run(now, 0);
      insertDecoy.run(digest, 0, now, expiresAt);
      return false;
    }
    forget.run(now - KEPT_AFTER_EXPIRY_MS);
    supersede.run(now, id);
    insert.run(digest, id, now, expiresAt);
    return true;
  });

  /** What a link's token is at `now`, read only (GET /recover?code=…). */
  const state = (digest: Buffer, now: number): TokenState => tokenState(lookup.get(digest), now);

  const use = db.transaction(
    (digest: Buffer, keyDigest: Buffer, now: number): { outcome: Recovered; revokedIds: number[] } => {
      const t = token.get(digest);
      const found = tokenState(t, now);
      if (!t || found !== 'live') return { outcome: found as Exclude<TokenState, 'live'>, revokedIds: [] };
      const revokedIds = revokeAll.all(now, t.account_id);
      const keyId = insertKey.get(t.account_id, keyDigest, now)!;
      markUsed.run(now, digest);
      const account = { id: String(t.account_id), email: t.email, keyId: String(keyId) };
      return { outcome: { account, revoked: revokedIds.length }, revokedIds };
    },
  );
  return { issue, use, state };
}
