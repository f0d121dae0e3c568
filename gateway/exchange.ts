// What a handler is, and the one seam every handler that waits on the store or the disk goes
// through: a value at once or by a promise, and a failure become an answer (docs/contract.md,
// Errors and HTTP). Written once here for the app (app.ts) and the body's serving (serve-body.ts).
import type { HandlerKind } from '../build/site-format.ts';
import { ERRORS, HttpError } from './errors.ts';
import type { Precondition } from './negotiate.ts';
import type { Resource, Variant } from './resource.ts';
import { errorResponse, type GatewayRequest, type GatewayResponse } from './responses.ts';
import type { Routed } from './routed.ts';
import type { Site } from './site.ts';
import type { Account } from './store/types.ts';
import { storeErrorOf } from './store-errors.ts';

/** What a handler gives: a response, at once or (a store that answers later, a mail) through a promise. */
export type Reply = GatewayResponse | Promise<GatewayResponse>;

/** The handler of one kind of route: the request, its time, whether it is a HEAD, how it was routed, the build. */
export type Handler<K extends HandlerKind> = (
  req: GatewayRequest,
  now: number,
  head: boolean,
  routed: Extract<Routed, { handler: K }>,
  site: Site,
) => Reply;

/** A request for a body while it is decided: what every step needs, read once. */
export class Exchange {
  /** The account served, once the key is known (for the log line). */
  account: string | null = null;
  /** The key's account, once known: whose hour a refund goes back to. */
  holder: Account | null = null;
  /** What If-Match and If-None-Match decide, once the key is known (precondition, negotiate.ts). */
  precondition: Precondition = 'proceed';
  /** The encoding a 200 would send (negotiate.ts), once chosen: the 304 names its ETag. */
  variant: Variant | undefined = undefined;
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
export function failure(err: unknown, head: boolean, unsaved: HttpError = ERRORS.cannotSaveKeys): GatewayResponse {
  if (err instanceof HttpError) return errorResponse(err, head);
  const stored = storeErrorOf(err, unsaved);
  if (stored) return errorResponse(stored, head);
  throw err;
}

/**
 * The one seam between what answers at once (SQLite, a body held or cached) and through a promise
 * (Redis, a body read from disk): the common request costs no promise and no extra turn, and a
 * late answer's failure is answered too.
 */
export function then<T>(x: Exchange, value: T | Promise<T>, next: (x: Exchange, value: T) => Reply): Reply {
  if (!(value instanceof Promise)) return next(x, value);
  return value.then((v) => next(x, v)).catch((err: unknown) => failure(err, x.head));
}
