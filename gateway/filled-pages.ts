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

/** The page as asked from `origin`: made and encoded on the first request from that origin, then kept. */
export function filledPage(page: PageTemplate, origin: string): Resource {
  const known = page.filled.get(origin);
  if (known) return known;
  const value = escapeHtml(origin);
  let text = '';
  for (let i = 0; i < page.parts.length; i++) text += i % 2 === 0 ? page.parts[i] : value;
  const body = Buffer.from(text);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 32);
  const variant = (bytes: Buffer, encoding: string | null, suffix: string): Variant => {
    const v = { length: bytes.length, etag: `"${hash}${suffix}"` };
    const headers = page.headersOf(v, encoding);
    const cache = headers[headers.indexOf('Cache-Control') + 1]!;
    const notModifiedHeaders = ['ETag', v.etag, 'Cache-Control', cache, 'Vary', 'Accept-Encoding'];
    return { body: bytes, etag: v.etag, headers, notModifiedHeaders };
  };
  // A page is a few tens of KB: a middle quality costs a millisecond or two, once per origin
  const br = brotliCompressSync(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  const resource: Resource = {
    identity: variant(body, null, ''),
    br: variant(br, 'br', '.br'),
    gzip: variant(gzipSync(body, { level: 6 }), 'gzip', '.gz'),
    etags: new Set(),
  };
  resource.etags = new Set([resource.identity.etag, resource.br!.etag, resource.gzip!.etag]);
  page.filled.set(origin, resource);
  return resource;
}
