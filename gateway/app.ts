// The gateway's core, callable without a socket: a request → an answer from the precomputed
// table, after the key and the hourly limit are checked (docs/contract.md, Authentication and
// limits). server.ts wires it to node:http. Each kind of handler of the route table has its entry in
// one map the compiler holds complete. A data request, top-down: handle → authorised → counted or revalidated → serve.
import { API_KEY_FIELD, type HandlerKind, ORIGIN_PLACEHOLDER } from '../build/site-format.ts';
import { requestOrigin } from './client-address.ts';
import type { Config } from './config.ts';
import { ERRORS, HttpError, unknownKeyErrors } from './errors.ts';
import { filledPage } from './filled-pages.ts';
import { createHealth } from './health.ts';
import { hashKey, isWellFormedKey } from './keys.ts';
import type { Mailer } from './mail.ts';
import type { Metrics } from './metrics.ts';
import {
  createVariantChooser,
  matchedVariant,
  type Precondition,
  precondition,
  untaggedMatchFails,
} from './negotiate.ts';
import { type Decision, refunded } from './rate-limit.ts';
import { createRateLimitHeaders } from './rate-limit-headers.ts';
import { createRecovery } from './recovery.ts';
import { createRegistration } from './registration.ts';
import { MAX_TARGET_BYTES } from './request-target.ts';
import type { Resource } from './resource.ts';
import { errorResponse, type GatewayRequest, type GatewayResponse, preparedError, response } from './responses.ts';
import type { Routed } from './routed.ts';
import { route } from './routes.ts';
import type { Site } from './site.ts';
import type { SiteHolder } from './site-watch.ts';
import type { Account, Store } from './store/types.ts';
import { storeErrorOf } from './store-errors.ts';

export type { GatewayRequest, GatewayResponse } from './responses.ts';
/** What a handler gives: a response, at once or (a store that answers later, a mail) through a promise. */
export type Reply = GatewayResponse | Promise<GatewayResponse>;

/** The handler of one kind of route: the request, its time, whether it is a HEAD, how it was routed, the build. */
type Handler<K extends HandlerKind> = (
  req: GatewayRequest,
  now: number,
  head: boolean,
  routed: Extract<Routed, { handler: K }>,
  site: Site,
) => Reply;

export interface AppOptions {
  config: Pick<Config, 'trustProxy' | 'publicUrl'>;
  site: SiteHolder;
  store: Store;
  clock: () => number;
  /** Recovery mails (SMTP_URL, or the outbox). */
  mailer: Mailer;
  /** The gateway's own origin, for recovery links when PUBLIC_URL is not set (known once it listens). */
  ownOrigin: () => string;
  log: (fields: Record<string, unknown>) => void;
  /** GET /metrics, when METRICS_TOKEN is set. */
  metrics?: Metrics | null;
}

export const INTERNAL_ERROR = errorResponse(ERRORS.internal);

/**
 * The handlers that decide If-Match before they run, by whether a GET answers at their path
 * (negotiate.ts, untaggedMatchFails). Revoking and /metrics decide it once the key or token is
 * known: a request refused without the condition is refused the same with it (RFC 9110 §13.2.1).
 */
const REPRESENTED: Partial<Record<HandlerKind, boolean>> = {
  register: false,
  register_form: false,
  recover: false,
  recover_confirm: false,
  recover_page: true,
  health: true,
};
const REVOKED = response(204, ['Cache-Control', 'no-store'], null);

/** A request for a body while it is decided: what every step needs, read once. */
class Exchange {
  /** The account served, once the key is known (for the log line). */
  account: string | null = null;
  /** The key's account, once known: whose hour a refund goes back to. */
  holder: Account | null = null;
  /** What If-Match and If-None-Match decide, once the key is known (precondition, negotiate.ts). */
  precondition: Precondition = 'proceed';
  constructor(
    readonly req: GatewayRequest,
    readonly now: number,
    readonly head: boolean,
    /** The body to serve, or undefined when `error` is the answer once the key is checked. */
    readonly resource: Resource | undefined,
    readonly error: HttpError | undefined,
  ) {}
}

/**
 * Expected errors and store outages become answers; anything else is the server's to log (a 500).
 * `unsaved`: the answer when the store could not write what the request asked it to.
 */
function failure(err: unknown, head: boolean, unsaved: HttpError = ERRORS.cannotSaveKeys): GatewayResponse {
  if (err instanceof HttpError) return errorResponse(err, head);
  const stored = storeErrorOf(err, unsaved);
  if (stored) return errorResponse(stored, head);
  throw err;
}

/**
 * The one seam between stores that answer at once (SQLite) and through a promise (Redis): the
 * common request costs no promise and no extra turn, and a late answer's failure is answered too.
 */
function then<T>(x: Exchange, value: T | Promise<T>, next: (x: Exchange, value: T) => Reply): Reply {
  if (!(value instanceof Promise)) return next(x, value);
  return value.then((v) => next(x, v)).catch((err: unknown) => failure(err, x.head));
}

export function createApp(opts: AppOptions) {
  const { store, clock } = opts;
  const { trustProxy } = opts.config;
  const chooseVariant = createVariantChooser();
  const { rateLimitHeaders, retryHeaders } = createRateLimitHeaders();
  const { register, registerForm } = createRegistration({ store, trustProxy: opts.config.trustProxy, site: opts.site });
  const recovery = createRecovery({
    store,
    trustProxy,
    site: opts.site,
    mailer: opts.mailer,
    linkOrigin: () => opts.config.publicUrl ?? opts.ownOrigin(),
    log: opts.log,
  });
  const health = createHealth(opts.site, store.status, opts.mailer.status);
  const unknownKey = unknownKeyErrors();

  /** The variant the client accepts, with the rate-limit headers after its own when counted. */
  function serve(x: Exchange, resource: Resource, d: Decision | null): GatewayResponse {
    const variant = chooseVariant(resource, x.req.headers['accept-encoding']);
    const headers = d ? rateLimitHeaders(d, x.now, variant.headers) : variant.headers;
    if (x.head) return response(200, headers, null, x.account);
    if (variant.body === null)
      return response(200, headers, null, x.account, variant.path!, d && upstreamFailure(x, d));
    return response(200, headers, variant.body, x.account);
  }

  function notModified(x: Exchange, resource: Resource, d: Decision | null): GatewayResponse {
    const { headers } = x.req;
    const variant =
      matchedVariant(headers['if-none-match'], resource) ?? chooseVariant(resource, headers['accept-encoding']);
    const h = variant.notModifiedHeaders;
    return response(304, d ? rateLimitHeaders(d, x.now, h) : h, null, x.account);
  }

  /**
   * The answer when the origin fails a counted request (502, 504): the service did not answer it,
   * so it is taken back from the key's hour (docs/contract.md, Authentication and limits), and the
   * rate-limit headers say so.
   */
  const upstreamFailure =
    (x: Exchange, d: Decision) =>
    (err: HttpError): GatewayResponse => {
      const { holder } = x;
      if (holder) void Promise.resolve(store.requests.refund(holder.keyId, d, holder)).catch(() => {});
      const p = preparedError(err);
      return response(err.status, rateLimitHeaders(refunded(d), x.now, p.headers), p.body, x.account);
    };

  /** An error after the request was counted (or refused): its headers, then the rate-limit ones. */
  function countedError(x: Exchange, err: HttpError, d: Decision): GatewayResponse {
    const p = preparedError(err);
    const headers = d.allowed ? rateLimitHeaders(d, x.now, p.headers) : retryHeaders(d, x.now, p.headers);
    return response(err.status, headers, x.head ? null : p.body, x.account);
  }

  /** A 304 costs nothing, also when the key's hour is spent: a sync must not fail for it. */
  const revalidated = (x: Exchange, d: Decision): GatewayResponse => notModified(x, x.resource!, d);

  function counted(x: Exchange, d: Decision): GatewayResponse {
    if (!d.allowed) return countedError(x, ERRORS.rateLimited, d);
    if (!x.resource) return countedError(x, x.error ?? ERRORS.notFound, d);
    if (x.precondition === 'failed') return countedError(x, ERRORS.preconditionFailed, d);
    return serve(x, x.resource, d);
  }

  function authorised(x: Exchange, account: Account | null): Reply {
    if (!account) return errorResponse(unknownKey(store.status.keysLostSince), x.head);
    x.account = account.id;
    x.holder = account;
    if (x.resource) x.precondition = precondition(x.req.headers, x.resource);
    // a 304 is not counted; a key's quota is its own (its account holds its window: one lookup a request)
    const { requests } = store;
    if (x.precondition === 'not_modified') return then(x, requests.peek(account.keyId, x.now, account), revalidated);
    return then(x, requests.hit(account.keyId, x.now, account), counted);
  }

  /**
   * GET /metrics: without METRICS_TOKEN configured and sent as a bearer token, an unknown path;
   * never counted against a key.
   */
  function metricsPage(req: GatewayRequest, head: boolean): Reply {
    const { metrics } = opts;
    if (!metrics?.allows(req.headers.authorization)) return errorResponse(ERRORS.notFound, head);
    if (req.method !== 'GET' && !head) return errorResponse(ERRORS.notAllowedGet);
    if (untaggedMatchFails(req.headers['if-match'], true)) return errorResponse(ERRORS.preconditionFailed, head);
    return metrics.render().then((text) => {
      const body = Buffer.from(text);
      const headers = [
        'Content-Type',
        metrics.contentType,
        'Content-Length',
        String(body.length),
        'Cache-Control',
        'no-store',
      ];
      return response(200, headers, head ? null : body);
    });
  }

  /** DELETE /api/keys/current: the key sent is revoked (204), and is refused from then on. */
  function revoke(req: GatewayRequest, now: number): Reply {
    const raw = req.headers[API_KEY_FIELD];
    if (raw === undefined || raw === '') return errorResponse(ERRORS.missingKey);
    if (typeof raw !== 'string' || !isWellFormedKey(raw)) return errorResponse(ERRORS.invalidKey);
    const unknown = () => errorResponse(unknownKey(store.status.keysLostSince));
    const done = (revoked: boolean) => (revoked ? REVOKED : unknown());
    try {
      // a false If-Match revokes nothing: a 412 for a live key, the 401 it would get anyway for another
      if (untaggedMatchFails(req.headers['if-match'], false)) {
        const found = store.findByKey(raw);
        const refused = (a: Account | null) => (a ? errorResponse(ERRORS.preconditionFailed) : unknown());
        return found instanceof Promise
          ? found.then(refused).catch((err: unknown) => failure(err, false))
          : refused(found);
      }
      const revoked = store.revokeKey(hashKey(raw), now);
      if (!(revoked instanceof Promise)) return done(revoked);
      return revoked.then(done).catch((err: unknown) => failure(err, false, ERRORS.cannotSaveRevocation));
    } catch (err) {
      return failure(err, false, ERRORS.cannotSaveRevocation);
    }
  }

  /** Every kind of handler in the route table (site-format.ts, HandlerKind), each with its own. */
  const handlers = {
    // A data endpoint: the key, then the limit (docs/contract.md, Authentication and limits).
    data(req, now, head, r, site) {
      const raw = req.headers[API_KEY_FIELD];
      if (raw === undefined || raw === '') return errorResponse(ERRORS.missingKey, head);
      if (typeof raw !== 'string') return errorResponse(ERRORS.invalidKey, head);
      const known = store.cachedAccount(raw);
      // The checksum refuses made-up keys before any hashing, lookup or allocation.
      if (!known && !isWellFormedKey(raw)) return errorResponse(ERRORS.invalidKey, head);
      const resource = r.resource ?? (r.key === undefined ? undefined : site.routes.get(r.key));
      const x = new Exchange(req, now, head, resource, r.error);
      return known ? authorised(x, known) : then(x, store.findByKey(raw), authorised);
    },
    public(req, now, head, r, site) {
      const page = site.pages.get(r.key);
      const doc = page
        ? filledPage(page, requestOrigin(req, trustProxy, ORIGIN_PLACEHOLDER), now)
        : site.routes.get(r.key);
      if (!doc) return errorResponse(ERRORS.notFound, head);
      const decided = precondition(req.headers, doc);
      if (decided === 'failed') return errorResponse(ERRORS.preconditionFailed, head);
      const x = new Exchange(req, now, head, doc, undefined);
      return decided === 'not_modified' ? notModified(x, doc, null) : serve(x, doc, null);
    },
    register: (req, now, head) => register(req, now).catch((err: unknown) => failure(err, head)),
    register_form: (req, now) => registerForm(req, now),
    revoke: (req, now) => revoke(req, now),
    recover: (req, now, head) => recovery.request(req, now).catch((err: unknown) => failure(err, head)),
    recover_confirm: (req, now, head) => recovery.confirm(req, now).catch((err: unknown) => failure(err, head)),
    recover_page: (req, now) => recovery.page(req, now),
    health: (_req, _now, head) => health(head),
    metrics: (req, _now, head) => metricsPage(req, head),
  } satisfies { [K in HandlerKind]: Handler<K> };

  /** `now` is the request's time, read once (the server logs the request with it too). */
  function handle(req: GatewayRequest, now = clock()): Reply {
    const head = req.method === 'HEAD';
    try {
      // RFC 9112 §3: a target longer than any URL of the service is a 414 (request-target.ts)
      if (req.url.length > MAX_TARGET_BYTES) return errorResponse(ERRORS.uriTooLong, head);
      const site = opts.site.current; // one build for the whole request
      const r = route(req.method, req.url, site);
      req.row = r.row;
      if (r.handler === null) return errorResponse(r.error, head);
      const represented = REPRESENTED[r.handler];
      if (represented !== undefined && untaggedMatchFails(req.headers['if-match'], represented))
        return errorResponse(ERRORS.preconditionFailed, head);
      // the map is complete (satisfies, above): the route's kind picks its handler
      return (handlers[r.handler] as Handler<HandlerKind>)(req, now, head, r, site);
    } catch (err) {
      return failure(err, head);
    }
  }

  return { handle };
}
export type App = ReturnType<typeof createApp>;
