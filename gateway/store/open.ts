// The store the configuration names: Redis (REDIS_URL or REDIS_SENTINELS; loaded only in that mode), else the
// embedded SQLite file under STATE_DIR, held by this process alone (state-lock.ts).
import type { Config } from '../config.ts';
import { ATTEMPTS_PER_REGISTRATION } from '../rate-limit.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import { lockStateDir, StateDirError } from './state-lock.ts';
import type { Store, StoreObserver } from './types.ts';

export interface OpenStoreOptions {
  clock: () => number;
  log: (fields: Record<string, unknown>) => void;
  /** Told of each store operation (GET /metrics). */
  observe?: StoreObserver;
}

export async function openStore(config: Readonly<Config>, opts: OpenStoreOptions): Promise<Store> {
  const common = {
    rateLimitPerHour: config.rateLimitPerHour,
    registerLimitPerHour: config.registerLimitPerHour,
    registerAttemptsPerHour: config.registerLimitPerHour * ATTEMPTS_PER_REGISTRATION,
    ...opts,
  };
  if (config.redis) {
    // Nothing is written under STATE_DIR in this mode, so any number of processes may share it.
    const { openRedisStore } = await import('./redis/redis-store.ts');
    return openRedisStore({
      target: config.redis,
      prefix: config.redisPrefix,
      minReplicas: config.redisMinReplicas,
      ...common,
    });
  }
  const lock = lockStateDir(config.stateDir);
  let store: Store;
  try {
    store = openSqliteStore({ stateDir: config.stateDir, ...common });
  } catch (err) {
    lock.release();
    throw new StateDirError(`STATE_DIR ${config.stateDir} holds no usable store: ${(err as Error).message}.`);
  }
  // The lock is let go only once the windows are saved and the file is closed.
  const close = store.close.bind(store);
  store.close = () => close().finally(() => lock.release());
  return store;
}
