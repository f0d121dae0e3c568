// The pages (GET /, /docs, /grade) with the build's slots filled (docs/contract.md, The front
// door): the configuration's figures once, when a build is loaded, and the origin the page was
// asked from per request, so its examples work as they are, without JavaScript too. A filled page
// is made once per origin and kept (a few origins in practice: the CDN's host, a local one); the
// bound keeps made-up Host headers from growing it.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { escapeHtml, TEMPLATE_SLOT } from '../build/site-format.ts';
import type { Resource, Variant } from './resource.ts';

const ORIGINS_KEPT = 32;
/** New origins compressed at once: a burst, then one a second; past it, on an origin's second request. */
const COMPRESS_BURST = 16;
const COMPRESS_REFILL_MS = 1000;

export interface PageTemplate {
  /** Text and slot names alternating, the figures already in. */
  parts: string[];
  /** Builds a variant's headers (site.ts, variantHeaders, with the page's type and cache policy). */
  headersOf(v: { length: number; etag: string }, encoding: string | null): string[];
  filled: LRUCache<string, Resource>;
  /** Compressions of a new origin's page left to spend at once, as of `budgetAt` (epoch ms). */
  budget: number;
  budgetAt: number;
}

/** A page's text → its template: every figure slot filled (values are digits), the origin left a slot. */
export function pageTemplate(
  text: string,
  figures: Readonly<Record<string, string>>,
  headersOf: PageTemplate['headersOf'],
): PageTemplate {
  const withFigures = text.replace(TEMPLATE_SLOT, (slot, name: string) => figures[name] ?? slot);
  const filled = new LRUCache<string, Resource>({ max: ORIGINS_KEPT });
  return { parts: withFigures.split(TEMPLATE_SLOT), headersOf, filled, budget: COMPRESS_BURST, budgetAt: 0 };
}

/**
 * The page as asked from `origin` at `now`, compressed (a millisecond or a few, once per origin).
 * Only a bounded number of new origins a second are compressed at once; past that, a new origin's
 * first answer is plain (a copy and a hash) and its second is compressed, so a stream of made-up
 * Host headers costs no compression while the origins clients really use are served compressed.
 */
export function filledPage(page: PageTemplate, origin: string, now: number): Resource {
  const known = page.filled.get(origin);
  if (known?.br) return known;
  const refill = Math.floor((now - page.budgetAt) / COMPRESS_REFILL_MS);
  if (refill > 0) {
    page.budget = Math.min(COMPRESS_BURST, page.budget + refill);
    page.budgetAt = now;
  }
  const compress = known !== undefined || page.budget > 0;
  if (!known && compress) page.budget--;
  const body = known?.identity.body ?? fill(page, origin);
  const hash = known ? known.identity.etag.slice(1, -1) : createHash('sha256').update(body).digest('hex').slice(0, 32);
  const variant = (bytes: Buffer, encoding: string | null, suffix: string): Variant => {
    const v = { length: bytes.length, etag: `"${hash}${suffix}"` };
    const headers = page.headersOf(v, encoding);
    const cache = headers[headers.indexOf('Cache-Control') + 1]!;
    const notModifiedHeaders = ['ETag', v.etag, 'Cache-Control', cache, 'Vary', 'Accept-Encoding'];
    return { body: bytes, etag: v.etag, headers, notModifiedHeaders };
  };
  const identity = known?.identity ?? variant(body, null, '');
  let resource: Resource = { identity, etags: new Set([identity.etag]) };
  if (compress) {
    const br = brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    });
    const [brVariant, gzipVariant] = [variant(br, 'br', '.br'), variant(gzipSync(body, { level: 6 }), 'gzip', '.gz')];
    resource = {
      identity,
      br: brVariant,
      gzip: gzipVariant,
      etags: new Set([identity.etag, brVariant.etag, gzipVariant.etag]),
    };
  }
  page.filled.set(origin, resource);
  return resource;
}

function fill(page: PageTemplate, origin: string): Buffer {
  const value = escapeHtml(origin);
  let text = '';
  for (let i = 0; i < page.parts.length; i++) text += i % 2 === 0 ? page.parts[i] : value;
  return Buffer.from(text);
}
