// The statements the SQLite store asks of accounts and keys, prepared once: finding a key's account,
// issuing a key (a new one, a rotation, the bound on live keys) and revoking one, each write in a
// transaction of its own so that its COMMIT reports a failure (docs/contract.md, Keys and registration).
import type Database from 'better-sqlite3';
import { MAX_LIVE_KEYS } from '../types.ts';
import type { SharedStatements } from './recovery-tables.ts';

export function keyStatements(db: Database.Database) {
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
  // In a transaction of its own: an UPDATE … RETURNING read with get() commits only when the
  // statement is reset, and a commit that fails there (no space) would go unreported: a 204 for a
  // revocation never saved. The transaction's COMMIT reports it.
  const revoke = db.transaction((now: number, digest: Buffer) => revokeByHash.get(now, digest));
  const countLive = db.prepare<[], number>('SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NULL').pluck();
  /** New key, rotation, and the bound, in one transaction (a 201 is durable). */
  const issue = db.transaction((email: string, digest: Buffer, now: number, rotate: Buffer | null) => {
    const id = writeAccount.get(email, now)!;
    const rotated = rotate ? liveKeyOf.get(rotate, id) : undefined;
    if (rotated === undefined && liveCount.get(id)! >= MAX_LIVE_KEYS) return { id, keyId: null, rotated };
    const keyId = insertKey.get(id, digest, now)!;
    if (rotated !== undefined) revokeById.run(now, rotated);
    return { id, keyId, rotated };
  });
  const allHashes = db.prepare<[], Buffer>('SELECT key_hash FROM api_keys WHERE revoked_at IS NULL').pluck();
  return { find, accountOf, insertKey, issue, revoke, countLive, allHashes };
}
