// The error codes, each written once with its status (docs/contract.md, Errors and HTTP): the
// stable names a program branches on. The gateway's catalogue (gateway/errors.ts) holds a sentence
// for each, and the compiler holds its entries to this table, code and status; the OpenAPI document
// states the codes as the enum of the error body's `code`, and each operation's codes under their
// statuses; the client package's ApiError.code is their union. Part of the site format:
// site-format.ts re-exports this file, which depends on nothing. A code is never renamed; a new
// kind of error adds one.
export const ERROR_STATUS = {
  // Keys and limits
  missing_key: 401,
  invalid_key: 401,
  key_in_query: 400,
  repeated_key: 400,
  rate_limited: 429,
  keys_lost: 401,
  // Paths and queries
  unknown_grain: 404,
  not_found: 404,
  bad_limit: 400,
  repeated_param: 400,
  bad_crop_year: 400,
  unknown_crop_year: 404,
  bad_query: 400,
  uri_too_long: 414,
  precondition_failed: 412,
  not_allowed_get: 405,
  not_allowed_post: 405,
  not_allowed_delete: 405,
  // Registration
  register_limited: 429,
  register_attempts_limited: 429,
  too_many_keys: 409,
  // Getting a key back
  recovery_mails_limited: 429,
  recovery_address_limited: 429,
  bad_recovery_json: 400,
  recovery_token_unknown: 400,
  recovery_token_used: 400,
  recovery_token_expired: 400,
  recovery_token_superseded: 400,
  unsupported_type: 415,
  unsupported_form_type: 415,
  // The front door's form post
  bad_form: 400,
  cross_site_form: 403,
  too_large: 413,
  bad_json: 400,
  bad_email: 400,
  // The gateway's own dependencies
  cannot_save_keys: 503,
  cannot_save_revocation: 503,
  store_unavailable: 503,
  keys_recovering: 503,
  key_not_replicated: 503,
  upstream_failed: 502,
  upstream_timeout: 504,
  internal: 500,
  // What never becomes a request
  bad_http: 400,
  headers_too_large: 431,
  request_timeout: 408,
  connect_not_allowed: 405,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
/** The codes in the table's order: the enum of the error body's `code`. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** A code's name in the catalogue, in camel case: `missing_key` → `missingKey`. */
export type CatalogueName<C extends string> = C extends `${infer H}_${infer T}`
  ? `${H}${Capitalize<CatalogueName<T>>}`
  : C;
