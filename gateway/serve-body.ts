// Serving a precomputed body (docs/contract.md, Authentication and limits): for data, the key,
// then the hourly limit, then the variant the client accepts; for a public body, the variant at
// once. A data request, top-down: data → authorised → counted or revalidated → serve.
import type { Readable } from 'node:stream';
import { API_KEY_FIELD, ORIGIN_PLACEHOLDER } from '../build/site-format.ts';
import type { TrustProxy } from './client-address.ts';
import { requestOrigin } from './client-address.ts';
import { ERRORS, type HttpError, unknownKeyErrors } from './errors.ts';
import { Exchange, type Handler, type Reply, then } from './exchange.ts';
import { filledPage } from './filled-pages.ts';
import { isRepeatedKey, isWellFormedKey } from './keys.ts';
import { createVariantChooser, precondition } from './negotiate.ts';
import { type Decision, refunded } from './rate-limit.ts';
import { createRateLimitHeaders } from './rate-limit-headers.ts';
import type { BodyLoader, Resource, Variant } from './resource.ts';
import { errorResponse, type GatewayResponse, preparedError, response } from './responses.ts';
import type { Account, Store } from './store/types.ts';

/** A body read when asked; a plain form unzipped from the origin's gzip file fails as a file proxied does. */
function loaded(
  load: BodyLoader,
  sent: (body: Readable) => GatewayResponse,
  failed: ((err: HttpError) => GatewayResponse) | null,
): Promise<GatewayResponse> {
  return load().then(sent, (err: unknown) => {
    if (failed && (err === ERRORS.upstreamFailed || err === ERRORS.upstreamTimeout)) return failed(err as HttpError);
    throw err;
  });
}

/**
 * The answer when the origin fails a counted request (502, 504): the service did not answer it,
 * so it is taken back from the key's hour (docs/contract.md, Authentication and limits), and the
 * rate-limit headers say so.
 */
function upstreamFailureOf(
  store: Store,
  rateLimitHeaders: ReturnType<typeof createRateLimitHeaders>['rateLimitHeaders'],
) {
  return (x: Exchange, d: Decision) =>
    (err: HttpError): GatewayResponse => {
      const { holder } = x;
      if (holder) void Promise.resolve(store.requests.refund(holder.keyId, d, holder)).catch(() => {});
      const p = preparedError(err);
      return response(err.status, rateLimitHeaders(refunded(d), x.now, p.headers), p.body, x.account);
    };
}

export function createBodyServing(opts: { store: Store; trustProxy: TrustProxy }) {
  const { store, trustProxy } = opts;
  const chooseVariant = createVariantChooser();
  const { rateLimitHeaders, retryHeaders } = createRateLimitHeaders();
  const unknownKey = unknownKeyErrors();

  /** The variant the client accepts, with the rate-limit headers after its own when counted. */
  function serve(x: Exchange, resource: Resource, d: Decision | null): Reply {
    const variant = x.variant ?? chooseVariant(resource, x.req.headers['accept-encoding']);
    const headers = d ? rateLimitHeaders(d, x.now, variant.headers) : variant.headers;
    if (x.head) return response(200, headers, null, x.account);
    if (variant.body !== null) return response(200, headers, variant.body, x.account);
    // not held: read from disk when asked (body-reader.ts), or fetched from the upstream origin
    if (variant.load) {
      const sent = loaded(variant.load, (body) => response(200, headers, body, x.account), d && upstreamFailure(x, d));
      return then(x, sent, (_, r) => r);
    }
    return response(200, headers, null, x.account, variant.path!, d && upstreamFailure(x, d));
  }

  /** RFC 9110 §15.4.5: a 304 carries the ETag and caching the 200 to the same request would. */
  function notModified(x: Exchange, variant: Variant, d: Decision | null): GatewayResponse {
    const h = variant.notModifiedHeaders;
    return response(304, d ? rateLimitHeaders(d, x.now, h) : h, null, x.account);
  }

  const upstreamFailure = upstreamFailureOf(store, rateLimitHeaders);

  /** An error after the request was counted (or refused): its headers, then the rate-limit ones. */
  function countedError(x: Exchange, err: HttpError, d: Decision): GatewayResponse {
    const p = preparedError(err);
    const headers = d.allowed ? rateLimitHeaders(d, x.now, p.headers) : retryHeaders(d, x.now, p.headers);
    return response(err.status, headers, x.head ? null : p.body, x.account);
  }

  /** A 304 costs nothing, also when the key's hour is spent: a sync must not fail for it. */
  const revalidated = (x: Exchange, d: Decision): GatewayResponse => notModified(x, x.variant!, d);

  function counted(x: Exchange, d: Decision): Reply {
    if (!d.allowed) return countedError(x, ERRORS.rateLimited, d);
    if (!x.resource) return countedError(x, x.error ?? ERRORS.notFound, d);
    if (x.precondition === 'failed') return countedError(x, ERRORS.preconditionFailed, d);
    return serve(x, x.resource, d);
  }

  function authorised(x: Exchange, account: Account | null): Reply {
    if (!account) return errorResponse(unknownKey(store.status.keysLostSince), x.head);
    x.account = account.id;
    x.holder = account;
    const { resource, req } = x;
    if (resource) {
      x.variant = chooseVariant(resource, req.headers['accept-encoding']);
      x.precondition = precondition(req.headers, resource, x.variant);
    }
    // a 304 is not counted; a key's quota is its own (its account holds its window: one lookup a request)
    const { requests } = store;
    if (x.precondition === 'not_modified') return then(x, requests.peek(account.keyId, x.now, account), revalidated);
    return then(x, requests.hit(account.keyId, x.now, account), counted);
  }

  /** A data endpoint: the key, then the limit (docs/contract.md, Authentication and limits). */
  const data: Handler<'data'> = (req, now, head, r, site) => {
    const raw = req.headers[API_KEY_FIELD];
    if (raw === undefined || raw === '') return errorResponse(ERRORS.missingKey, head);
    if (typeof raw !== 'string') return errorResponse(ERRORS.repeatedKey, head);
    const known = store.cachedAccount(raw);
    // The checksum refuses made-up keys before any hashing, lookup or allocation.
    if (!known && !isWellFormedKey(raw))
      return errorResponse(isRepeatedKey(raw) ? ERRORS.repeatedKey : ERRORS.invalidKey, head);
    const resource = r.resource ?? (r.key === undefined ? undefined : site.routes.get(r.key));
    const x = new Exchange(req, now, head, resource, r.error);
    return known ? authorised(x, known) : then(x, store.findByKey(raw), authorised);
  };

  /** A body anyone may read: a page (filled per origin when PUBLIC_URL is unset), the document, a file. */
  const publicBody: Handler<'public'> = (req, now, head, r, site) => {
    const page = site.pages.get(r.key);
    const doc = page
      ? filledPage(page, requestOrigin(req, trustProxy, ORIGIN_PLACEHOLDER), now)
      : site.routes.get(r.key);
    if (!doc) return errorResponse(ERRORS.notFound, head);
    const variant = chooseVariant(doc, req.headers['accept-encoding']);
    const decided = precondition(req.headers, doc, variant);
    if (decided === 'failed') return errorResponse(ERRORS.preconditionFailed, head);
    const x = new Exchange(req, now, head, doc, undefined);
    x.variant = variant;
    return decided === 'not_modified' ? notModified(x, variant, null) : serve(x, doc, null);
  };

  return { data, public: publicBody };
}
