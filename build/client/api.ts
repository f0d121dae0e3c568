// The typed client (docs/sync.md): fetch only, no runtime dependency; bundled by the build into the
// public module /client/api.js, and used by `npm run sync`. It sends If-None-Match from the cache
// the caller passes in (a 304 costs no quota), honours Retry-After on 429 (waits when the wait is
// short and allowed, else fails saying when to retry), retries idempotent GETs on network errors
// and 5xx with backoff and jitter, and puts the key nowhere but the X-API-Key header.
import {
  API_KEY_HEADER,
  ERROR_CODES,
  GRAIN_LIST_KEY,
  grainKey,
  grainYearKey,
  RATE_LIMIT_HEADERS as H,
  JSON_MEDIA_TYPE,
  ROUTES,
  snapshotKey,
} from '../site-format.ts';
import type { Changelog, ErrorBody, GrainList, GrainRecord, Snapshot } from '../types.ts';

export interface RateLimit {
  limit: number;
  remaining: number;
  /** Requests the service has counted in this window (X-RateLimit-Used), when it says. */
  used: number | null;
  /** When the window resets, epoch seconds. */
  reset: number;
}

/** A body fetched, with what its headers said. */
export interface Fetched<T> {
  body: T;
  /** The body's bytes as served (UTF-8 text), for a mirror that must equal the API. */
  text: string;
  etag: string | null;
  notModified: boolean;
  rateLimit: RateLimit | null;
}

/** What the caller keeps between runs: the last body and ETag of each path. */
export interface ClientCache {
  get(path: string): { etag: string; text: string } | undefined;
  set(path: string, entry: { etag: string; text: string }): void;
}

export interface ClientOptions {
  baseUrl: string;
  key: string;
  cache?: ClientCache;
  /** A 429 whose Retry-After is at most this many seconds is waited out; 0 (default): fail at once. */
  maxWaitSeconds?: number;
  /** Retries of a GET after a network error or a 5xx (default 3), with backoff and jitter. */
  retries?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    /** Seconds until a retry may succeed (a 429's Retry-After), when the service said. */
    readonly retryAfter: number | null = null,
    /**
     * The error's stable code (`unknown_crop_year`, …): one of the service's error codes as this
     * version knows them, so comparing it with a misspelt one does not compile. Null when the
     * service said none, or gave one added after this version (the status says what it is then).
     */
    readonly code: ErrorCode | null = null,
    /** The answer's rate-limit headers (an authorised error is counted too). */
    readonly rateLimit: RateLimit | null = null,
  ) {
    super(message);
  }
}

/**
 * The path the client asks for a snapshot, and names to its cache: a crop year's slash is sent
 * percent-encoded. A caller that keeps its own cache (the sync) looks entries up by this path.
 */
export const snapshotPath = (cropYear?: string) =>
  snapshotKey(cropYear === undefined ? null : encodeURIComponent(cropYear));

/** The service's error codes (docs/contract.md, Errors and HTTP), as the error body's schema lists them. */
export type ErrorCode = ErrorBody['code'];
const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** The bodies' types are derived from the response schemas (build/types.ts): written once. */
export type { Changelog, GrainList, GrainRecord, Snapshot };

const int = (v: string | null) => (v === null || !/^\d+$/.test(v) ? null : Number(v));

function rateLimitOf(h: Headers): RateLimit | null {
  // Headers.get matches a name in any case
  const [limit, remaining, reset, used] = [
    int(h.get(H.limit)),
    int(h.get(H.remaining)),
    int(h.get(H.reset)),
    int(h.get(H.used)),
  ];
  return limit === null || remaining === null || reset === null ? null : { limit, remaining, used, reset };
}

/** The service's data endpoints, each answer with its text, ETag and rate-limit headers. */
export interface Client {
  listGrains(): Promise<Fetched<GrainList>>;
  /** The record now, or as it stood in a crop year (`2025/26`; docs/contract.md, Crop years). */
  getGrain(id: string, q?: { cropYear?: string }): Promise<Fetched<GrainRecord>>;
  /**
   * Every record and the whole changelog in one body (docs/sync.md); `cropYear`: the records as they
   * stood in that crop year, of the classes published for it, and the entries up to that year.
   */
  snapshot(q?: { cropYear?: string }): Promise<Fetched<Snapshot>>;
  changelog(q?: { grain_id?: string; limit?: number }): Promise<Fetched<Changelog>>;
}

/**
 * In a browser page (or worker) whose origin is not the service's, the sentence every call fails
 * with, at once: the service answers no key from such a page (docs/contract.md, Other origins), so a
 * request could only fail, and retrying it would only fail again. Null anywhere else.
 */
function crossOriginRefusal(base: string): string | null {
  const page = globalThis as { document?: unknown; importScripts?: unknown; location?: { origin?: string } };
  const origin = page.location?.origin;
  if ((page.document === undefined && page.importScripts === undefined) || !origin) return null;
  let service: string;
  try {
    service = new URL(base).origin;
  } catch {
    return null; // a relative base URL: this page's own origin
  }
  if (service === origin) return null;
  return (
    `${service} does not take API keys from browser pages on other origins (this page is ${origin}): ` +
    'keys stay on servers. Call the API from a server or the command line (npm run sync), or from a page ' +
    'the service itself serves.'
  );
}

export function createClient(opts: ClientOptions): Client {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const refusal = crossOriginRefusal(base);
  const doFetch = opts.fetch ?? fetch;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = opts.random ?? Math.random;
  const retries = opts.retries ?? 3;

  async function get<T>(path: string): Promise<Fetched<T>> {
    if (refusal !== null) throw new ApiError(refusal, null);
    const cached = opts.cache?.get(path);
    const headers: Record<string, string> = { [API_KEY_HEADER]: opts.key, Accept: JSON_MEDIA_TYPE };
    if (cached) headers['If-None-Match'] = cached.etag;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await doFetch(`${base}${path}`, { headers });
      } catch (err) {
        if (attempt < retries) {
          await sleep(backoff(attempt));
          continue;
        }
        // fetch says only "fetch failed": the reason (refused, not found, reset) is its cause's code
        const { cause } = err as Error & { cause?: { code?: string; message?: string } };
        const reason = cause?.code ?? cause?.message;
        const why = reason ? `${(err as Error).message} (${reason})` : (err as Error).message;
        throw new ApiError(
          `no answer from ${base} for ${path} after ${attempt + 1} attempt(s): ${why}. ` +
            'Check that the service runs at that URL, then retry.',
          null,
        );
      }
      const rateLimit = rateLimitOf(res.headers);
      if (res.status === 304 && cached) {
        return {
          body: JSON.parse(cached.text) as T,
          text: cached.text,
          etag: cached.etag,
          notModified: true,
          rateLimit,
        };
      }
      if (res.status === 200) {
        const text = await res.text();
        const etag = res.headers.get('etag');
        if (etag) opts.cache?.set(path, { etag, text });
        return { body: JSON.parse(text) as T, text, etag, notModified: false, rateLimit };
      }
      const { message, code } = await errorOf(res);
      if (res.status === 429) {
        const wait = int(res.headers.get('retry-after')) ?? 1;
        if (wait <= (opts.maxWaitSeconds ?? 0)) {
          await sleep(wait * 1000);
          continue;
        }
        throw new ApiError(`${message} (retry in ${wait} s)`, 429, wait, code);
      }
      if (res.status >= 500 && attempt < retries) {
        await sleep(backoff(attempt));
        continue;
      }
      // a base URL ending with /api asks for /api/api/…, which no route has: name the mistake
      const hint =
        res.status === 404 && code === 'not_found' && base.endsWith('/api')
          ? ` The base URL is the service's address without /api: ${base.slice(0, -'/api'.length)}`
          : '';
      throw new ApiError(`${res.status} for ${path}: ${message}${hint}`, res.status, null, code, rateLimit);
    }
  }

  /** Exponential from 200 ms, with full jitter, so many clients do not retry in step. */
  const backoff = (attempt: number) => Math.round(200 * 2 ** attempt * (0.5 + random() / 2));

  return {
    listGrains: () => get<GrainList>(GRAIN_LIST_KEY),
    getGrain: (id, q = {}) =>
      get<GrainRecord>(
        q.cropYear === undefined
          ? grainKey(encodeURIComponent(id))
          : grainYearKey(encodeURIComponent(id), encodeURIComponent(q.cropYear)),
      ),
    snapshot: (q = {}) => get<Snapshot>(snapshotPath(q.cropYear)),
    changelog: (q = {}) => {
      const params = new URLSearchParams();
      if (q.grain_id !== undefined) params.set('grain_id', q.grain_id);
      if (q.limit !== undefined) params.set('limit', String(q.limit));
      const query = params.toString();
      return get<Changelog>(`${ROUTES.changelog.path}${query ? `?${query}` : ''}`);
    },
  };
}

async function errorOf(res: Response): Promise<{ message: string; code: ErrorCode | null }> {
  try {
    const body = (await res.json()) as { error?: unknown; code?: unknown };
    const code = typeof body.code === 'string' && KNOWN_CODES.has(body.code) ? (body.code as ErrorCode) : null;
    if (typeof body.error === 'string') return { message: body.error, code };
  } catch {
    // not JSON: the status says it
  }
  return { message: `the service answered ${res.status}`, code: null };
}
