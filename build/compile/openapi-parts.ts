// The pieces the OpenAPI document's operations share: bodies, headers, and the error answers made
// from the codes an operation can give (docs/contract.md, Errors and HTTP). Written for generators
// and contract testers: a header the service always sends is `required`, and each error status
// lists its codes, each under the status the site format's table gives it (ERROR_STATUS).
import {
  API_KEY_HEADER,
  AUTH_CHALLENGE,
  CHANGELOG_MAX_LIMIT,
  ERROR_STATUS,
  type ErrorCode,
  RATE_LIMIT_HEADERS as H,
  JSON_MEDIA_TYPE,
  REGISTRATION_BODY_BYTES,
  ROUTES,
  rateLimitPolicy,
} from '../site-format.ts';

export interface OperationText {
  operationId: string;
  tag: 'data' | 'keys' | 'service';
  summary: string;
  description: string;
}
/** An operation: its words, then its parameters and answers. */
export type Operation = OperationText & Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const jsonBody = (schema: string, description: string) => ({
  description,
  content: { [JSON_MEDIA_TYPE]: { schema: ref(schema) } },
});
/** Every header the document names is one the answer always carries. */
const header = (description: string, type = 'integer') => ({ description, required: true, schema: { type } });

const rateHeaders = {
  [H.limit]: header('requests allowed per window'),
  [H.remaining]: header('requests left in the current window'),
  [H.used]: header('requests counted in the current window'),
  [H.reset]: header('when the window resets, in epoch seconds'),
  [H.rateLimit]: header('IETF draft form: "default";r=<remaining>;t=<seconds to reset>', 'string'),
  [H.policy]: header(`IETF draft form: ${rateLimitPolicy('<limit>')}`, 'string'),
};
/** The validators: the ETag, and Last-Modified (when the build went live, else its newest entry's time). */
export const etagHeader = {
  ETag: header('strong validator of this representation', 'string'),
  'Last-Modified': header(
    'when the build went live; If-Modified-Since without If-None-Match is read against it',
    'string',
  ),
};
const dataHeaders = { ...etagHeader, ...rateHeaders };
const retryAfter = { 'Retry-After': header('seconds to wait (at least 1)') };
const challenge = { 'WWW-Authenticate': header(AUTH_CHALLENGE, 'string') };

/** When each code an operation can give is given, as the document says it. */
const WHEN: Partial<Record<ErrorCode, string>> = {
  missing_key: `no ${API_KEY_HEADER} (POST ${ROUTES.register.path} issues a key)`,
  invalid_key: `a malformed, unknown or revoked ${API_KEY_HEADER}`,
  key_in_query: `an API key in the URL (keys are accepted only in ${API_KEY_HEADER}; replace such a key)`,
  repeated_key: `${API_KEY_HEADER} sent twice, or holding keys joined by a comma`,
  uri_too_long: 'the path and query are longer than any URL of the service (8 KiB)',
  rate_limited: 'the hourly limit of the key is reached',
  unknown_grain: `an unknown grain id (GET ${ROUTES.grains.path} lists them)`,
  bad_limit: `limit is not a whole number from 1 to ${CHANGELOG_MAX_LIMIT}`,
  repeated_param: 'a query parameter is sent twice',
  bad_crop_year: 'crop_year is not a crop year written like 2025/26',
  unknown_crop_year: 'a crop year not published (for the class, or for any class)',
  bad_query: 'the path or the query is not valid percent-encoding',
  precondition_failed: 'If-Match names no current representation (strong comparison)',
  register_limited: 'too many keys issued to this network address this hour',
  register_attempts_limited: 'too many attempts from this network address this hour',
  too_many_keys:
    'the account holds its most live keys (the sentence says how to revoke one, or to get a key back by mail ' +
    `with POST ${ROUTES.recover.path})`,
  recovery_mails_limited: 'too many recovery mails for this e-mail address this hour',
  recovery_address_limited: 'too many recovery mails asked for from this network address this hour',
  bad_recovery_json: 'the body is not a JSON object with a "token" string',
  recovery_token_unknown: 'the token is not one the service sent (nothing changed)',
  recovery_token_used: 'the token was used already (nothing changed)',
  recovery_token_expired: 'the token has expired (nothing changed)',
  recovery_token_superseded: 'a newer token was sent since (nothing changed)',
  unsupported_type: `the body is not ${JSON_MEDIA_TYPE}`,
  too_large: `the body is larger than ${REGISTRATION_BODY_BYTES / 1024} KiB`,
  bad_json: 'the body is not a JSON object with an "email" string',
  bad_email: 'the e-mail address is not valid',
  cannot_save_keys: 'the key store cannot write',
  cannot_save_revocation: 'the key store cannot write',
  store_unavailable: 'Redis mode: the key store is unavailable (and the key was not verified recently)',
  keys_lost:
    'Redis mode, after an operator accepted a loss of the key store: an unknown key (a key issued before the loss ' +
    'no longer works; the sentence names when)',
  keys_recovering:
    'Redis mode: the key store lost its data and waits to be restored; a key not found may come back, and nothing ' +
    'is issued meanwhile',
  key_not_replicated:
    'REDIS_MIN_REPLICAS: too few replicas acknowledged the new key in time, so it was taken back and nothing changed',
  upstream_failed: 'UPSTREAM_URL mode: the origin holding the bodies failed',
  upstream_timeout: 'UPSTREAM_URL mode: the origin holding the bodies did not answer in time',
};

const whenOf = (code: ErrorCode) => {
  const when = WHEN[code];
  if (when === undefined) throw new Error(`the OpenAPI document does not say when ${code} is answered`);
  return when;
};

/** The headers an error answer always carries, by code (gateway/errors.ts sets them). */
const HEADERS: Partial<Record<ErrorCode, Record<string, object>>> = {
  missing_key: challenge,
  invalid_key: challenge,
  rate_limited: { ...retryAfter, ...rateHeaders },
  register_limited: retryAfter,
  register_attempts_limited: retryAfter,
  recovery_mails_limited: retryAfter,
  recovery_address_limited: retryAfter,
  store_unavailable: retryAfter,
  keys_lost: challenge,
  keys_recovering: retryAfter,
  key_not_replicated: retryAfter,
  cannot_save_keys: retryAfter,
  cannot_save_revocation: retryAfter,
};

/**
 * An operation's error answers from the codes it can give: one answer per status, whose body's
 * `code` is the enum of that status's codes, and whose description says when each is given.
 */
export function errorAnswers(codes: readonly ErrorCode[]): Record<string, object> {
  const byStatus = new Map<number, ErrorCode[]>();
  // every operation's URL is refused past its length before it is routed (gateway/app.ts)
  for (const code of [...codes, 'uri_too_long' as const])
    byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const answers: Record<string, object> = {};
  for (const [status, at] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers = HEADERS[at[0]!];
    // a header is required only where every code of the status sends it
    if (at.some((c) => JSON.stringify(HEADERS[c]) !== JSON.stringify(headers)))
      throw new Error(`the codes ${at.join(', ')} share the status ${status} but not their headers`);
    const schema = {
      allOf: [ref('Error'), { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: at } } }],
    };
    answers[String(status)] = {
      description: at.map((c) => `${c}: ${whenOf(c)}`).join('; '),
      ...(headers ? { headers } : {}),
      content: { [JSON_MEDIA_TYPE]: { schema } },
    };
  }
  return answers;
}

/** The codes every data operation can give: its key, its hour, its preconditions, its stores. */
const DATA_ERRORS: ErrorCode[] = [
  'key_in_query',
  'repeated_key',
  'missing_key',
  'invalid_key',
  'keys_lost',
  'precondition_failed',
  'rate_limited',
  'upstream_failed',
  'store_unavailable',
  'keys_recovering',
  'upstream_timeout',
];
/** UPSTREAM_URL mode: the bodies come from a static origin. */
export const UPSTREAM_ERRORS: ErrorCode[] = ['upstream_failed', 'upstream_timeout'];
/** A form or JSON body refused before it is read: the operations that take one (registration, recovery). */
export const BODY_ERRORS: ErrorCode[] = ['too_large', 'unsupported_type'];

export const conditionals = [
  { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
  { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } },
  { name: 'If-Modified-Since', in: 'header', required: false, schema: { type: 'string' } },
];

/** A 304: the headers alone (docs/contract.md, Errors and HTTP: a 304 has no body). */
export const notModified = (description: string, headers: object) => ({ description, headers });

/** A data operation: 200 with the schema, a free 304, and the codes it gives beside every data operation's. */
export function dataOperation(schema: string, extra: { parameters?: object[]; errors?: ErrorCode[] } = {}) {
  return {
    parameters: extra.parameters ?? conditionals,
    responses: {
      '200': { ...jsonBody(schema, 'the data'), headers: dataHeaders },
      '304': notModified(
        'not modified: the ETag sent in If-None-Match is current ' +
          '(not counted, and answered also when the hour is spent)',
        dataHeaders,
      ),
      ...errorAnswers([...DATA_ERRORS, ...(extra.errors ?? [])]),
    },
  };
}
