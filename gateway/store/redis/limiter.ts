// The hourly windows in Redis (docs/contract.md, Authentication and limits): one server-side
// script counts and answers, so instances sharing Redis never race; the windows of one turn of the
// event loop share one call of it (window-batch.ts). A key's window also records the key's last use,
// in the same step. When Redis cannot be asked, the key windows count on in this instance
// (outage.ts); registration's windows refuse instead (503).
import { type Decision, type Limiter, WINDOW_MS } from '../../rate-limit.ts';
import { unavailable } from '../store-status.ts';
import { type StoreObserver, timed } from '../types.ts';
import type { Scripted } from './client.ts';
import { isWriteRefusal } from './condition.ts';
import { redisKeys } from './key-names.ts';
import type { RedisOutage } from './outage.ts';
import type { WindowAnswer, WindowAsk } from './window-batch.ts';

export interface RedisWindows {
  client: Scripted;
  prefix: string;
  outage: RedisOutage;
  /** Asks Redis for a window, with the others of the same turn (window-batch.ts). */
  ask: (window: WindowAsk) => Promise<WindowAnswer>;
  /** Called before a refund's command: a burst of refunds leaves in one write (client.ts, writeCoalescer). */
  beforeWrite: () => void;
  observe: StoreObserver | undefined;
}

/**
 * The windows of one kind: 'req' per key (counted on locally during an outage), 'reg' and 'att'
 * per client address (keys issued, registration attempts).
 */
export function redisLimiter(
  w: RedisWindows,
  kind: 'req' | 'reg' | 'att' | 'rml' | 'rad',
  limit: number,
  localFallback: boolean,
): Limiter {
  const { client, outage } = w;
  const k = redisKeys(w.prefix);
  const run = async (subject: string, now: number, count: boolean): Promise<Decision> => {
    const key = k.window(kind, subject);
    if (outage.up) {
      try {
        // a key's window also records its last use (the operators' list), in the same step
        const info = kind === 'req' ? k.keyInfo(subject) : key;
        const touch = kind === 'req' && count;
        const [allowed, used, resetAt] = await timed(w.observe, 'count', () =>
          w.ask({ key, info, now, limit, count, touch }),
        );
        if (used > 0) outage.remember(key, resetAt - WINDOW_MS, used);
        return { allowed: allowed === 1, limit, used, resetAt };
      } catch (err) {
        // Redis answers but cannot write: said at once, not at the next look (condition.ts)
        if (isWriteRefusal(err)) outage.condition.writeRefused(err as Error, 'count');
        if (!localFallback) throw unavailable(err);
      }
    } else if (!localFallback) throw unavailable('redis is not connected');
    // Outage: count here, from what Redis last said (docs/operations.md, "Running several instances":
    // the bound this gives).
    return outage.countLocally(kind, limit, key, subject, now, count);
  };
  const refund = async (subject: string, counted: Decision) => {
    if (!outage.up) return outage.refundLocally(kind, subject, counted);
    const key = k.window(kind, subject);
    const info = kind === 'req' ? k.keyInfo(subject) : key;
    w.beforeWrite();
    await client.refundWindow(key, info, counted.resetAt - WINDOW_MS, kind === 'req' ? '1' : '0').catch(() => {});
  };
  return { hit: (s, now) => run(s, now, true), peek: (s, now) => run(s, now, false), refund };
}
