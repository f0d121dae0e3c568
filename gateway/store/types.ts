// What the gateway needs of a store, the same for SQLite and Redis: the gateway does not know
// which one it has. Methods may answer at once or through a promise.
import { performance } from 'node:perf_hooks';
import { LIVE_KEYS_PER_ACCOUNT } from '../../build/site-format.ts';
import type { Limiter, WindowHolder } from '../rate-limit.ts';
import type { StoreStatus } from './store-status.ts';

export { NotReplicatedError, StoreLostError, StoreUnavailableError, StoreWriteError } from './store-status.ts';

/** docs/contract.md, Keys and registration: an account holds at most this many live keys. */
export const MAX_LIVE_KEYS = LIVE_KEYS_PER_ACCOUNT;

/**
 * A live key's account: the account it belongs to and the key's own id (its quota's subject). The
 * store's cache of verified keys keeps one per key, which the embedded store's limiter uses to hold
 * the key's window (WindowHolder, rate-limit.ts).
 */
export interface Account extends WindowHolder {
  id: string;
  email: string;
  keyId: string;
}

export interface KeyRow {
  id: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** Requests counted against the key since it was issued (saved with the windows). */
  requests: number;
}

export interface AccountRow {
  id: string;
  email: string;
  created_at: number;
  keys: KeyRow[];
}

/** Registration's answers: the new key's account, or why none was issued. */
export type Registered = Account | 'too_many_keys';

/**
 * A recovery token used (docs/contract.md, Getting a key back): the account with its one new key
 * and how many live keys were revoked, or why nothing changed.
 */
export type Recovered = { account: Account; revoked: number } | 'unknown' | 'used' | 'expired' | 'superseded';

/** A token looked at, not used: whether its link still works, or why not (GET /recover?code=…). */
export type TokenState = 'live' | Exclude<Recovered, object>;

/** A token's state from its stored times (none: unknown); the one rule for both stores. */
export function tokenState(
  t: { expires_at: number; used_at: number | null; superseded_at: number | null } | undefined,
  now: number,
): TokenState {
  if (!t) return 'unknown';
  if (t.used_at !== null) return 'used';
  if (t.superseded_at !== null) return 'superseded';
  return now >= t.expires_at ? 'expired' : 'live';
}

/** Recovery tokens, kept where keys are, so a link mailed by one instance works on any. */
interface RecoveryTokens {
  /**
   * Keeps a token (`digest` is hashKey(token)) for the account of `email`, valid until `expiresAt`,
   * and supersedes the account's earlier ones; false when no account holds the address, and a
   * decoy of the same size written the same way instead, which no link can use (the same work
   * for every address: docs/contract.md, Getting a key back).
   */
  issue(email: string, digest: string, now: number, expiresAt: number): boolean | Promise<boolean>;
  /**
   * Uses a token: every live key of its account is revoked and the key `keyDigest` issued, in one
   * atomic step that is durable when it resolves; a token unknown, used, expired or superseded
   * changes nothing.
   */
  use(digest: string, keyDigest: string, now: number): Recovered | Promise<Recovered>;
  /** What a token is at `now`, changing nothing: one read by its digest. */
  state(digest: string, now: number): TokenState | Promise<TokenState>;
}

/**
 * A key found by its value (npm run accounts -- revoke-leaked): its account's address, its id, and
 * when it was revoked: `now` when this call revoked it, earlier when it already was.
 */
export interface FoundKey {
  email: string;
  keyId: string;
  revokedAt: number;
  revokedNow: boolean;
}

/** The operators' view (scripts/accounts.ts). */
export interface AccountQueries {
  list(): AccountRow[] | Promise<AccountRow[]>;
  show(email: string): AccountRow | null | Promise<AccountRow | null>;
  /** Revokes one key of the account (by key id), or all its live keys (null); how many were live. */
  revoke(email: string, keyId: string | null, now: number): number | Promise<number>;
  /** Revokes the key whose SHA-256 is `digest` (hashKey), live or not; null when none was ever issued. */
  revokeByDigest(digest: string, now: number): FoundKey | null | Promise<FoundKey | null>;
}

export interface Store extends AccountQueries {
  readonly kind: 'sqlite' | 'redis';
  /**
   * The live account of a well-formed key, or null (unknown or revoked). The gateway asks
   * cachedAccount first and this only when that missed. Stores keep recently verified keys in
   * process memory so the hot path neither hashes nor queries; what they persist is only the
   * SHA-256 (hashKey).
   */
  findByKey(key: string): Account | null | Promise<Account | null>;
  /**
   * The account of a key this process verified recently and may still trust, from memory only
   * (no hashing, no I/O): lets the gateway skip the checksum for keys it already knows.
   */
  cachedAccount(key: string): Account | undefined;
  /**
   * Issues a key (`digest` is hashKey(key)) to the e-mail's account, creating the account on first
   * use. Revokes nothing (docs/contract.md, Keys and registration), except `rotate`: the digest of a key the request
   * presented; when it is a live key of this same account it is revoked in the same atomic step.
   * Past MAX_LIVE_KEYS live keys, and not a rotation: 'too_many_keys'. Resolves only once the new
   * key is durable (docs/contract.md, Storage and scale).
   */
  register(email: string, digest: string, now: number, rotate: string | null): Registered | Promise<Registered>;
  /** Revokes a live key by its digest (DELETE /api/keys/current); false when it was not live. */
  revokeKey(digest: string, now: number): boolean | Promise<boolean>;
  /** Per-key hourly request windows (docs/contract.md, Authentication and limits: a key's quota is its own). */
  readonly requests: Limiter;
  /** Per-client-address hourly windows of issued keys (REGISTER_LIMIT_PER_HOUR). */
  readonly registrations: Limiter;
  /** Per-client-address hourly windows of every registration attempt, refused ones included. */
  readonly registrationAttempts: Limiter;
  readonly recovery: RecoveryTokens;
  /** Per-e-mail-address hourly windows of recovery requests (RECOVERY_MAILS_PER_HOUR). */
  readonly recoveryMails: Limiter;
  /** Per-client-address hourly windows of recovery requests (REGISTER_LIMIT_PER_HOUR). */
  readonly recoveryAddresses: Limiter;
  /** How many keys are live (GET /metrics). */
  liveKeys(): number | Promise<number>;
  /** Whether the store can be used right now, and why not (/health, GET /metrics). */
  readonly status: StoreStatus;
  /** Saves what must survive a restart (the hourly windows, keys' last use) and closes. */
  close(): Promise<void>;
}

/** The stores' operation names, as GET /metrics labels them. */
export const STORE_OPERATIONS = [
  'find_key',
  'count',
  'register',
  'revoke',
  'recover',
  'checkpoint',
  'live_keys',
] as const;
export type StoreOperation = (typeof STORE_OPERATIONS)[number];

/** Told of each store operation: how long it took and whether it failed (gateway/metrics.ts). */
export type StoreObserver = (operation: StoreOperation, seconds: number, failed: boolean) => void;

/**
 * Runs a store operation and tells the observer its duration and outcome; a promise is timed to
 * its settling. Without an observer, the operation alone.
 */
export function timed<T>(observe: StoreObserver | undefined, operation: StoreOperation, run: () => T): T {
  if (!observe) return run();
  const started = performance.now();
  const done = (failed: boolean) => observe(operation, (performance.now() - started) / 1000, failed);
  let result: T;
  try {
    result = run();
  } catch (err) {
    done(true);
    throw err;
  }
  if (result instanceof Promise)
    return result.then(
      (v) => {
        done(false);
        return v;
      },
      (err: unknown) => {
        done(true);
        throw err;
      },
    ) as T;
  done(false);
  return result;
}
