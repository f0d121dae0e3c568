// Keys this instance verified, held by the key itself and in memory only: the store trusts one for
// a short while without asking Redis again, and for longer while Redis cannot be asked (redis-store.ts
// decides which). A revocation is announced over pub/sub by the key's hash (scripts.ts), so
// the hashes are kept beside, and a revoked key leaves every instance's memory at once.
import { LRUCache } from 'lru-cache';
import type { Account } from '../types.ts';
import type { Scripted } from './client.ts';
import { redisKeys } from './key-names.ts';

export interface VerifiedKey {
  account: Account;
  /** When Redis last confirmed it. */
  at: number;
  hashHex: string;
}

export function verifiedKeys(subscriber: Scripted, prefix: string) {
  const k = redisKeys(prefix);
  const keyOfHash = new Map<string, string>();
  const verified = new LRUCache<string, VerifiedKey>({
    max: 100_000,
    dispose: (entry) => keyOfHash.delete(entry.hashHex),
  });
  void subscriber.subscribe(k.revoked).catch(() => {});
  subscriber.on('ready', () => void subscriber.subscribe(k.revoked).catch(() => {}));
  /** The key whose hash this is leaves memory: announced by another instance, or revoked by this one. */
  const forget = (hashHex: string) => {
    const key = keyOfHash.get(hashHex);
    if (key !== undefined) verified.delete(key);
  };
  subscriber.on('message', (_channel: string, hashHex: string) => forget(hashHex));
  return {
    forget,
    get: (key: string) => verified.get(key),
    set(key: string, entry: VerifiedKey) {
      verified.set(key, entry);
      keyOfHash.set(entry.hashHex, key);
    },
    delete: (key: string) => void verified.delete(key),
  };
}
