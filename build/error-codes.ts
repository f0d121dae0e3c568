// The error codes, each written once (docs/contract.md, Errors and HTTP): the stable names a
// program branches on. The gateway's catalogue (gateway/errors.ts) holds a sentence and a status
// for each, and is type-checked against this list; the OpenAPI document states it as the enum of
// the error body's `code`. Part of the site format: site-format.ts re-exports this file, which
// depends on nothing. A code is never renamed; a new kind of error adds one.
export const ERROR_CODES = [
  // Keys and limits
  'missing_key',
  'invalid_key',
  'key_in_query',
  'rate_limited',
  'keys_lost',
  // Paths and queries
  'unknown_grain',
  'not_found',
  'bad_limit',
  'repeated_param',
  'bad_crop_year',
  'unknown_crop_year',
  'bad_query',
  'precondition_failed',
  'not_allowed_get',
  'not_allowed_post',
  'not_allowed_delete',
  // Registration
  'register_limited',
  'register_attempts_limited',
  'too_many_keys',
  // Getting a key back
  'recovery_mails_limited',
  'recovery_address_limited',
  'bad_recovery_json',
  'recovery_token_unknown',
  'recovery_token_used',
  'recovery_token_expired',
  'recovery_token_superseded',
  'unsupported_type',
  'unsupported_form_type',
  // The front door's form post
  'bad_form',
  'cross_site_form',
  'too_large',
  'bad_json',
  'bad_email',
  // The gateway's own dependencies
  'cannot_save_keys',
  'cannot_save_revocation',
  'store_unavailable',
  'keys_recovering',
  'key_not_replicated',
  'upstream_failed',
  'upstream_timeout',
  'internal',
  // What never becomes a request
  'bad_http',
  'headers_too_large',
  'request_timeout',
  'connect_not_allowed',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** A code's name in the catalogue, in camel case: `missing_key` → `missingKey`. */
export type CatalogueName<C extends string> = C extends `${infer H}_${infer T}`
  ? `${H}${Capitalize<CatalogueName<T>>}`
  : C;
