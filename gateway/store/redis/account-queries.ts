// The operators' view of the accounts in Redis (npm run accounts, scripts/accounts.ts): list, show
// and revoke, read and written with the same keys and scripts as the gateway's store (redis-store.ts).
import { digestHex } from '../../keys.ts';
import type { AccountQueries, AccountRow, FoundKey } from '../types.ts';
import type { Scripted } from './client.ts';
import { parseKeyEntry, redisKeys } from './key-names.ts';

/** The operators' queries (also used by scripts/accounts.ts). */
export function redisAccountQueries(
  client: Scripted,
  prefix: string,
): {
  [K in keyof AccountQueries]: (...a: Parameters<AccountQueries[K]>) => Promise<Awaited<ReturnType<AccountQueries[K]>>>;
} {
  const keyOf = redisKeys(prefix);
  const num = (v: string | undefined) => (v === undefined ? null : Number(v));
  const row = async (id: string): Promise<AccountRow | null> => {
    const h = await client.hgetall(keyOf.account(id));
    if (!h.email) return null;
    const keyIds = await client.smembers(keyOf.accountKeys(id)); // every key it was issued
    const read = await Promise.all(
      keyIds.map(async (kid) => {
        const k = await client.hgetall(keyOf.keyInfo(kid));
        // in the order of issue: ids are random (key-issuing.ts); a key older than that has a number
        const n = Number(k.n ?? kid);
        const key = {
          id: kid,
          created_at: Number(k.created_at),
          last_used_at: num(k.last_used),
          revoked_at: num(k.revoked_at),
          requests: Number(k.requests ?? 0),
        };
        return { n, key };
      }),
    );
    const keys = read.sort((x, y) => x.n - y.n).map((r) => r.key);
    return { id, email: h.email, created_at: Number(h.created_at), keys };
  };
  return {
    async list() {
      const ids = await client.zrange(keyOf.accounts, 0, -1);
      return (await Promise.all(ids.map(row))).filter((r): r is AccountRow => r !== null);
    },
    async show(email) {
      const id = await client.get(keyOf.email(email));
      return id ? row(id) : null;
    },
    revoke: (email, keyId, now) => client.revokeAccount(keyOf.email(email), now, prefix, keyId ?? ''),
    async revokeByDigest(digest, now) {
      const hex = digestHex(digest);
      const live = await client.get(keyOf.key(hex));
      // the same script as DELETE /api/keys/current: every instance hears of it and forgets the key
      if (live !== null && (await client.revokeKey(keyOf.key(hex), now, prefix, hex)) === 1) {
        const { keyId, email } = parseKeyEntry(live);
        return { email, keyId, revokedAt: now, revokedNow: true };
      }
      return revokedEarlier(hex);
    },
  };

  /** A key no longer live, looked for among every key issued: an operator's rare question, a scan. */
  async function revokedEarlier(hex: string): Promise<FoundKey | null> {
    for await (const names of client.scanStream({ match: keyOf.keyInfo('*'), count: 1_000 })) {
      for (const name of names as string[]) {
        const [hash, account, revokedAt] = await client.hmget(name, 'hash', 'account', 'revoked_at');
        if (hash !== hex || !account) continue;
        const email = (await client.hget(keyOf.account(account), 'email')) ?? '';
        const keyId = name.slice(keyOf.keyInfo('').length);
        return { email, keyId, revokedAt: Number(revokedAt ?? 0), revokedNow: false };
      }
    }
    return null;
  }
}
