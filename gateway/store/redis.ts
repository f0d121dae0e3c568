// REDIS_URL set: accounts, key hashes and hourly windows live in one Redis server, shared by every
// gateway instance (docs/contract.md, Storage and scale). Counting and registration are single server-side scripts,
// so instances never race (no read-then-write). A small LRU of verified keys keeps the hot path off
// the network; it lives 1 s, and replacements are also announced over pub/sub.
//
// Redis unreachable: nothing is queued (commands fail at once), a key verified within the last
// OUTAGE_GRACE_MS keeps working and is counted in this instance's memory, anything else gets 503.
import { LRUCache } from 'lru-cache';
import { digestHex, hashKey } from '../keys.ts';
import { createMemoryLimiter, type Decision, type Limiter, WINDOW_MS } from '../rate-limit.ts';
import { connect, type Scripted } from './redis-client.ts';
import { redisUnreachable, StoreStatus } from './store-status.ts';
import {
  type Account,
  type AccountQueries,
  type AccountRow,
  MAX_LIVE_KEYS,
  type Registered,
  type Store,
  type StoreObserver,
  StoreUnavailableError,
  timed,
} from './types.ts';

export interface RedisStoreOptions {
  url: string;
  prefix: string;
  rateLimitPerHour: number;
  registerLimitPerHour: number;
  registerAttemptsPerHour: number;
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

const unavailable = (err: unknown) => new StoreUnavailableError(err instanceof Error ? err.message : String(err));

/** The operators' queries (also used by scripts/accounts.ts). */
export function redisAccountQueries(
  client: Scripted,
  prefix: string,
): {
  [K in keyof AccountQueries]: (...a: Parameters<AccountQueries[K]>) => Promise<Awaited<ReturnType<AccountQueries[K]>>>;
} {
  const num = (v: string | undefined) => (v === undefined ? null : Number(v));
  const row = async (id: string): Promise<AccountRow | null> => {
    const h = await client.hgetall(`${prefix}account:${id}`);
    if (!h.email) return null;
    const keyIds = await client.smembers(`${prefix}account-keys:${id}`); // every key it was issued
    const keys = await Promise.all(
      keyIds
        .sort((x, y) => Number(x) - Number(y))
        .map(async (kid) => {
          const k = await client.hgetall(`${prefix}keyinfo:${kid}`);
          return {
            id: kid,
            created_at: Number(k.created_at),
            last_used_at: num(k.last_used),
            revoked_at: num(k.revoked_at),
            requests: Number(k.requests ?? 0),
          };
        }),
    );
    return { id, email: h.email, created_at: Number(h.created_at), keys };
  };
  return {
    async list() {
      const ids = await client.zrange(`${prefix}accounts`, 0, -1);
      return (await Promise.all(ids.map(row))).filter((r): r is AccountRow => r !== null);
    },
    async show(email) {
      const id = await client.get(`${prefix}email:${email}`);
      return id ? row(id) : null;
    },
    revoke: (email, keyId, now) => client.revokeAccount(`${prefix}email:${email}`, now, prefix, keyId ?? ''),
  };
}

export function openRedisStore(opts: RedisStoreOptions): Store {
  const { prefix, clock } = opts;
  const client = connect(opts.url, opts.commandTimeoutMs ?? 1_000);
  // The counts of all requests handled in one turn of the event loop leave in one write: the
  // socket is corked at the first and uncorked after the turn (a write syscall per request was
  // a large part of a request's CPU in Redis mode (docs/performance.md: the measurements behind the code)).
  let corked = false;
  const coalesceWrites = () => {
    const socket = (client as unknown as { stream?: import('node:net').Socket }).stream;
    if (corked || !socket || socket.destroyed) return;
    corked = true;
    socket.cork();
    setImmediate(() => {
      corked = false;
      socket.uncork();
    });
  };
  const subscriber = connect(opts.url, opts.commandTimeoutMs ?? 1_000);
  const ttl = opts.verifiedTtlMs ?? 1_000;
  const grace = opts.outageGraceMs ?? 10 * 60_000;

  let up = false;
  let everUp = false;
  const status = new StoreStatus();
  status.set('unavailable', redisUnreachable('it has not answered yet'));
  const setState = (next: boolean, why?: string) => {
    if (next === up) return;
    up = next;
    status.set(next ? 'ok' : 'unavailable', next ? null : redisUnreachable(why));
    const event = next ? (everUp ? 'store_recovered' : 'store_ready') : 'store_unavailable';
    everUp ||= next;
    opts.log({ event, store: 'redis', ...(why ? { reason: why } : {}) });
    if (!next) return;
    // the outage's windows go (the next outage starts from what Redis says), and the requests
    // they counted join the keys' totals (usage exact, also across an outage)
    const usage = outage.get('req')?.unsaved().rows ?? [];
    outage.clear();
    if (usage.length > 0) void addOutageUsage(usage);
  };
  const addOutageUsage = async (rows: [keyId: string, requests: number, last: number][]) => {
    const results = await Promise.allSettled(
      rows.map(([keyId, n, last]) => client.addUsage(`${prefix}keyinfo:${keyId}`, n, last)),
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

  // Keys stored before they had ids of their own move once, at the first connection (idempotent,
  // so several instances starting together are safe).
  let migrated = false;
  client.on('ready', () => {
    setState(true);
    if (migrated) return;
    migrated = true;
    client.migrateKeys(`${prefix}accounts`, `${prefix}seq`, `${prefix}seq:key`, prefix).then(
      (n) => n > 0 && opts.log({ event: 'keys_migrated', store: 'redis', keys: n }),
      (err: Error) => {
        migrated = false;
        opts.log({ event: 'keys_migration_failed', store: 'redis', error: err.message });
      },
    );
  });
  client.on('close', () => setState(false, 'connection closed'));
  client.on('error', (err: Error) => setState(false, err.message));

  // Verified keys (by the key itself, in memory only): trusted for `ttl`, or for `grace` while
  // Redis cannot be asked. A revocation names the key's hash, so the hashes are kept beside.
  const keyOfHash = new Map<string, string>();
  const verified = new LRUCache<string, { account: Account; at: number; hashHex: string }>({
    max: 100_000,
    dispose: (entry) => keyOfHash.delete(entry.hashHex),
  });
  void subscriber.subscribe(`${prefix}revoked`).catch(() => {});
  subscriber.on('ready', () => void subscriber.subscribe(`${prefix}revoked`).catch(() => {}));
  subscriber.on('message', (_channel: string, hashHex: string) => {
    const key = keyOfHash.get(hashHex);
    if (key !== undefined) verified.delete(key);
  });

  /** Per-instance windows for the outage, seeded from the last answer Redis gave. */
  const outage = new Map<string, ReturnType<typeof createMemoryLimiter>>();
  const lastKnown = new LRUCache<string, { start: number; count: number }>({ max: 100_000 });
  const localLimiter = (kind: string, limit: number) => {
    let l = outage.get(kind);
    if (!l) {
      l = createMemoryLimiter({ limit, maxSubjects: 100_000 });
      outage.set(kind, l);
    }
    return l;
  };

  const limiter = (kind: 'req' | 'reg' | 'att', limit: number, localFallback: boolean): Limiter => {
    const run = async (subject: string, now: number, count: boolean): Promise<Decision> => {
      const key = `${prefix}window:${kind}:${subject}`;
      if (up) {
        try {
          coalesceWrites();
          // a key's window also records its last use (the operators' list), in the same step
          const info = kind === 'req' ? `${prefix}keyinfo:${subject}` : key;
          const touch = kind === 'req' && count ? '1' : '0';
          const [allowed, used, resetAt] = await timed(opts.observe, 'count', () =>
            client.window(key, info, now, limit, WINDOW_MS, count ? '1' : '0', touch),
          );
          if (used > 0) lastKnown.set(key, { start: resetAt - WINDOW_MS, count: used });
          return { allowed: allowed === 1, limit, used, resetAt };
        } catch (err) {
          if (!localFallback) throw unavailable(err);
        }
      } else if (!localFallback) throw unavailable('redis is not connected');
      // Outage: count here, from what Redis last said (README: the bound this gives).
      const local = localLimiter(kind, limit);
      const seed = lastKnown.get(key);
      if (seed) {
        local.restore([[subject, seed.start, seed.count]], now);
        lastKnown.delete(key);
      }
      return count ? local.hit(subject, now) : local.peek(subject, now);
    };
    return { hit: (s, now) => run(s, now, true), peek: (s, now) => run(s, now, false) };
  };

  const queries = redisAccountQueries(client, prefix);
  const guarded =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        return await fn(...a);
      } catch (err) {
        throw unavailable(err);
      }
    };

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
        if (!up) throw new Error('redis is not connected');
        value = await timed(opts.observe, 'find_key', () => client.get(`${prefix}key:${hex}`));
      } catch (err) {
        if (cached && now - cached.at < grace) return cached.account;
        throw unavailable(err);
      }
      if (value === null) {
        verified.delete(key);
        return null;
      }
      // "<account>\t<key id>\t<email>"; before keys had ids of their own, "<account>\t<email>"
      const fields = value.split('\t');
      const account =
        fields.length >= 3
          ? { id: fields[0]!, keyId: fields[1]!, email: fields.slice(2).join('\t') }
          : { id: fields[0]!, keyId: fields[0]!, email: fields[1] ?? '' };
      verified.set(key, { account, at: now, hashHex: hex });
      keyOfHash.set(hex, key);
      return account;
    },
    register: guarded(
      async (email: string, digest: string, now: number, rotate: string | null): Promise<Registered> => {
        if (!up) throw new Error('redis is not connected');
        const [id, keyId] = await timed(opts.observe, 'register', () =>
          client.registerKey(
            `${prefix}email:${email}`,
            `${prefix}seq`,
            `${prefix}accounts`,
            `${prefix}seq:key`,
            email,
            digestHex(digest),
            now,
            prefix,
            MAX_LIVE_KEYS,
            rotate === null ? '' : digestHex(rotate),
          ),
        );
        if (keyId === '') return 'too_many_keys';
        return { id: String(id), email, keyId: String(keyId) };
      },
    ),
    revokeKey: guarded(async (digest: string, now: number) => {
      if (!up) throw new Error('redis is not connected');
      const hex = digestHex(digest);
      const revoked = await timed(opts.observe, 'revoke', () =>
        client.revokeKey(`${prefix}key:${hex}`, now, prefix, hex),
      );
      return revoked === 1;
    }),
    liveKeys: guarded(() =>
      timed(opts.observe, 'live_keys', () => client.liveKeys(`${prefix}live-keys`, `${prefix}accounts`, prefix)),
    ),
    requests: limiter('req', opts.rateLimitPerHour, true),
    registrations: limiter('reg', opts.registerLimitPerHour, false),
    registrationAttempts: limiter('att', opts.registerAttemptsPerHour, false),
    list: guarded(queries.list),
    show: guarded(queries.show),
    revoke: guarded(queries.revoke),
    status,
    async close() {
      subscriber.disconnect();
      await client.quit().catch(() => client.disconnect());
    },
  };
}
