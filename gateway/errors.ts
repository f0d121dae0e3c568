// One error type and the catalogue of every error the gateway answers: each status and sentence is
// written here once (docs/contract.md, Errors and HTTP: `{error, status, schema_version}`, a sentence a person can
// act on). Expected errors become these responses; anything else is logged and answered with the
// plain 500 below, with nothing inside. test/error-catalogue.test.ts holds the catalogue against
// the OpenAPI document.

import {
  API_KEY_HEADER,
  AUTH_CHALLENGE,
  type CatalogueName,
  CHANGELOG_MAX_LIMIT,
  EMAIL_MAX_LENGTH,
  type ERROR_STATUS,
  type ErrorCode,
  JSON_MEDIA_TYPE,
  LIVE_KEYS_PER_ACCOUNT,
  RECOVERY_MAILS_PER_HOUR,
  RECOVERY_TOKEN_MINUTES,
  REGISTRATION_BODY_BYTES,
  ROUTES,
  SCHEMA_VERSION,
} from '../build/site-format.ts';
import { MAX_HEADER_BYTES } from './config.ts';
import { type Decision, retryAfterSeconds } from './rate-limit.ts';
import { MAX_TARGET_BYTES } from './request-target.ts';

export class HttpError<S extends number = number> extends Error {
  /** The stable name a program branches on (docs/contract.md, Errors and HTTP); set from the catalogue. */
  code: ErrorCode = 'internal';
  constructor(
    /** A literal in the catalogue, so that the compiler holds it to the code's status (ERROR_STATUS). */
    readonly status: S,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
  /** The same error with headers made for this answer (a Retry-After counted from now). */
  withHeaders(headers: Readonly<Record<string, string>>): HttpError<S> {
    const e = new HttpError(this.status, this.message, headers);
    e.code = this.code;
    return e;
  }
}

/** docs/contract.md, Errors and HTTP: a 401 names its scheme; RFC 9110 §11.6.1 asks for the challenge. */
const CHALLENGE = { 'WWW-Authenticate': AUTH_CHALLENGE };

/**
 * How long a client waits when the store cannot write (no space, read-only): long enough for an
 * operator to act, short enough that a retry soon finds the store well again (it checks every 2 s).
 */
const WRITE_RETRY_SECONDS = 10;

/** How long a client waits while the key store is being restored: an operator's work, not a blip. */
const RECOVERING_RETRY_SECONDS = 60;

export const methodNotAllowed = (allow: string) =>
  new HttpError(405 as const, `Method not allowed. Use ${allow}.`, { Allow: allow });

/** Every method a path of the service takes: the Allow of `OPTIONS *` and a CONNECT (RFC 9110 §9.3.7, §15.5.6). */
export const SERVER_METHODS = 'GET, HEAD, POST, DELETE, OPTIONS';

export const ERRORS = {
  // Keys and limits (docs/contract.md, Authentication and limits)
  missingKey: new HttpError(
    401,
    `An API key is required: send it in the ${API_KEY_HEADER} header. ` +
      `Get a free key with POST ${ROUTES.register.path}.`,
    CHALLENGE,
  ),
  invalidKey: new HttpError(
    401,
    'The API key is not valid (unknown, mistyped or revoked). ' +
      `Register again with POST ${ROUTES.register.path} to get a new key.`,
    CHALLENGE,
  ),
  keyInQuery: new HttpError(
    400,
    `API keys are never accepted in the URL. Send the key in the ${API_KEY_HEADER} header, and replace this key: ` +
      'it may have been logged along the way.',
  ),
  repeatedKey: new HttpError(
    400,
    `${API_KEY_HEADER} holds more than one value (the header sent twice, or keys joined by a comma): ` +
      'send the header once, with one key.',
  ),
  rateLimited: new HttpError(
    429,
    'Hourly request limit reached for this key. Retry after the number of seconds in Retry-After.',
  ),
  keysLost: new HttpError(
    401,
    'The API key is not valid (unknown, mistyped or revoked). The key store lost its data once: a key issued ' +
      `before then no longer works. Register again with POST ${ROUTES.register.path}, or get a key back for ` +
      `your address at ${ROUTES.recoverPage.path}.`,
    CHALLENGE,
  ),
  // Paths and queries (docs/contract.md, Errors and HTTP)
  unknownGrain: new HttpError(404, `Grain id not found. GET ${ROUTES.grains.path} lists the available grain ids.`),
  notFound: new HttpError(404, `Not found. The API is described at GET ${ROUTES.openapi.path}.`),
  badLimit: new HttpError(400, `limit must be a whole number from 1 to ${CHANGELOG_MAX_LIMIT}.`),
  repeatedParam: new HttpError(400, 'A query parameter is repeated; send each parameter once.'),
  badCropYear: new HttpError(400, 'crop_year must be a crop year written like 2025/26 (the slash may be sent as %2F).'),
  unknownCropYear: new HttpError(
    404,
    'This grain class was not published for that crop year. Its record lists its current effective_crop_year; ' +
      `GET ${ROUTES.changelog.path} lists every crop year's changes.`,
  ),
  badQuery: new HttpError(400, 'The URL is not valid percent-encoding: a % must start a UTF-8 byte in two hex digits.'),
  uriTooLong: new HttpError(
    414,
    `The URL's path and query are longer than ${MAX_TARGET_BYTES / 1024} KiB; no URL of the service is that long.`,
  ),
  preconditionFailed: new HttpError(
    412,
    'If-Match names no current representation of this resource, so nothing was done: send the ETag it ' +
      'answers now, or no If-Match where it has none.',
  ),
  notAllowedGet: methodNotAllowed('GET, HEAD'),
  notAllowedPost: methodNotAllowed('POST'),
  notAllowedDelete: methodNotAllowed('DELETE'),
  // Registration (docs/contract.md, Keys and registration)
  registerLimited: new HttpError(
    429,
    'Too many keys were issued to this address this hour. Retry after the number of seconds in Retry-After.',
  ),
  registerAttemptsLimited: new HttpError(
    429,
    'Too many registration attempts from this address this hour, most of them refused. Check the request, ' +
      'then retry after the number of seconds in Retry-After.',
  ),
  tooManyKeys: new HttpError(
    409,
    `This e-mail address already holds ${LIVE_KEYS_PER_ACCOUNT} live keys, the most an account may hold. ` +
      `Revoke one you no longer use with DELETE ${ROUTES.revokeKey.path} (sending that key in ${API_KEY_HEADER}), ` +
      `or send a live key of this account in ${API_KEY_HEADER} with this registration to replace it. ` +
      `Lost them? POST ${ROUTES.recover.path} (or the page ${ROUTES.recoverPage.path}) mails the address a link ` +
      'that revokes them all and issues one new key.',
  ),
  // Getting a key back (docs/contract.md, Getting a key back)
  recoveryMailsLimited: new HttpError(
    429,
    `Recovery links were asked for this e-mail address ${RECOVERY_MAILS_PER_HOUR} times this hour. Use the ` +
      'newest mail, or retry after the number of seconds in Retry-After.',
  ),
  recoveryAddressLimited: new HttpError(
    429,
    'Too many recovery links were asked for from this network address this hour. Retry after the number of ' +
      'seconds in Retry-After.',
  ),
  badRecoveryJson: new HttpError(
    400,
    'The body must be a JSON object with a "token" string: the token of the link in the recovery mail.',
  ),
  recoveryTokenUnknown: new HttpError(
    400,
    'This recovery link is not one we sent, or it was copied incompletely. ' +
      `Ask for a new one at ${ROUTES.recoverPage.path}.`,
  ),
  recoveryTokenUsed: new HttpError(
    400,
    `This recovery link was already used: it works once. Ask for a new one at ${ROUTES.recoverPage.path} if you ` +
      'need another key.',
  ),
  recoveryTokenExpired: new HttpError(
    400,
    `This recovery link has expired: links work for ${RECOVERY_TOKEN_MINUTES} minutes. Ask for a new one at ` +
      `${ROUTES.recoverPage.path}.`,
  ),
  recoveryTokenSuperseded: new HttpError(
    400,
    'A newer recovery link was sent to this address since, and only the newest one works: use the link in the ' +
      'latest mail.',
  ),
  unsupportedType: new HttpError(415, `Send the body as JSON (Content-Type: ${JSON_MEDIA_TYPE}).`),
  unsupportedFormType: new HttpError(
    415,
    "The service's forms post as application/x-www-form-urlencoded; " +
      `a program registers with JSON at POST ${ROUTES.register.path}.`,
  ),
  // The front door's form post
  badForm: new HttpError(400, 'The form must send one e-mail address, in its field "email".'),
  crossSiteForm: new HttpError(403, "Keys are issued to forms on this service's own pages only."),
  tooLarge: new HttpError(413, `The request body is larger than ${REGISTRATION_BODY_BYTES / 1024} KiB.`),
  badJson: new HttpError(
    400,
    'The body must be a JSON object with an "email" string, e.g. {"email": "you@example.com"}.',
  ),
  badEmail: new HttpError(
    400,
    'The e-mail address is not valid: it must look like name@example.com and be at most ' +
      `${EMAIL_MAX_LENGTH} characters.`,
  ),
  // The gateway's own dependencies (docs/contract.md, Storage and scale; UPSTREAM_URL)
  cannotSaveKeys: new HttpError(
    503,
    `The service cannot save new keys right now; try again in ${WRITE_RETRY_SECONDS} seconds.`,
    { 'Retry-After': String(WRITE_RETRY_SECONDS) },
  ),
  cannotSaveRevocation: new HttpError(
    503,
    `The service cannot save the revocation right now; try again in ${WRITE_RETRY_SECONDS} seconds.`,
    { 'Retry-After': String(WRITE_RETRY_SECONDS) },
  ),
  storeUnavailable: new HttpError(
    503,
    'The key store is unavailable for the moment. Retry after the number of seconds in Retry-After.',
    { 'Retry-After': '5' },
  ),
  keysRecovering: new HttpError(
    503,
    'The service is restoring its key store after losing data: keys it cannot find now may come back, and no new ' +
      'key is issued until then. Your key is not wrong: retry after the number of seconds in Retry-After.',
    { 'Retry-After': String(RECOVERING_RETRY_SECONDS) },
  ),
  keyNotReplicated: new HttpError(
    503,
    "The new key could not be copied to the service's standby servers in time, so none was issued and nothing " +
      'changed (a recovery link works again). Retry after the number of seconds in Retry-After.',
    { 'Retry-After': '5' },
  ),
  upstreamFailed: new HttpError(502, 'The origin that holds the data did not answer correctly. Retry in a moment.'),
  upstreamTimeout: new HttpError(504, 'The origin that holds the data did not answer in time. Retry in a moment.'),
  internal: new HttpError(500, 'Internal error.'),
  // What never becomes a request: written straight to the socket by server.ts
  badHttp: new HttpError(400, 'The request is not valid HTTP.'),
  headersTooLarge: new HttpError(431, `The request headers are larger than ${MAX_HEADER_BYTES / 1024} KiB.`),
  requestTimeout: new HttpError(408, 'The request took too long to arrive.'),
  connectNotAllowed: new HttpError(405, `The service opens no tunnels. Use ${SERVER_METHODS}.`, {
    Allow: SERVER_METHODS,
  }),
  // one entry for each code of the site format's table (ERROR_STATUS), no other, each with the
  // table's status: the compiler holds them to it
} as const satisfies { readonly [C in ErrorCode as CatalogueName<C>]: HttpError<(typeof ERROR_STATUS)[C]> };

export type ErrorName = keyof typeof ERRORS;

/** Throws `error` with its Retry-After when the window refused: for the handlers that throw refusals. */
export function refuseIfLimited(d: Decision, error: HttpError, now: number): void {
  if (!d.allowed) throw error.withHeaders({ 'Retry-After': String(retryAfterSeconds(d, now)) });
}

/** Each entry's code is its name in lower snake case: missingKey → missing_key (ERROR_CODES). Never renamed. */
export const CODES = Object.fromEntries(
  Object.entries(ERRORS).map(([name, e]) => {
    // the `satisfies` above makes every name a code's camel case, so this is one of ERROR_CODES
    e.code = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) as ErrorCode;
    return [name, e.code];
  }),
) as { readonly [K in ErrorName]: ErrorCode };

/**
 * The 404 for a crop year not published, naming the years there are (docs/contract.md, Crop years):
 * a class's (`grainId`), or any class's for the snapshot (null). Made once per build (site.ts).
 */
export function unknownCropYearOf(grainId: string | null, years: readonly string[]): HttpError {
  const e = new HttpError(
    404,
    grainId
      ? `${grainId} was not published for that crop year; it was for ${years.join(', ')}. ` +
          `Each summary's crop_years (GET ${ROUTES.grains.path}) lists a class's years.`
      : `No grain class was published for that crop year; the service has ${years.join(', ')}. ` +
          `Each summary's crop_years (GET ${ROUTES.grains.path}) lists a class's years.`,
  );
  e.code = ERRORS.unknownCropYear.code;
  return e;
}

/**
 * The 401 for a key the store does not know: after an operator accepted a loss of the key store
 * (`since`, docs/operations.md, Redis in production), one that names that moment; else invalidKey.
 * Each app keeps one of these, so the sentence is made once per loss, not per request.
 */
export function unknownKeyErrors(): (since: number | null) => HttpError {
  let made: { since: number; error: HttpError } | null = null;
  return (since) => {
    if (since === null) return ERRORS.invalidKey;
    if (made?.since !== since) {
      const when = new Date(since).toISOString().replace(/\.\d+Z$/, 'Z');
      const error = new HttpError(401, ERRORS.keysLost.message.replace('once', `on ${when}`), CHALLENGE);
      error.code = ERRORS.keysLost.code;
      made = { since, error };
    }
    return made.error;
  };
}

/** The sentences by name (tests and docs quote them). */
export const MESSAGES = Object.fromEntries(Object.entries(ERRORS).map(([name, e]) => [name, e.message])) as {
  readonly [K in ErrorName]: string;
};

export const errorBody = (err: HttpError) =>
  Buffer.from(
    JSON.stringify({ error: err.message, status: err.status, code: err.code, schema_version: SCHEMA_VERSION }),
  );
