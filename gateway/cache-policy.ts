// Who may keep an answer and for how long: the Cache-Control of each route's answers, from its
// cache class (site-format.ts, cacheClassOf) and PUBLIC_CACHE_SECONDS (docs/operations.md, "Behind a CDN").
import type { CacheClass } from '../build/site-format.ts';
import type { Config } from './config.ts';
import { pageFigures } from './filled-pages.ts';

const DATA_CACHE_CONTROL = 'private, no-cache';

/** A page filled per request from its Host is never kept by a shared cache (filled-pages.ts). */
export const PER_HOST_PAGE_CACHE = 'private, no-cache';

/** How the gateway serves a build's public answers: PUBLIC_CACHE_SECONDS (docs/operations.md). */
export interface ServePolicy {
  /** The shared lifetime of a page, the OpenAPI document or a plain-named file at a cache. */
  sharedSeconds: number;
  /** The configuration's figures the pages state (filled-pages.ts, pageFigures). */
  figures: Readonly<Record<string, string>>;
  /** PUBLIC_URL: the origin the pages' examples name; null: the origin each request was sent to. */
  publicUrl: string | null;
  /** When this configuration took effect (epoch ms): a page that states its figures is no older. */
  since: number;
}

/** The serving policy from the configuration: the shared lifetime, the pages' limits and origin. */
export const servePolicy = (
  config: Pick<Config, 'publicCacheSeconds' | 'rateLimitPerHour' | 'registerLimitPerHour' | 'publicUrl'>,
  since = 0,
): ServePolicy => ({
  sharedSeconds: config.publicCacheSeconds,
  figures: pageFigures(config),
  publicUrl: config.publicUrl,
  since,
});

/** A route's Cache-Control (site-format.ts, cacheClassOf); browsers keep a page a minute at most. */
export function cacheControlOf(cls: CacheClass, policy: ServePolicy): string {
  if (cls === 'private') return DATA_CACHE_CONTROL;
  if (cls === 'immutable') return 'public, max-age=31536000, immutable';
  return `public, max-age=${Math.min(60, policy.sharedSeconds)}, s-maxage=${policy.sharedSeconds}`;
}
