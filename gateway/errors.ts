// One error type: a status and a sentence a person can act on (decisions.md §4). Expected errors
// become JSON responses; anything else is logged and answered with a plain 500 with nothing inside.

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const errorBody = (status: number, message: string) =>
  Buffer.from(JSON.stringify({ error: message, status, schema_version: '1.0' }));

/** The sentences, in one place: tests and the README quote them. */
export const MESSAGES = {
  missingKey: 'An API key is required: send it in the X-API-Key header. Get a free key with POST /api/register.',
  invalidKey: 'The API key is not valid (unknown, mistyped or replaced). Register again with POST /api/register to get a new key.',
  keyInQuery: 'API keys are never accepted in the URL. Send the key in the X-API-Key header, and replace this key: it may have been logged along the way.',
  unknownGrain: 'Grain id not found. GET /api/grains lists the available grain ids.',
  notFound: 'Not found. The API is described at GET /api/openapi.json.',
  badLimit: 'limit must be a whole number from 1 to 100.',
  repeatedParam: 'A query parameter is repeated; send each parameter once.',
  badQuery: 'The query string is not valid percent-encoding.',
  rateLimited: 'Hourly request limit reached for this account. Retry after the number of seconds in Retry-After.',
  registerLimited: 'Too many registrations from this address. Retry after the number of seconds in Retry-After.',
  unsupportedType: 'Send the registration as JSON, with Content-Type: application/json.',
  tooLarge: 'The request body is larger than 1 KiB.',
  badJson: 'The body must be a JSON object with an "email" string, e.g. {"email": "you@example.com"}.',
  badEmail: 'The e-mail address is not valid: it must look like name@example.com and be at most 254 characters.',
  storeUnavailable: 'The key store is unavailable for the moment. Retry after the number of seconds in Retry-After.',
  upstreamFailed: 'The origin that holds the data did not answer correctly. Retry in a moment.',
  upstreamTimeout: 'The origin that holds the data did not answer in time. Retry in a moment.',
  internal: 'Internal error.',
} as const;

/** Shared by the router and the app: an unknown path, or a public file that is not in the build. */
export const NOT_FOUND = new HttpError(404, MESSAGES.notFound);

/** An error answer written straight to a socket, for what never becomes a request (bad HTTP, CONNECT). */
export function rawErrorResponse(status: number, statusText: string, message: string): string {
  const body = errorBody(status, message);
  return (
    `HTTP/1.1 ${status} ${statusText}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${body.length}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body.toString()}`
  );
}
