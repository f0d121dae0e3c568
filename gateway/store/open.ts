// The store the configuration names: REDIS_URL's Redis (loaded only in that mode), else the
// embedded SQLite file under STATE_DIR.
import type { Config } from '../config.ts';
import { openSqliteStore } from './sqlite.ts';
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
    ...opts,
  };
  if (!config.redisUrl) return openSqliteStore({ stateDir: config.stateDir, ...common });
  const { openRedisStore } = await import('./redis.ts');
  return openRedisStore({ url: config.redisUrl, prefix: config.redisPrefix, ...common });
}
