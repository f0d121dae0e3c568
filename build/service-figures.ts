// The service's fixed figures, written once: the gateway enforces them, the pages and the OpenAPI
// document state them (docs/contract.md, Keys and registration). A part of site-format.ts, which
// re-exports it whole: import them from there.

/** The header a key travels in, and the prefix every key starts with (greppable by secret scanners). */
export const API_KEY_HEADER = 'X-API-Key';
/** The same header as node:http's request headers name it. */
export const API_KEY_FIELD = API_KEY_HEADER.toLowerCase();
export const KEY_PREFIX = 'ggt_';
/** A 401's challenge (RFC 9110 §11.6.1): the scheme, the realm and the header a key goes in. */
export const AUTH_CHALLENGE = `ApiKey realm="grain-grading-tables", header="${API_KEY_HEADER}"`;
/** The limits' window (docs/contract.md, Authentication and limits), and the RateLimit-Policy it states. */
export const RATE_LIMIT_WINDOW_SECONDS = 3600;
export const rateLimitPolicy = (limit: number | string) => `"default";q=${limit};w=${RATE_LIMIT_WINDOW_SECONDS}`;
/**
 * The rate-limit headers every authorised answer carries (docs/contract.md, Authentication and
 * limits): X-RateLimit-* and the IETF draft pair. The gateway sends them, the OpenAPI document,
 * the docs page and the client read these names.
 */
export const RATE_LIMIT_HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  used: 'X-RateLimit-Used',
  reset: 'X-RateLimit-Reset',
  policy: 'RateLimit-Policy',
  rateLimit: 'RateLimit',
} as const;
/**
 * A grain class's id as the dataset writes it (docs/contract.md, Endpoints): upper case, digits and
 * underscores, a letter first (CWRS). The schemas, the loader, the covered files' names and the
 * router (which reads it in any case) take it from here.
 */
export const GRAIN_ID_PATTERN = '^[A-Z][A-Z0-9_]*$';
/** The same, as a part of a longer pattern (a file name): no anchors. */
export const GRAIN_ID_SOURCE = GRAIN_ID_PATTERN.slice(1, -1);
/** An account's live keys at most. */
export const LIVE_KEYS_PER_ACCOUNT = 5;
/** A registration body's bytes at most, and an e-mail address's characters at most. */
export const REGISTRATION_BODY_BYTES = 1024;
export const EMAIL_MAX_LENGTH = 254;

/**
 * Recovery (docs/contract.md, Getting a key back): a link's single-use token, its prefix (not a
 * key's, which a URL may not hold), its query parameter (not `token`, refused likewise), its minutes.
 */
export const RECOVERY_TOKEN_PREFIX = 'ggr_';
export const RECOVERY_LINK_PARAM = 'code';
export const RECOVERY_TOKEN_MINUTES = 30;
/** Recovery mails one e-mail address may be sent in an hour. */
export const RECOVERY_MAILS_PER_HOUR = 3;
export const RECOVERY_ACCEPTED_MESSAGE = // the 202's message, the same for every address
  'If an account holds this address, a mail with a link is on its way. The link works once, for ' +
  `${RECOVERY_TOKEN_MINUTES} minutes: it revokes every key of the account and issues one new key.`;
