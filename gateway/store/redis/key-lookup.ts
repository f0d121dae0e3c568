// A key's account, as the Redis store finds it: from this instance's memory while Redis confirmed it
// lately (verified-keys.ts), else from Redis; while Redis cannot be asked, a key verified within the
// outage grace keeps working, anything else is a 503.
import { digestHex, hashKey } from '../../keys.ts';
import { StoreLostError, unavailable } from '../store-status.ts';
import { type Account, type StoreObserver, timed } from '../types.ts';
import type { Scripted } from './client.ts';
import { parseKeyEntry, redisKeys } from './key-names.ts';
import type { RedisOutage } from './outage.ts';
import type { verifiedKeys } from './verified-keys.ts';

export interface KeyLookupOptions {
  client: Scripted;
  prefix: string;
  clock: () => number;
  outage: RedisOutage;
  verified: ReturnType<typeof verifiedKeys>;
  /** How long a verified key is trusted without asking Redis again. */
  ttlMs: number;
  /** Whether a key verified at `at` is trusted longer than that (key-trust.ts). */
  trustedLonger: (at: number, now: number) => boolean;
  /** During an outage, keys verified this recently keep working. */
  graceMs: number;
  observe?: StoreObserver;
}

export function keyLookup(opts: KeyLookupOptions) {
  const { client, clock, outage, verified, ttlMs, trustedLonger } = opts;
  const trusted = (at: number, now: number) => now - at < ttlMs || trustedLonger(at, now);
  const k = redisKeys(opts.prefix);
  return {
    cachedAccount(key: string): Account | undefined {
      const cached = verified.get(key);
      return cached && trusted(cached.at, clock()) ? cached.account : undefined;
    },
    async findByKey(key: string): Promise<Account | null> {
      const now = clock();
      const cached = verified.get(key);
      if (cached && trusted(cached.at, now)) return cached.account;
      const hex = cached?.hashHex ?? digestHex(hashKey(key));
      let value: string | null;
      try {
        if (!outage.up) throw new Error('redis is not connected');
        value = await timed(opts.observe, 'find_key', () => client.get(k.key(hex)));
      } catch (err) {
        if (cached && now - cached.at < opts.graceMs) return cached.account;
        throw unavailable(err);
      }
      if (value === null) {
        verified.delete(key);
        // the key may be one the lost data held: not "mistyped" until the loss is settled
        if (outage.condition.lost !== null) throw new StoreLostError(outage.condition.lost);
        return null;
      }
      const account = parseKeyEntry(value);
      verified.set(key, { account, at: now, hashHex: hex });
      return account;
    },
  };
}
