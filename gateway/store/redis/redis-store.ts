// REDIS_URL set: accounts, key hashes and hourly windows live in one Redis server, shared by every
// gateway instance (docs/contract.md, Storage and scale). Registration and counting are single
// server-side scripts (scripts.ts), so instances never race (no read-then-write). This file
// puts the store together; each concern has a file of its own:
// - client.ts: the connection, its fail-fast options, the scripts as commands;
// - outage.ts: whether Redis can be reached, and counting here while it cannot;
// - limiter.ts: the hourly windows;
// - verified-keys.ts: keys verified lately, kept in memory, forgotten when revoked;
// - key-migration.ts: the one-time move of keys stored before they had ids;
// - account-queries.ts: the operators' list, show and revoke (by e-mail, or by a key's value).
// Redis unreachable: nothing is queued (commands fail at once), a key verified within the last
// OUTAGE_GRACE_MS keeps working, anything else gets 503.

import { RECOVERY_MAILS_PER_HOUR } from '../../../build/site-format.ts';
import { digestHex, hashKey } from '../../keys.ts';
import { unavailable } from '../store-status.ts';
import { MAX_LIVE_KEYS, type Registered, type Store, type StoreObserver, timed } from '../types.ts';
import { redisAccountQueries } from './account-queries.ts';
import { connect, writeCoalescer } from './client.ts';
import { migrateKeysOnConnect } from './key-migration.ts';
import { parseKeyEntry, redisKeys } from './key-names.ts';
import { redisLimiter } from './limiter.ts';
import { trackOutage } from './outage.ts';
import { redisRecovery } from './recovery-scripts.ts';
import { verifiedKeys } from './verified-keys.ts';

export interface RedisStoreOptions {
  url: string;
  prefix: string;
  rateLimitPerHour: number;
  registerLimitPerHour: number;
  registerAttemptsPerHour: number;
  /** Recovery mails per e-mail address per hour (RECOVERY_MAILS_PER_HOUR unless a test says). */
  recoveryMailsPerHour?: number;
  clock: () => number;
  log: (fields: Record<string, unknown>) => void;
  /** How long a verified key is trusted without asking Redis again. */
  verifiedTtlMs?: number;
  /** During an outage, keys verified this recently keep working. */
  outageGraceMs?: number;
  commandTimeoutMs?: number;
  /** Told of each command's duration and failure (GET /metrics). */
  observe?: StoreObserver;
}

export function openRedisStore(opts: RedisStoreOptions): Store {
  const { prefix, clock } = opts;
  const k = redisKeys(prefix);
  const client = connect(opts.url, opts.commandTimeoutMs ?? 1_000);
  const beforeWrite = writeCoalescer(client);
  const subscriber = connect(opts.url, opts.commandTimeoutMs ?? 1_000);
  const ttl = opts.verifiedTtlMs ?? 1_000;
  const grace = opts.outageGraceMs ?? 10 * 60_000;

  const outage = trackOutage({ client, prefix, log: opts.log });
  migrateKeysOnConnect(client, prefix, opts.log);
  const verified = verifiedKeys(subscriber, prefix);
  const windows = { client, prefix, outage, beforeWrite, observe: opts.observe };

  const queries = redisAccountQueries(client, prefix);
  const guarded =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        return await fn(...a);
      } catch (err) {
        throw unavailable(err);
      }
    };

  const tokens = redisRecovery(client, prefix, (run) =>
    guarded(async () => {
      if (!outage.up) throw new Error('redis is not connected');
      return timed(opts.observe, 'recover', run);
    })(),
  );

  return {
    kind: 'redis',
    cachedAccount(key) {
      const cached = verified.get(key);
      return cached && clock() - cached.at < ttl ? cached.account : undefined;
    },
    async findByKey(key) {
      const now = clock();
      const cached = verified.get(key);
      if (cached && now - cached.at < ttl) return cached.account;
      const hex = cached?.hashHex ?? digestHex(hashKey(key));
      let value: string | null;
      try {
        if (!outage.up) throw new Error('redis is not connected');
        value = await timed(opts.observe, 'find_key', () => client.get(k.key(hex)));
      } catch (err) {
        if (cached && now - cached.at < grace) return cached.account;
        throw unavailable(err);
      }
      if (value === null) {
        verified.delete(key);
        return null;
      }
      const account = parseKeyEntry(value);
      verified.set(key, { account, at: now, hashHex: hex });
      return account;
    },
    register: guarded(
      async (email: string, digest: string, now: number, rotate: string | null): Promise<Registered> => {
        if (!outage.up) throw new Error('redis is not connected');
        const [id, keyId] = await timed(opts.observe, 'register', () =>
          client.registerKey(
            k.email(email),
            k.accountSeq,
            k.accounts,
            k.keySeq,
            email,
            digestHex(digest),
            now,
            prefix,
            MAX_LIVE_KEYS,
            rotate === null ? '' : digestHex(rotate),
          ),
        );
        if (keyId === '') return 'too_many_keys';
        // the rotated key is refused by this instance at once, not when its own announcement comes back
        if (rotate !== null) verified.forget(digestHex(rotate));
        return { id: String(id), email, keyId: String(keyId) };
      },
    ),
    revokeKey: guarded(async (digest: string, now: number) => {
      if (!outage.up) throw new Error('redis is not connected');
      const hex = digestHex(digest);
      const revoked = await timed(opts.observe, 'revoke', () => client.revokeKey(k.key(hex), now, prefix, hex));
      verified.forget(hex);
      return revoked === 1;
    }),
    liveKeys: guarded(() => timed(opts.observe, 'live_keys', () => client.liveKeys(k.liveKeys, k.accounts, prefix))),
    requests: redisLimiter(windows, 'req', opts.rateLimitPerHour, true),
    registrations: redisLimiter(windows, 'reg', opts.registerLimitPerHour, false),
    registrationAttempts: redisLimiter(windows, 'att', opts.registerAttemptsPerHour, false),
    recoveryMails: redisLimiter(windows, 'rml', opts.recoveryMailsPerHour ?? RECOVERY_MAILS_PER_HOUR, false),
    recoveryAddresses: redisLimiter(windows, 'rad', opts.registerLimitPerHour, false),
    recovery: {
      issue: (email, digest, now, expiresAt) => tokens.issue(email, digestHex(digest), now, expiresAt),
      use: (digest, keyDigest, now) => tokens.use(digestHex(digest), digestHex(keyDigest), now),
      state: (digest, now) => tokens.state(digestHex(digest), now),
    },
    list: guarded(queries.list),
    show: guarded(queries.show),
    revoke: guarded(queries.revoke),
    revokeByDigest: guarded(queries.revokeByDigest),
    status: outage.status,
    async close() {
      subscriber.disconnect();
      await client.quit().catch(() => client.disconnect());
    },
  };
}
