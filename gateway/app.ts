// The gateway's core, callable without a socket: a request → an answer from the precomputed
// table, after the key and the hourly limit are checked (docs/contract.md, Authentication and
// limits). server.ts wires it to node:http. Each kind of handler of the route table has its entry in
// one map the compiler holds complete; the bodies' are in serve-body.ts.
import type { HandlerKind } from '../build/site-format.ts';
import type { Config } from './config.ts';
import { CROSS_ORIGIN_HEADERS, optionsResponse } from './cors.ts';
import { ERRORS } from './errors.ts';
import { failure, type Handler, type Reply } from './exchange.ts';
import { createHealth } from './health.ts';
import type { Mailer } from './mail.ts';
import type { Metrics } from './metrics.ts';
import { createMetricsPage } from './metrics-page.ts';
import { untaggedMatchFails } from './negotiate.ts';
import { notFoundPage, wantsPage } from './not-found-page.ts';
import { createRecovery } from './recovery.ts';
import { createRegistration } from './registration.ts';
import { MAX_TARGET_BYTES } from './request-target.ts';
import { errorResponse, type GatewayRequest, type GatewayResponse, response } from './responses.ts';
import { createRevoke } from './revoke.ts';
import { route } from './routes.ts';
import { createBodyServing } from './serve-body.ts';
import type { SiteHolder } from './site-watch.ts';
import type { Store } from './store/types.ts';
import { createTufMetadataServing, type TufHolder } from './tuf-metadata.ts';

export type { Reply } from './exchange.ts';
export type { GatewayRequest, GatewayResponse } from './responses.ts';

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
  /** The signed editions' metadata (tuf-metadata.ts); none: /tuf/metadata/ answers 404. */
  tuf?: TufHolder | null;
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
  tuf_metadata: true,
};

/** /health, which any page may read (cors.ts): its answer is made per change, its CORS headers added here. */
const readableAnywhere = (r: GatewayResponse) =>
  response(r.status, r.headers.concat(CROSS_ORIGIN_HEADERS), r.body, r.account);

/** A folder's address without its slash (`/tables`) moves for good: caches may keep the redirect a day. */
const REDIRECT = ['Cache-Control', 'public, max-age=86400'];

export function createApp(opts: AppOptions) {
  const { store, clock } = opts;
  const { trustProxy } = opts.config;
  const bodies = createBodyServing({ store, trustProxy });
  const { register, registerForm } = createRegistration({ store, trustProxy: opts.config.trustProxy, site: opts.site });
  const recovery = createRecovery({
    store,
    trustProxy,
    site: opts.site,
    mailer: opts.mailer,
    linkOrigin: () => opts.config.publicUrl ?? opts.ownOrigin(),
    log: opts.log,
  });
  const health = createHealth(opts.site, store.status, opts.mailer.status, opts.tuf ?? null, clock);
  const revoke = createRevoke({ store });
  const metricsPage = createMetricsPage(opts.metrics ?? null);

  /** Every kind of handler in the route table (site-format.ts, HandlerKind), each with its own. */
  const handlers = {
    ...bodies,
    register: (req, now, head) => register(req, now).catch((err: unknown) => failure(err, head)),
    register_form: (req, now) => registerForm(req, now),
    revoke: (req, now) => revoke(req, now),
    recover: (req, now, head) => recovery.request(req, now).catch((err: unknown) => failure(err, head)),
    recover_confirm: (req, now, head) => recovery.confirm(req, now).catch((err: unknown) => failure(err, head)),
    recover_page: (req, now) => recovery.page(req, now),
    health: (_req, _now, head) => readableAnywhere(health(head)),
    metrics: (req, _now, head) => metricsPage(req, head),
    tuf_metadata: createTufMetadataServing(opts.tuf ?? null),
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
      if (r.handler === null)
        return r.error.status === 404 && wantsPage(req) ? notFoundPage(head) : errorResponse(r.error, head);
      if (r.handler === 'options') return optionsResponse(r.allow, r.crossOrigin, req.headers.origin);
      if (r.handler === 'redirect')
        return response(301, ['Location', r.location, 'Content-Length', '0', ...REDIRECT], null);
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
