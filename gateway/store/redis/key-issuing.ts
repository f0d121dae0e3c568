// The Redis store's writes of keys: registering (a new key, or a rotation), revoking one, and a
// recovery link's new key. Each is one server-side script (scripts.ts) with ids this gateway draws
// at random, so no two primaries can give one id twice; each is held by REDIS_MIN_REPLICAS replicas
// before its answer (replication.ts) and kept in the journal (journal.ts) to be re-asserted on a new
// primary. Through Sentinel, a key is answered 201 only when the server it was written to is still
// the one the sentinels name (docs/operations.md, Redis in production, "A failover is not a loss").
// A key this instance replaces leaves its memory at once, and every key answered 201 is a mark the
// watch holds the data to (watch.ts).
import { randomBytes } from 'node:crypto';
import { digestHex } from '../../keys.ts';
import { StoreLostError, StoreUnavailableError } from '../store-status.ts';
import { MAX_LIVE_KEYS, type Recovered, type Registered, type StoreObserver, timed } from '../types.ts';
import type { Scripted } from './client.ts';
import type { IssuedKey, Journal } from './journal.ts';
import { redisKeys } from './key-names.ts';
import type { RedisOutage } from './outage.ts';
import { useToken } from './recovery-scripts.ts';
import type { Issuing } from './replication.ts';
import type { SentinelWatch } from './sentinel-watch.ts';
import type { StoreGuard } from './store-guard.ts';
import type { verifiedKeys } from './verified-keys.ts';
import type { RedisWatch } from './watch.ts';

/** An id no other gateway or primary draws: 64 random bits. */
const newId = () => randomBytes(8).toString('hex');

/** How long a key written just before a switch waits for the gateway to follow it before a 503. */
const FOLLOW_MS = 3_000;

export interface KeyIssuingOptions {
  client: Scripted;
  prefix: string;
  outage: RedisOutage;
  guard: StoreGuard;
  issuer: Issuing;
  watch: RedisWatch;
  journal: Journal;
  sentinels: SentinelWatch | null;
  verified: ReturnType<typeof verifiedKeys>;
  clock: () => number;
  observe?: StoreObserver;
}

export function keyIssuing(opts: KeyIssuingOptions) {
  const { client, prefix, issuer, watch, verified, guard } = opts;
  const { condition } = opts.outage;
  const k = redisKeys(prefix);
  const registerScript = (c: Scripted, email: string, hashHex: string, now: number, rotate: string | null) =>
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
      newId(),
      newId(),
    );

  /**
   * A key written and held: journaled, then, through Sentinel, answered only if the server it went
   * to is still the one they name, or once this gateway has followed the switch and re-asserted it.
   */
  async function settle(key: IssuedKey, where: string | null) {
    opts.journal.issued(opts.clock(), key);
    watch.issued(key.accounts, key.keys);
    const theirs = opts.sentinels === null ? null : await opts.sentinels.ask();
    if (theirs === null || where === null || theirs === where) return;
    for (const t0 = Date.now(); Date.now() - t0 < FOLLOW_MS; await new Promise((r) => setTimeout(r, 25)))
      if (opts.outage.up && condition.status.primary === theirs) return; // followed: the journal re-asserted it
    opts.journal.withdrawn(key.hashHex);
    throw new StoreUnavailableError(`the key was written to ${where}, which the sentinels no longer name`);
  }
  return {
    register: guard.guarded(
      async (email: string, digest: string, now: number, rotate: string | null): Promise<Registered> => {
        guard.ready(true);
        const hashHex = digestHex(digest);
        const [[id, keyId, rotated, accounts, keys], where] = await timed(opts.observe, 'register', () =>
          issuer.issue(
            (c) => registerScript(c, email, hashHex, now, rotate),
            ([, issued, old]) =>
              issued === '' ? null : { keyId: issued, hashHex, revokedKeyIds: old ? [old] : [], tokenHex: '' },
            now,
          ),
        );
        if (keyId === '') return 'too_many_keys';
        // the rotated key is refused by this instance at once, not when its own announcement comes back
        if (rotated && rotate !== null) verified.forget(digestHex(rotate));
        const revokedKeyIds = rotated ? [rotated] : [];
        const counts = { accounts: Number(accounts), keys: Number(keys) };
        await settle(
          { email, accountId: id, keyId, hashHex, createdAt: now, ...counts, revokedKeyIds, tokenHex: '' },
          where,
        );
        return { id, email, keyId };
      },
    ),
    revokeKey: guard.guarded(async (digest: string, now: number) => {
      if (!opts.outage.up) throw new Error('redis is not connected');
      const hex = digestHex(digest);
      const revoked = await timed(opts.observe, 'revoke', () => client.revokeKey(k.key(hex), now, prefix, hex));
      verified.forget(hex);
      // a revocation the new primary lacks after a failover is made again there (journal.ts)
      if (revoked === 1) opts.journal.revoked(now, hex);
      if (revoked === 0 && condition.lost !== null) throw new StoreLostError(condition.lost);
      return revoked === 1;
    }),
    /** A recovery link used: its account's keys revoked and one new key issued. */
    recover: guard.guarded(async (digest: string, keyDigest: string, now: number): Promise<Recovered> => {
      guard.ready(true);
      const [tokenHex, hashHex] = [digestHex(digest), digestHex(keyDigest)];
      const [{ recovered, revokedKeyIds, keyCount }, where] = await timed(opts.observe, 'recover', () =>
        issuer.issue(
          (c) => useToken(c, prefix, tokenHex, { hashHex, id: newId() }, now),
          ({ recovered: r, revokedKeyIds }) =>
            typeof r === 'object' ? { keyId: r.account.keyId, hashHex, revokedKeyIds, tokenHex } : null,
          now,
        ),
      );
      if (typeof recovered !== 'object') return recovered;
      const { id: accountId, keyId, email } = recovered.account;
      const issued = { email, accountId, keyId, hashHex, createdAt: now, accounts: 0, keys: keyCount };
      await settle({ ...issued, revokedKeyIds, tokenHex }, where);
      return recovered;
    }),
  };
}
