// REDIS_URL set: accounts, key hashes and hourly windows live in one Redis server, shared by every
// gateway instance (docs/contract.md, Storage and scale). Registration and counting are single
// server-side scripts (scripts.ts), so instances never race (no read-then-write). This file
// puts the store together; each concern has a file of its own:
// - client.ts: the connection, its fail-fast options, the scripts as commands;
// - outage.ts: counting here while Redis cannot be used; condition.ts: whether it can, and why not;
// - watch.ts: which server, whether it may evict or lost its data (server-facts.ts, identity.ts);
// - replication.ts: REDIS_MIN_REPLICAS, a new key held by that many replicas before its 201;
// - limiter.ts: the hourly windows;
// - verified-keys.ts: keys verified lately, kept in memory, forgotten when revoked;
// - key-migration.ts: the one-time move of keys stored before they had ids;
// - account-queries.ts: the operators' list, show and revoke (by e-mail, or by a key's value).
// Redis unreachable: nothing is queued (commands fail at once), a key verified within the last
// OUTAGE_GRACE_MS keeps working, anything else gets 503.

import { RECOVERY_MAILS_PER_HOUR } from '../../../build/site-format.ts';
import type { RedisTarget } from '../../config.ts';
import { digestHex, hashKey } from '../../keys.ts';
import { StoreLostError, StoreUnavailableError, StoreWriteError, unavailable } from '../store-status.ts';
import { MAX_LIVE_KEYS, type Recovered, type Registered, type Store, type StoreObserver, timed } from '../types.ts';
import { redisAccountQueries } from './account-queries.ts';
import { connect, describeTarget, writeCoalescer } from './client.ts';
import { isWriteRefusal } from './condition.ts';
import { migrateKeysOnConnect } from './key-migration.ts';
import { parseKeyEntry, redisKeys } from './key-names.ts';
import { redisLimiter } from './limiter.ts';
import { trackOutage } from './outage.ts';
import { redisRecovery, useToken } from './recovery-scripts.ts';
import { issuing } from './replication.ts';
import { verifiedKeys } from './verified-keys.ts';
import { watchRedis } from './watch.ts';

/** Why a Redis store is not opened at all (an evicting server): start-up says it and stops. */
class RedisRefusedError extends Error {
  override name = 'RedisRefusedError';
}

/** How long start-up waits for Redis's first answer before it starts without one. */
const FIRST_LOOK_MS = 3_000;

export interface RedisStoreOptions {
  target: RedisTarget;
  prefix: string;
  /** REDIS_MIN_REPLICAS (replication.ts). */
  minReplicas?: number;
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

/**
 * Opens the store and waits (FIRST_LOOK_MS at most) for the first look at the server: one that may
 * evict keys is refused before any key is written (RedisRefusedError); one that does not answer
 * yet is waited for by the running gateway, which answers 503 meanwhile.
 */
export async function openRedisStore(opts: RedisStoreOptions): Promise<Store> {
  const { prefix, clock } = opts;
  const k = redisKeys(prefix);
  const timeout = opts.commandTimeoutMs ?? 1_000;
  const client = connect(opts.target, timeout);
  const beforeWrite = writeCoalescer(client);
  const subscriber = connect(opts.target, timeout);
  const ttl = opts.verifiedTtlMs ?? 1_000;
  const grace = opts.outageGraceMs ?? 10 * 60_000;

  const outage = trackOutage({ client, prefix, clock, log: opts.log });
  const { condition } = outage;
  const watch = watchRedis({
    client,
    prefix,
    condition,
    sentinel: opts.target.kind === 'sentinel',
    clock,
    log: opts.log,
  });
  const issuer = issuing({
    minReplicas: opts.minReplicas ?? 0,
    client,
    open: (ms) => connect(opts.target, ms),
    prefix,
    log: opts.log,
  });
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
        if (err instanceof StoreUnavailableError) throw err;
        if (isWriteRefusal(err)) condition.writeRefused(err as Error, 'write');
        throw unavailable(err);
      }
    };
  /** Throws unless Redis can be used and holds its data; to issue a key, also not evicting. */
  const ready = (toIssue: boolean) => {
    if (!outage.up) throw new Error('redis is not connected');
    if (condition.lost !== null) throw new StoreLostError(condition.lost);
    if (toIssue && condition.evicting !== null) throw new StoreWriteError('read_only', condition.evicting);
  };

  // a token kept or looked at: on the store's own connection, never behind a WAIT (replication.ts)
  const tokens = redisRecovery(client, prefix, (run) =>
    guarded(async () => {
      ready(false);
      return timed(opts.observe, 'recover', run);
    })(),
  );
  const closeAll = async () => {
    watch.close();
    issuer.close();
    subscriber.disconnect();
    await client.quit().catch(() => client.disconnect());
  };

  // a Redis that refuses the connection is not waited for: nothing is issued until a look at it
  // (condition.ts, checked), so an evicting one is still refused before its first key
  await Promise.race([watch.first(FIRST_LOOK_MS), new Promise((resolve) => client.once('error', resolve))]);
  if (condition.evicting !== null) {
    await closeAll();
    throw new RedisRefusedError(`${condition.evicting}.`);
  }
  opts.log({ event: 'store_opened', store: 'redis', target: describeTarget(opts.target) });

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
        // the key may be one the lost data held: not "mistyped" until the loss is settled
        if (condition.lost !== null) throw new StoreLostError(condition.lost);
        return null;
      }
      const account = parseKeyEntry(value);
      verified.set(key, { account, at: now, hashHex: hex });
      return account;
    },
    register: guarded(
      async (email: string, digest: string, now: number, rotate: string | null): Promise<Registered> => {
        ready(true);
        const hashHex = digestHex(digest);
        const [id, keyId, rotated] = await timed(opts.observe, 'register', () =>
          issuer.issue(
            (c) =>
              c.registerKey(
                k.email(email),
                k.accountSeq,
                k.accounts,
                k.keySeq,
                email,
                hashHex,
                now,
                prefix,
                MAX_LIVE_KEYS,
                rotate === null ? '' : digestHex(rotate),
              ),
            ([, issued, old]) =>
              issued === '' ? null : { keyId: issued, hashHex, revokedKeyIds: old ? [old] : [], tokenHex: '' },
            now,
          ),
        );
        if (keyId === '') return 'too_many_keys';
        // the rotated key is refused by this instance at once, not when its own announcement comes back
        if (rotated) verified.forget(digestHex(rotate!));
        watch.issued(String(id), String(keyId));
        return { id: String(id), email, keyId: String(keyId) };
      },
    ),
    revokeKey: guarded(async (digest: string, now: number) => {
      if (!outage.up) throw new Error('redis is not connected');
      const hex = digestHex(digest);
      const revoked = await timed(opts.observe, 'revoke', () => client.revokeKey(k.key(hex), now, prefix, hex));
      verified.forget(hex);
      if (revoked === 0 && condition.lost !== null) throw new StoreLostError(condition.lost);
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
      use: guarded(async (digest: string, keyDigest: string, now: number): Promise<Recovered> => {
        ready(true);
        const [tokenHex, hashHex] = [digestHex(digest), digestHex(keyDigest)];
        const { recovered } = await timed(opts.observe, 'recover', () =>
          issuer.issue(
            (c) => useToken(c, prefix, tokenHex, hashHex, now),
            ({ recovered: r, revokedKeyIds }) =>
              typeof r === 'object' ? { keyId: r.account.keyId, hashHex, revokedKeyIds, tokenHex } : null,
            now,
          ),
        );
        if (typeof recovered === 'object') watch.issued(recovered.account.id, recovered.account.keyId);
        return recovered;
      }),
      state: (digest, now) => tokens.state(digestHex(digest), now),
    },
    list: guarded(queries.list),
    show: guarded(queries.show),
    revoke: guarded(queries.revoke),
    revokeByDigest: guarded(queries.revokeByDigest),
    status: outage.status,
    close: closeAll,
  };
}
