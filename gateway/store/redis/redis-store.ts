// REDIS_URL set: accounts, key hashes and hourly windows live in one Redis server, shared by every
// gateway instance (docs/contract.md, Storage and scale). Registration and counting are single
// server-side scripts (scripts.ts), so instances never race (no read-then-write). This file
// puts the store together; each concern has a file of its own:
// - client.ts: the connection, its fail-fast options, the scripts as commands;
// - outage.ts: counting here while Redis cannot be used; condition.ts: whether it can, and why not;
// - watch.ts: which server, whether it answers, may evict or lost its data (server-facts.ts, identity.ts);
// - sentinel-watch.ts: the sentinels' announcements and answers, so a switch is followed at once;
// - journal.ts: what this gateway issued lately, re-asserted on a new primary after a failover;
// - replication.ts: REDIS_MIN_REPLICAS, a new key held by that many replicas before its 201;
// - limiter.ts: the hourly windows;
// - verified-keys.ts: keys verified lately, kept in memory, forgotten when revoked;
// - key-lookup.ts: a key's account; key-issuing.ts: registering, revoking, a recovery's new key;
// - store-guard.ts: what every operation checks, and what its failure becomes;
// - key-migration.ts: the one-time move of keys stored before they had ids;
// - account-queries.ts: the operators' list, show and revoke (by e-mail, or by a key's value).
// Redis unreachable: nothing is queued (commands fail at once), a key verified within the last
// OUTAGE_GRACE_MS keeps working, anything else gets 503.

import { RECOVERY_MAILS_PER_HOUR } from '../../../build/site-format.ts';
import type { RedisTarget } from '../../config.ts';
import { digestHex } from '../../keys.ts';
import { type Store, type StoreObserver, timed } from '../types.ts';
import { redisAccountQueries } from './account-queries.ts';
import { connect, describeTarget, type Scripted, writeCoalescer } from './client.ts';
import { createJournal } from './journal.ts';
import { keyIssuing } from './key-issuing.ts';
import { keyLookup } from './key-lookup.ts';
import { migrateKeysOnConnect } from './key-migration.ts';
import { redisKeys } from './key-names.ts';
import { keyTrust } from './key-trust.ts';
import { redisLimiter } from './limiter.ts';
import { type RedisOutage, trackOutage } from './outage.ts';
import { redisRecovery } from './recovery-scripts.ts';
import { issuing } from './replication.ts';
import { watchSentinels } from './sentinel-watch.ts';
import { storeGuard } from './store-guard.ts';
import { verifiedKeys } from './verified-keys.ts';
import { watchRedis } from './watch.ts';
import { windowBatcher } from './window-batch.ts';

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
/** The hourly windows, each a counter kind in Redis. */
function redisWindows(opts: RedisStoreOptions, client: Scripted, outage: RedisOutage) {
  const ask = windowBatcher(client);
  const windows = {
    client,
    prefix: opts.prefix,
    outage,
    ask,
    beforeWrite: writeCoalescer(client),
    observe: opts.observe,
  };
  return {
    requests: redisLimiter(windows, 'req', opts.rateLimitPerHour, true),
    registrations: redisLimiter(windows, 'reg', opts.registerLimitPerHour, false),
    registrationAttempts: redisLimiter(windows, 'att', opts.registerAttemptsPerHour, false),
    recoveryMails: redisLimiter(windows, 'rml', opts.recoveryMailsPerHour ?? RECOVERY_MAILS_PER_HOUR, false),
    recoveryAddresses: redisLimiter(windows, 'rad', opts.registerLimitPerHour, false),
  };
}

/** Through Sentinel: a switch they announce makes every connection ask them again for the primary at once. */
function followSentinels(opts: RedisStoreOptions, connections: Scripted[]) {
  if (opts.target.kind !== 'sentinel') return null;
  const { log } = opts;
  return watchSentinels({
    target: opts.target,
    log,
    onSwitch: (named, previous) => {
      log({ event: 'store_switch', store: 'redis', primary: named, previous });
      for (const c of connections) c.disconnect(true);
    },
  });
}

export async function openRedisStore(opts: RedisStoreOptions): Promise<Store> {
  const { prefix, clock, log, observe } = opts;
  const timeout = opts.commandTimeoutMs ?? 1_000;
  const client = connect(opts.target, timeout);
  const subscriber = connect(opts.target, timeout);
  const outage = trackOutage({ client, prefix, clock, log });
  const { condition } = outage;
  const minReplicas = opts.minReplicas ?? 0;
  const open = (ms: number) => connect(opts.target, ms);
  const onHeld = (short: string | null) => {
    if (short === condition.notHeld) return;
    log({ event: 'store_replicas_held', store: 'redis', reason: short });
    condition.notHeld = short;
    condition.refresh();
  };
  const issuer = issuing({ minReplicas, client, open, prefix, log, onHeld });
  const sentinels = followSentinels(opts, [client, subscriber, ...issuer.connections()]);
  if (sentinels) condition.sentinelProblem = sentinels.problem;
  const journal = createJournal(prefix);
  const windows = outage.seenWindows;
  const commandTimeoutMs = timeout;
  const checkReplicas = issuer.check;
  const watch = watchRedis({
    ...{ client, prefix, condition, sentinels, journal, windows, minReplicas, checkReplicas },
    ...{ commandTimeoutMs, clock, log },
  });
  migrateKeysOnConnect(client, prefix, log);
  const verified = verifiedKeys(subscriber, prefix);
  const guard = storeGuard(outage);
  const { guarded } = guard;
  const ttlMs = opts.verifiedTtlMs ?? 1_000;
  const graceMs = opts.outageGraceMs ?? 10 * 60_000;
  const trust = keyTrust(subscriber, clock, () => outage.up && condition.lost === null);
  const trustedLonger = trust.holds;
  const lookup = keyLookup({ client, prefix, clock, outage, verified, ttlMs, trustedLonger, graceMs, observe });
  const keys = keyIssuing({
    ...{ client, prefix, outage, guard, issuer, watch, journal, sentinels, verified },
    ...{ clock, observe },
  });
  const queries = redisAccountQueries(client, prefix);
  // a token kept or looked at: on the store's own connection, never behind a WAIT (replication.ts)
  const tokens = redisRecovery(client, prefix, (run) =>
    guarded(async () => {
      guard.ready(false);
      return timed(observe, 'recover', run);
    })(),
  );
  const closeAll = async () => {
    watch.close();
    sentinels?.close();
    trust.close();
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
  log({ event: 'store_opened', store: 'redis', target: describeTarget(opts.target) });

  const k = redisKeys(prefix);
  return {
    kind: 'redis',
    ...lookup,
    register: keys.register,
    revokeKey: keys.revokeKey,
    liveKeys: guarded(() => timed(observe, 'live_keys', () => client.liveKeys(k.liveKeys, k.accounts, prefix))),
    ...redisWindows(opts, client, outage),
    recovery: {
      issue: (email, digest, now, expiresAt) => tokens.issue(email, digestHex(digest), now, expiresAt),
      use: keys.recover,
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
