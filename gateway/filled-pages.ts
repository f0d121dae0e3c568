// The pages (GET /, /docs, /grade) with the build's slots filled (docs/contract.md, The front
// door): the configuration's figures once, when a build is loaded, and the origin the page was
// asked from per request, so its examples work as they are, without JavaScript too. A filled page
// is made once per origin and kept (a few origins in practice: the CDN's host, a local one); the
// bound keeps made-up Host headers from growing it.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { escapeHtml, TEMPLATE_SLOT } from '../build/site-format.ts';
import type { Resource, Variant } from './site.ts';

const ORIGINS_KEPT = 32;

export interface PageTemplate {
  /** Text and slot names alternating, the figures already in. */
  parts: string[];
  /** Builds a variant's headers (site.ts, variantHeaders, with the page's type and cache policy). */
  headersOf(v: { length: number; etag: string }, encoding: string | null): string[];
  filled: LRUCache<string, Resource>;
}

/** A page's text → its template: every figure slot filled (values are digits), the origin left a slot. */
export function pageTemplate(
  text: string,
  figures: Readonly<Record<string, string>>,
  headersOf: PageTemplate['headersOf'],
): PageTemplate {
  const withFigures = text.replace(TEMPLATE_SLOT, (slot, name: string) => figures[name] ?? slot);
  return { parts: withFigures.split(TEMPLATE_SLOT), headersOf, filled: new LRUCache({ max: ORIGINS_KEPT }) };
}

/**
 * The page as asked from `origin`. The first request from an origin gets it plain (filling it costs
 * a copy and a hash); the second compresses it (a millisecond or a few, once): a stream of made-up
 * Host headers costs no compression, and the origins clients really use are served compressed.
 */
export function filledPage(page: PageTemplate, origin: string): Resource {
  const known = page.filled.get(origin);
  if (known?.br) return known;
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
  if (known) {
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
