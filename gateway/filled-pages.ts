// The pages (GET /, /docs, /grade) with the build's slots filled (docs/contract.md, The front
// door): the configuration's figures, and the origin the examples name, so they work as they are,
// without JavaScript too. With PUBLIC_URL the origin is the configuration's and each page is filled
// once, when its build is loaded (site.ts). Without it, the origin is the one a request was sent
// to: such a page is made per origin and kept (a few in practice; the bound keeps made-up Host
// headers from growing it), and is private, so no shared cache can hand one Host's page to another.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import {
  EXAMPLE_REQUESTS_USED,
  fillSlots,
  type SlotValues,
  bodyHash as sha,
  TEMPLATE_SLOT,
} from '../build/site-format.ts';
import type { Resource, Variant } from './resource.ts';

const ORIGINS_KEPT = 32;
/** Pages compressed per request: a burst, then one a second; past it they are answered plain. */
const COMPRESS_BURST = 16;
const COMPRESS_REFILL_MS = 1000;

export interface PageTemplate {
  /** Text and slot names alternating, the figures already in. */
  parts: string[];
  /** A variant's headers and its 304's (site.ts, with the page's type and cache policy). */
  variantOf(bytes: Buffer, etag: string, encoding: string | null): Variant;
  filled: LRUCache<string, Resource>;
  /** Compressions left to spend, as of `budgetAt` (epoch ms). */
  budget: number;
  budgetAt: number;
}

/** A page's text → its template: every figure slot filled (values are digits), the origin left a slot. */
export function pageTemplate(
  text: string,
  figures: Partial<SlotValues>,
  variantOf: PageTemplate['variantOf'],
): PageTemplate {
  const withFigures = fillSlots(text.split(TEMPLATE_SLOT), figures);
  const filled = new LRUCache<string, Resource>({ max: ORIGINS_KEPT });
  return { parts: withFigures.split(TEMPLATE_SLOT), variantOf, filled, budget: COMPRESS_BURST, budgetAt: 0 };
}

/** Whether a compression may be spent at `now`: the budget refills one a second, up to the burst. */
function spend(page: PageTemplate, now: number): boolean {
  if (now < page.budgetAt) page.budgetAt = now; // a clock stepped back restarts the count
  const refill = Math.floor((now - page.budgetAt) / COMPRESS_REFILL_MS);
  if (refill > 0) {
    page.budget = Math.min(COMPRESS_BURST, page.budget + refill);
    page.budgetAt += refill * COMPRESS_REFILL_MS;
  }
  if (page.budget === 0) return false;
  page.budget--;
  return true;
}

/**
 * The page as asked from `origin` at `now`. It is compressed (a millisecond or a few) while the
 * budget allows; past it the page is answered plain, and compressed on a later request once the
 * budget refills, so a stream of made-up Host headers costs a copy and a hash each, never more.
 */
export function filledPage(page: PageTemplate, origin: string, now: number): Resource {
  const known = page.filled.get(origin);
  if (known?.br) return known;
  if (known && !spend(page, now)) return known;
  const resource = pageResource(page, origin, known === undefined ? spend(page, now) : true, known);
  page.filled.set(origin, resource);
  return resource;
}

/** The page filled with `origin`, plain or with its compressed forms (reusing a plain one made before). */
export function pageResource(page: PageTemplate, origin: string, compress: boolean, plain?: Resource): Resource {
  const body = plain?.identity.body ?? Buffer.from(fillSlots(page.parts, { origin }));
  const identity = plain?.identity ?? page.variantOf(body, `"${sha(body)}"`, null);
  if (!compress) return { identity };
  const tag = identity.etag.slice(1, -1);
  const brBytes = brotliCompressSync(body, {
    // A page is a few tens of KB: a middle quality costs a millisecond or two
    params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  const br = page.variantOf(brBytes, `"${tag}.br"`, 'br');
  const gzip = page.variantOf(gzipSync(body, { level: 6 }), `"${tag}.gz"`, 'gzip');
  return { identity, br, gzip };
}

type PageFigures = SlotValues<'rate_limit_per_hour' | 'rate_limit_remaining_example' | 'register_limit_per_hour'>;

/** The figures' slots and values from the configured limits. */
export function pageFigures(limits: { rateLimitPerHour: number; registerLimitPerHour: number }): PageFigures {
  return {
    rate_limit_per_hour: String(limits.rateLimitPerHour),
    rate_limit_remaining_example: String(Math.max(0, limits.rateLimitPerHour - EXAMPLE_REQUESTS_USED)),
    register_limit_per_hour: String(limits.registerLimitPerHour),
  };
}
