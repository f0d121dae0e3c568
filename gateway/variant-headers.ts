// The headers of one encoding of a body, built once when its build is loaded: type, length, ETag,
// caching, the pages' security headers (security-headers.ts), CORS for the public bodies, and the 304's subset.
import { JSON_MEDIA_TYPE } from '../build/site-format.ts';
import { CROSS_ORIGIN_HEADERS } from './cors.ts';
import type { BodyLoader, HttpDate, Variant } from './resource.ts';
import { PAGE_HEADERS } from './security-headers.ts';

/** How a body is served under a route: its Cache-Control, and whether pages on other origins may read it. */
export interface Serving {
  cache: string;
  crossOrigin: boolean;
  /** Last-Modified of the answers (site.ts): when the build went live; null when not known. */
  modified: HttpDate | null;
}

/** A time as an HTTP-date, made once per build (a request compares, never formats). */
export function httpDate(ms: number): HttpDate {
  const whole = Math.floor(ms / 1000) * 1000;
  return { text: new Date(whole).toUTCString(), ms: whole };
}

/** The headers of one encoding of a body, served under a route of that cache class. A 304 says the same as its 200. */
function variantHeaders(
  entry: { type: string },
  v: { length: number; etag: string },
  encoding: string | null,
  serving: Serving,
): string[] {
  const json = entry.type.startsWith(JSON_MEDIA_TYPE);
  const h = [
    'Content-Type',
    entry.type,
    'Content-Length',
    String(v.length),
    'ETag',
    v.etag,
    'Cache-Control',
    serving.cache,
    'Vary',
    'Accept-Encoding',
  ];
  if (serving.modified) h.push('Last-Modified', serving.modified.text);
  if (!json) h.push(...PAGE_HEADERS);
  else h.push('X-Content-Type-Options', 'nosniff');
  // The public bodies any page may read (cors.ts); data stays without CORS (docs/contract.md, Other origins).
  if (serving.crossOrigin) h.push(...CROSS_ORIGIN_HEADERS);
  if (encoding) h.push('Content-Encoding', encoding);
  return h;
}

/**
 * One encoding of a body, ready to write: its bytes, the path it is fetched from (bodies left at
 * the upstream origin), or how it is read when asked (body-reader.ts), with its headers and its 304's.
 */
export function preparedVariant(
  entry: { type: string },
  v: { length: number; etag: string },
  encoding: string | null,
  serving: Serving,
  body: Buffer | string | BodyLoader,
): Variant {
  const headers = variantHeaders(entry, v, encoding, serving);
  const notModifiedHeaders = ['ETag', v.etag, 'Cache-Control', serving.cache, 'Vary', 'Accept-Encoding'];
  if (serving.modified) notModifiedHeaders.push('Last-Modified', serving.modified.text);
  if (serving.crossOrigin) notModifiedHeaders.push(...CROSS_ORIGIN_HEADERS);
  const { etag } = v;
  const { modified } = serving;
  if (typeof body === 'string') return { body: null, path: body, etag, modified, headers, notModifiedHeaders };
  if (typeof body === 'function') return { body: null, load: body, etag, modified, headers, notModifiedHeaders };
  return { body, etag, modified, headers, notModifiedHeaders };
}
