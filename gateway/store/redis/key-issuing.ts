// The Redis store's writes of keys: registering (a new key, or a rotation), revoking one, and a
// recovery link's new key. Each is one server-side script (scripts.ts), held by REDIS_MIN_REPLICAS
// replicas before its answer (replication.ts); a key this instance replaces leaves its memory at once,
// and every key answered 201 is a mark the watch holds the data to (watch.ts).
import { digestHex } from '../../keys.ts';
import { StoreLostError } from '../store-status.ts';
import { MAX_LIVE_KEYS, type Recovered, type Registered, type StoreObserver, timed } from '../types.ts';
import type { Scripted } from './client.ts';
import { redisKeys } from './key-names.ts';
import type { RedisOutage } from './outage.ts';
import { useToken } from './recovery-scripts.ts';
import type { Issuing } from './replication.ts';
import type { StoreGuard } from './store-guard.ts';
import type { verifiedKeys } from './verified-keys.ts';
import type { RedisWatch } from './watch.ts';

export interface KeyIssuingOptions {
  client: Scripted;
  prefix: string;
  outage: RedisOutage;
  guard: StoreGuard;
  issuer: Issuing;
  watch: RedisWatch;
  verified: ReturnType<typeof verifiedKeys>;
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
    );
  return {
    register: guard.guarded(
      async (email: string, digest: string, now: number, rotate: string | null): Promise<Registered> => {
        guard.ready(true);
        const hashHex = digestHex(digest);
        const [id, keyId, rotated] = await timed(opts.observe, 'register', () =>
          issuer.issue(
            (c) => registerScript(c, email, hashHex, now, rotate),
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
    revokeKey: guard.guarded(async (digest: string, now: number) => {
      if (!opts.outage.up) throw new Error('redis is not connected');
      const hex = digestHex(digest);
      const revoked = await timed(opts.observe, 'revoke', () => client.revokeKey(k.key(hex), now, prefix, hex));
      verified.forget(hex);
      if (revoked === 0 && condition.lost !== null) throw new StoreLostError(condition.lost);
      return revoked === 1;
    }),
    /** A recovery link used: its account's keys revoked and one new key issued. */
    recover: guard.guarded(async (digest: string, keyDigest: string, now: number): Promise<Recovered> => {
      guard.ready(true);
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
  };
}
