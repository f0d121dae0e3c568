// What this instance does while Redis cannot be used (docs/contract.md, Storage and scale): the
// connection's events say whether it is connected (the log's store_ready, store_unavailable and
// store_recovered), condition.ts whether it can also write. Meanwhile the requests of recently
// verified keys are counted here, each window seeded from the last answer Redis gave; when Redis
// is back those windows go (Redis's are the truth again) and the requests they counted are added
// to their keys' hours and totals, so usage stays true across an outage.
import { LRUCache } from 'lru-cache';
import { type Decision, WINDOW_MS } from '../../rate-limit.ts';
import { createMemoryLimiter, type MemoryLimiter } from '../memory-limiter.ts';
import type { StoreStatus } from '../store-status.ts';
import type { Scripted } from './client.ts';
import { RedisCondition } from './condition.ts';
import { redisKeys } from './key-names.ts';

export interface RedisOutage {
  /** Whether Redis can be used now (connected and writable): a plain field, read on every request. */
  readonly up: boolean;
  readonly condition: RedisCondition;
  readonly status: StoreStatus;
  /** Redis's last answer for a window (`key`), kept to count on from if Redis goes away. */
  remember(key: string, start: number, count: number): void;
  /** Counts a request of `subject` here (or only peeks), from what Redis last said of `key`. */
  countLocally(kind: string, limit: number, key: string, subject: string, now: number, count: boolean): Decision;
  /** Takes back a request counted here during the outage. */
  refundLocally(kind: string, subject: string, counted: Decision): void;
  /** The windows whose hour still runs, as Redis last answered them: what a new primary must not fall below. */
  seenWindows(now: number): Iterable<{ key: string; start: number; count: number }>;
}

export function trackOutage(opts: {
  client: Scripted;
  prefix: string;
  clock: () => number;
  log: (fields: Record<string, unknown>) => void;
}): RedisOutage {
  const { client } = opts;
  const k = redisKeys(opts.prefix);
  let everUp = false;

  /** Per-instance windows for the outage, seeded from the last answer Redis gave. */
  const outage = new Map<string, MemoryLimiter>();
  const lastKnown = new LRUCache<string, { start: number; count: number }>({ max: 100_000 });
  /** The windows this outage's counting started from, each once. */
  const seeded = new Set<string>();
  const localLimiter = (kind: string, limit: number) => {
    const l = outage.get(kind) ?? createMemoryLimiter({ limit, maxSubjects: 100_000 });
    outage.set(kind, l);
    return l;
  };

  type Row = [keyId: string, requests: number, last: number, start: number];
  const addOutageUsage = async (rows: Row[]) => {
    const now = opts.clock();
    const results = await Promise.allSettled(
      rows.map(([keyId, n, last, start]) =>
        client.addUsage(k.keyInfo(keyId), k.window('req', keyId), n, last, start, now, WINDOW_MS),
      ),
    );
    const tally = (ok: boolean) => {
      const taken = rows.filter((_, i) => (results[i]!.status === 'fulfilled') === ok);
      return { keys: taken.length, requests: taken.reduce((sum, [, n]) => sum + n, 0) };
    };
    opts.log({ event: 'outage_usage_saved', store: 'redis', ...tally(true) });
    // Redis went away again: those requests limited their keys but are not in their totals
    const lost = tally(false);
    if (lost.keys > 0) opts.log({ event: 'outage_usage_lost', store: 'redis', ...lost });
  };

  const condition = new RedisCondition(opts.log, (up) => {
    if (!up) return;
    // the outage's windows go (the next outage starts from what Redis says), and the requests
    // the key windows ('req') counted join the keys' hours and totals
    const usage = outage.get('req')?.unsaved().rows ?? [];
    outage.clear();
    seeded.clear();
    if (usage.length > 0) void addOutageUsage(usage);
  });

  const state: RedisOutage = {
    get up() {
      return condition.up;
    },
    condition,
    status: condition.status,
    remember(key, start, count) {
      // answers may come back out of order: the highest count of the hour is what was reached
      const w = lastKnown.get(key);
      if (!w || w.start !== start || w.count < count) lastKnown.set(key, { start, count });
    },
    countLocally(kind, limit, key, subject, now, count) {
      const local = localLimiter(kind, limit);
      const seed = lastKnown.get(key);
      if (seed && !seeded.has(key)) {
        local.restore([[subject, seed.start, seed.count]], now);
        seeded.add(key);
      }
      return count ? local.hit(subject, now) : local.peek(subject, now);
    },
    refundLocally: (kind, subject, counted) => outage.get(kind)?.refund(subject, counted),
    *seenWindows(now) {
      for (const [key, w] of lastKnown.entries()) if (now < w.start + WINDOW_MS) yield { key, ...w };
    },
  };

  const connected = (next: boolean, why?: string) => {
    if (next === condition.connected) {
      // still down, now for a reason in Redis's own words (WRONGPASS, NOAUTH, refused): said once
      if (!next && why && why !== 'connection closed' && why !== condition.why) {
        condition.why = why;
        opts.log({ event: 'store_unavailable', store: 'redis', reason: why });
        condition.refresh();
      }
      return;
    }
    condition.connected = next;
    if (!next) condition.checked = false;
    if (why) condition.why = why;
    const event = next ? (everUp ? 'store_recovered' : 'store_ready') : 'store_unavailable';
    everUp ||= next;
    opts.log({ event, store: 'redis', ...(why ? { reason: why } : {}) });
    condition.refresh();
  };
  client.on('ready', () => connected(true));
  client.on('close', () => connected(false, 'connection closed'));
  client.on('error', (err: Error) => connected(false, err.message));
  return state;
}
