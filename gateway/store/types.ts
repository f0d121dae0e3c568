// What the gateway needs of a store, the same for SQLite and Redis: the gateway does not know
// which one it has. Methods may answer at once or through a promise.
import type { Limiter } from '../rate-limit.ts';

export interface Account {
  id: string;
  email: string;
}

export interface AccountRow extends Account {
  created_at: number;
  key_issued_at: number | null;
  revoked_at: number | null;
}

export interface Store {
  readonly kind: 'sqlite' | 'redis';
  /**
   * The live account of a well-formed key, or null (unknown, replaced or revoked). The gateway
   * asks cachedAccount first and this only when that missed. Stores keep
   * recently verified keys in process memory so the hot path neither hashes nor queries; what
   * they persist is only the SHA-256 (hashKey).
   */
  findByKey(key: string): Account | null | Promise<Account | null>;
  /**
   * The account of a key this process verified recently and may still trust, from memory only
   * (no hashing, no I/O): lets the gateway skip the checksum for keys it already knows.
   */
  cachedAccount(key: string): Account | undefined;
  /**
   * Creates the account, or replaces its key: the old key stops working in the same atomic step.
   * `digest` is hashKey(key). Resolves only once the new key is durable (decisions.md §5).
   */
  register(email: string, digest: string, now: number): Account | Promise<Account>;
  /** Per-account hourly request windows. */
  readonly requests: Limiter;
  /** Per-client-address hourly registration windows. */
  readonly registrations: Limiter;
  /** Operators' view (scripts/accounts.ts). */
  list(): AccountRow[] | Promise<AccountRow[]>;
  show(email: string): AccountRow | null | Promise<AccountRow | null>;
  revoke(email: string, now: number): boolean | Promise<boolean>;
  /** "ok", or why the store cannot be used right now (shown in /health). */
  health(): 'ok' | 'unavailable';
  /** Saves what must survive a restart (the hourly windows) and closes. */
  close(): Promise<void>;
}

export class StoreUnavailableError extends Error {}
