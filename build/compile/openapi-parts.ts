// The pieces the OpenAPI document's operations share: bodies, headers, and the error answers
// every data operation can give (docs/contract.md, Errors and HTTP).
import {
  API_KEY_HEADER,
  AUTH_CHALLENGE,
  RATE_LIMIT_HEADERS as H,
  JSON_MEDIA_TYPE,
  REGISTRATION_BODY_BYTES,
  ROUTES,
  rateLimitPolicy,
} from '../site-format.ts';

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const jsonBody = (schema: string, description: string) => ({
  description,
  content: { [JSON_MEDIA_TYPE]: { schema: ref(schema) } },
});
const header = (description: string, type = 'integer') => ({ description, schema: { type } });

const rateHeaders = {
  [H.limit]: header('requests allowed per window'),
  [H.remaining]: header('requests left in the current window'),
  [H.used]: header('requests counted in the current window'),
  [H.reset]: header('when the window resets, in epoch seconds'),
  [H.rateLimit]: header('IETF draft form: "default";r=<remaining>;t=<seconds to reset>', 'string'),
  [H.policy]: header(`IETF draft form: ${rateLimitPolicy('<limit>')}`, 'string'),
};
export const etagHeader = { ETag: header('strong validator of this representation', 'string') };
const dataHeaders = { ...etagHeader, ...rateHeaders };

export const keyInUrl = `an API key in the URL (keys are accepted only in ${API_KEY_HEADER}; replace such a key)`;
/** UPSTREAM_URL mode: the bodies come from a static origin. */
export const upstream = {
  '502': jsonBody('Error', 'UPSTREAM_URL mode: the origin holding the bodies failed'),
  '504': jsonBody('Error', 'UPSTREAM_URL mode: the origin holding the bodies did not answer in time'),
};
/** A form or JSON body refused before it is read: the operations that take one (registration, recovery). */
export const bodyRefused = {
  '413': jsonBody('Error', `the body is larger than ${REGISTRATION_BODY_BYTES / 1024} KiB`),
  '415': jsonBody('Error', `the body is not ${JSON_MEDIA_TYPE}`),
};
export const retryAfter = { 'Retry-After': header('seconds to wait') };
export const storeDown = {
  ...jsonBody('Error', 'REDIS_URL mode: the key store is unavailable and this key was not verified recently'),
  headers: retryAfter,
};
export const unauthorised = {
  ...jsonBody(
    'Error',
    `missing, malformed, unknown or revoked ${API_KEY_HEADER}; register at POST ${ROUTES.register.path}`,
  ),
  headers: { 'WWW-Authenticate': header(AUTH_CHALLENGE, 'string') },
};
export const preconditionFailed = jsonBody('Error', 'If-Match names no current representation (strong comparison)');
/** If-Match where the path has no ETag (docs/contract.md, Errors and HTTP): only `*` can match, where a GET answers. */
export const untaggedPrecondition = (represented: boolean) =>
  jsonBody(
    'Error',
    represented
      ? 'If-Match names a tag: this answer has no ETag, so only * matches'
      : 'If-Match was sent: this operation has no representation for it to match (not even *), so nothing was done',
  );
const errors = {
  '401': unauthorised,
  '429': {
    ...jsonBody('Error', 'hourly limit reached'),
    headers: { 'Retry-After': header('seconds until the window resets (at least 1)'), ...rateHeaders },
  },
  ...upstream,
  '503': storeDown,
};

export const conditionals = [
  { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
  { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } },
];

/** A data operation: 200 with the schema, a free 304, and the key, limit and store errors. */
export function dataOperation(schema: string, extra: { parameters?: object[]; responses?: object } = {}) {
  return {
    parameters: extra.parameters ?? conditionals,
    responses: {
      '200': { ...jsonBody(schema, 'the data'), headers: dataHeaders },
      '304': {
        description:
          'not modified: the ETag sent in If-None-Match is current ' +
          '(not counted, and answered also when the hour is spent)',
        headers: dataHeaders,
      },
      '400': jsonBody('Error', keyInUrl),
      ...extra.responses,
      '412': preconditionFailed,
      ...errors,
    },
  };
}
