// One precomputed answer as the gateway holds it: each encoding's bytes with its headers built
// once (site.ts loads a build's; filled-pages.ts makes the pages' per origin).

import type { Readable } from 'node:stream';

/** A body not held in memory, streamed from disk when asked (body-reader.ts). */
export type BodyLoader = () => Promise<Readable>;

export interface Variant {
  /**
   * The bytes, or null when they are not held: fetched from the upstream origin at `path` per
   * request, or read from the build on disk by `load` (body-reader.ts).
   */
  body: Buffer | null;
  path?: string;
  load?: BodyLoader;
  etag: string;
  /** Last-Modified, when known: the time the build went live (site.ts), read by If-Modified-Since. */
  modified: HttpDate | null;
  /** Flat [name, value, …] list for writeHead, without the per-request rate-limit headers. */
  headers: string[];
  /** The same for a 304 (validators and caching only, RFC 9110 §15.4.5). */
  notModifiedHeaders: string[];
}

/** An HTTP-date (RFC 9110 §5.6.7) as sent, and its time in epoch ms (whole seconds, as the text says). */
export interface HttpDate {
  text: string;
  ms: number;
}

export interface Resource {
  identity: Variant;
  br?: Variant;
  gzip?: Variant;
}
