// The gateway's core, callable without a socket: a request → a response from the precomputed
// table, after the key and the hourly limit are checked. server.ts wires it to node:http.
import { clientAddress } from './client-address.ts';
import type { Config } from './config.ts';
import { errorBody, HttpError, MESSAGES, NOT_FOUND } from './errors.ts';
import { generateKey, hashKey, isWellFormedKey } from './keys.ts';
import { chooseVariant, noneMatch } from './negotiate.ts';
import { rateLimitHeaders, retryAfterSeconds, type Decision } from './rate-limit.ts';
import { isJsonContentType, MAX_BODY_BYTES, readEmail, tooLarge, unsupportedType } from './registration.ts';
import { route } from './routes.ts';
import type { Resource, Site, SiteHolder } from './site.ts';
import { StoreUnavailableError, type Account, type Store } from './store/types.ts';

export interface GatewayRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  remoteAddress: string | undefined;
  /** Reads the body, refusing (413) beyond `limit` bytes. */
  readBody(limit: number): Promise<Buffer>;
}

export interface GatewayResponse {
  status: number;
  /** Flat [name, value, …] list. */
  headers: string[];
  body: Buffer | null;
  /** For the log line: the account served, never its key. */
  account: string | null;
  /** UPSTREAM_URL mode: the body is this file at the origin (headers above are ours). */
  proxy: string | null;
}

/** Every response has the same shape (one hidden class for the code that writes it). */
const response = (status: number, headers: string[], body: Buffer | null, account: string | null = null, proxy: string | null = null): GatewayResponse => ({
  status,
  headers,
  body,
  account,
  proxy,
});

export interface AppOptions {
  config: Pick<Config, 'trustProxy'>;
  site: SiteHolder;
  store: Store;
  clock: () => number;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const missingKey = new HttpError(401, MESSAGES.missingKey);
const invalidKey = new HttpError(401, MESSAGES.invalidKey);
const rateLimited = new HttpError(429, MESSAGES.rateLimited);
const registerLimited = new HttpError(429, MESSAGES.registerLimited);
const storeUnavailable = new HttpError(503, MESSAGES.storeUnavailable);
const internal = new HttpError(500, MESSAGES.internal);
const STORE_RETRY_SECONDS = '5';

/**
 * An error's body, headers and plain responses (with a body, and for HEAD) are built once per error
 * value: a 401 for an unknown key allocates no response of its own. A request adds only its own headers.
 */
interface PreparedError {
  body: Buffer;
  headers: string[];
  plain: GatewayResponse;
  head: GatewayResponse;
}
const prepared = new WeakMap<HttpError, PreparedError>();
function preparedError(err: HttpError): PreparedError {
  let p = prepared.get(err);
  if (!p) {
    const body = errorBody(err.status, err.message);
    const headers = ['Content-Type', JSON_TYPE, 'Content-Length', String(body.length), 'Cache-Control', 'no-store'];
    for (const [k, v] of Object.entries(err.headers)) headers.push(k, v);
    prepared.set(err, (p = { body, headers, plain: response(err.status, headers, body), head: response(err.status, headers, null) }));
  }
  return p;
}
const NO_EXTRA: readonly string[] = [];
export function errorResponse(err: HttpError, extra: readonly string[] = NO_EXTRA, head = false, account: string | null = null): GatewayResponse {
  const p = preparedError(err);
  if (extra.length === 0 && account === null) return head ? p.head : p.plain;
  return response(err.status, extra.length ? p.headers.concat(extra) : p.headers, head ? null : p.body, account);
}
/** An error after a counted (or refused) request: its headers, then the rate-limit ones (a 429's with Retry-After). */
function limitedError(err: HttpError, d: Decision, now: number, retryAfter: boolean, head: boolean, account: string): GatewayResponse {
  const p = preparedError(err);
  return response(err.status, rateLimitHeaders(d, now, retryAfter, p.headers), head ? null : p.body, account);
}
export const INTERNAL_ERROR = errorResponse(internal);

export function createApp(opts: AppOptions) {
  const { store, clock } = opts;
  const healthBodies = new Map<string, Buffer>();

  function health(site: Site, head: boolean): GatewayResponse {
    const state = store.health();
    const key = `${site.buildId}:${state}`;
    let body = healthBodies.get(key);
    if (!body) {
      healthBodies.clear();
      const status = state === 'ok' ? 'ok' : 'degraded';
      body = Buffer.from(JSON.stringify({ status, store: state, dataset_version: site.datasetVersion, build_id: site.buildId, schema_version: '1.0' }));
      healthBodies.set(key, body);
    }
    return response(200, ['Content-Type', JSON_TYPE, 'Content-Length', String(body.length), 'Cache-Control', 'no-store'], head ? null : body);
  }

  /** With a decision, the rate-limit headers follow the variant's (decisions.md §3). */
  function serve(resource: Resource, req: GatewayRequest, head: boolean, d: Decision | null, now: number, account: string | null = null): GatewayResponse {
    const variant = chooseVariant(resource, req.headers['accept-encoding']);
    const headers = d ? rateLimitHeaders(d, now, false, variant.headers) : variant.headers;
    if (head) return response(200, headers, null, account);
    if (variant.body === null) return response(200, headers, null, account, variant.path!);
    return response(200, headers, variant.body, account);
  }

  function notModified(resource: Resource, req: GatewayRequest, d: Decision | null, now: number, account: string | null = null): GatewayResponse {
    const variant = chooseVariant(resource, req.headers['accept-encoding']);
    const headers = variant.notModifiedHeaders;
    return response(304, d ? rateLimitHeaders(d, now, false, headers) : headers, null, account);
  }

  const tooMany = (err: HttpError, d: Decision, now: number, head: boolean, account: string) => limitedError(err, d, now, true, head, account);

  async function register(req: GatewayRequest, now: number): Promise<GatewayResponse> {
    const address = clientAddress(req.remoteAddress, req.headers['x-forwarded-for'], opts.config.trustProxy);
    const d = await store.registrations.hit(address, now);
    if (!d.allowed) return errorResponse(registerLimited, ['Retry-After', String(retryAfterSeconds(d, now))]);
    const type = req.headers['content-type'];
    if (!isJsonContentType(typeof type === 'string' ? type : undefined)) throw unsupportedType;
    const length = req.headers['content-length'];
    if (typeof length === 'string' && Number(length) > MAX_BODY_BYTES) throw tooLarge;
    const email = readEmail(await req.readBody(MAX_BODY_BYTES));
    const key = generateKey();
    const account = await store.register(email, hashKey(key), now);
    const body = Buffer.from(JSON.stringify({ api_key: key, email, schema_version: '1.0' }));
    return response(201, ['Content-Type', JSON_TYPE, 'Content-Length', String(body.length), 'Cache-Control', 'no-store'], body, account.id);
  }

  /** Store failures and expected errors become responses; anything else is the server's to log (a 500). */
  function failure(err: unknown, head: boolean): GatewayResponse {
    if (err instanceof HttpError) return errorResponse(err, NO_EXTRA, head);
    if (err instanceof StoreUnavailableError) return errorResponse(storeUnavailable, ['Retry-After', STORE_RETRY_SECONDS], head);
    throw err;
  }

  /**
   * Answers at once when the store does (the embedded store always does), so the common request
   * costs no promise and no extra turn; a store that answers through a promise (Redis) is awaited.
   * `now` is the request's time, read once (the server logs the request with it too).
   */
  function handle(req: GatewayRequest, now = clock()): GatewayResponse | Promise<GatewayResponse> {
    const head = req.method === 'HEAD';
    try {
      const site = opts.site.current; // one build for the whole request
      const r = route(req.method, req.url, site);
      switch (r.endpoint) {
        case null:
          return errorResponse(r.error, NO_EXTRA, head);
        case 'health':
          return health(site, head);
        case 'public': {
          const doc = site.routes.get(r.key);
          if (!doc) return errorResponse(NOT_FOUND, NO_EXTRA, head);
          return noneMatch(req.headers['if-none-match'], doc) ? notModified(doc, req, null, now) : serve(doc, req, head, null, now);
        }
        case 'register':
          return register(req, now).catch((err: unknown) => failure(err, head));
      }
      // A data endpoint: the key, then the limit (decisions.md §3).
      const raw = req.headers['x-api-key'];
      if (raw === undefined || raw === '') return errorResponse(missingKey, NO_EXTRA, head);
      if (typeof raw !== 'string') return errorResponse(invalidKey, NO_EXTRA, head);
      const resource = r.resource ?? (r.key === undefined ? undefined : site.routes.get(r.key));
      const known = store.cachedAccount(raw);
      if (known) return authorised(known, resource, r.error, req, now, head);
      // The checksum refuses made-up keys before any lookup or hashing.
      if (!isWellFormedKey(raw)) return errorResponse(invalidKey, NO_EXTRA, head);
      const account = store.findByKey(raw);
      if (account instanceof Promise) {
        return account.then((a) => authorised(a, resource, r.error, req, now, head)).catch((err: unknown) => failure(err, head));
      }
      return authorised(account, resource, r.error, req, now, head);
    } catch (err) {
      return failure(err, head);
    }
  }

  function authorised(account: Account | null, resource: Resource | undefined, error: HttpError | undefined, req: GatewayRequest, now: number, head: boolean) {
    if (!account) return errorResponse(invalidKey, NO_EXTRA, head);
    if (resource && noneMatch(req.headers['if-none-match'], resource)) {
      const d = store.requests.peek(account.id, now); // a 304 is not counted
      if (d instanceof Promise) return d.then((x) => revalidated(x, account.id, resource, req, now, head)).catch((err: unknown) => failure(err, head));
      return revalidated(d, account.id, resource, req, now, head);
    }
    const d = store.requests.hit(account.id, now);
    if (d instanceof Promise) return d.then((x) => counted(x, account.id, resource, error, req, now, head)).catch((err: unknown) => failure(err, head));
    return counted(d, account.id, resource, error, req, now, head);
  }

  function revalidated(d: Decision, account: string, resource: Resource, req: GatewayRequest, now: number, head: boolean): GatewayResponse {
    if (!d.allowed) return tooMany(rateLimited, d, now, head, account);
    return notModified(resource, req, d, now, account);
  }

  function counted(d: Decision, account: string, resource: Resource | undefined, error: HttpError | undefined, req: GatewayRequest, now: number, head: boolean): GatewayResponse {
    if (!d.allowed) return tooMany(rateLimited, d, now, head, account);
    if (!resource) return limitedError(error ?? NOT_FOUND, d, now, false, head, account);
    return serve(resource, req, head, d, now, account);
  }

  return { handle };
}
export type App = ReturnType<typeof createApp>;
