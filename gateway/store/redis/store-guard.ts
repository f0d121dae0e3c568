// What every Redis store operation checks before and after it runs: whether Redis can be used and
// still holds its data (and, to issue a key, does not evict), and what a failure becomes (a 503 that
// names the cause; a write refused marks the condition, so /health says so).
import { StoreLostError, StoreUnavailableError, StoreWriteError, unavailable } from '../store-status.ts';
import { isWriteRefusal } from './condition.ts';
import type { RedisOutage } from './outage.ts';

export function storeGuard(outage: RedisOutage) {
  const { condition } = outage;
  return {
    /** The operation, its failures made the store's errors. */
    guarded:
      <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
      async (...a: A): Promise<R> => {
        try {
          return await fn(...a);
        } catch (err) {
          if (err instanceof StoreUnavailableError) throw err;
          if (isWriteRefusal(err)) condition.writeRefused(err as Error, 'write');
          throw unavailable(err);
        }
      },
    /** Throws unless Redis can be used and holds its data; to issue a key, also not evicting. */
    ready(toIssue: boolean) {
      if (!outage.up) throw new Error('redis is not connected');
      if (condition.lost !== null) throw new StoreLostError(condition.lost);
      if (toIssue && condition.evicting !== null) throw new StoreWriteError('read_only', condition.evicting);
    },
  };
}

export type StoreGuard = ReturnType<typeof storeGuard>;
