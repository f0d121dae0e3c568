// Other origins (docs/contract.md, Other origins): the public bodies (the OpenAPI document, the
// tables' pages and feed, the client package's files, /health, the signed editions' metadata) may
// be read by any page, and answer its preflight; a keyed route never says so, so a browser page on
// another origin cannot send a key.
import { ROUTES, type RouteName } from '../build/site-format.ts';
import { response } from './responses.ts';

const CROSS_ORIGIN: ReadonlySet<RouteName> = new Set([
  'openapi',
  'tables',
  'feed',
  'table',
  'client',
  'health',
  'tufMetadata',
]);

/** May pages on other origins read this route's answers? Never one behind a key. */
export const isCrossOrigin = (name: RouteName | null) =>
  name !== null && CROSS_ORIGIN.has(name) && ROUTES[name].access !== 'key';

/**
 * What a public body's answer adds: any origin may read it, and the ETag a page revalidates with
 * (Last-Modified is readable without being named).
 */
export const CROSS_ORIGIN_HEADERS: readonly string[] = [
  'Access-Control-Allow-Origin',
  '*',
  'Access-Control-Expose-Headers',
  'ETag',
];

/**
 * The preflight's answer (Fetch standard, CORS protocol): GET and HEAD, with the conditional headers a
 * page revalidates with; never X-API-Key. Kept a day by the browser. Without an Origin it is a plain
 * OPTIONS, and Allow alone says what the path takes.
 */
export function optionsResponse(allow: string, crossOrigin: boolean, origin: string | string[] | undefined) {
  if (!crossOrigin || origin === undefined) return response(204, ['Allow', allow, 'Cache-Control', 'no-store'], null);
  return response(
    204,
    [
      'Allow',
      allow,
      ...CROSS_ORIGIN_HEADERS,
      'Access-Control-Allow-Methods',
      'GET, HEAD',
      'Access-Control-Allow-Headers',
      'If-None-Match, If-Modified-Since, If-Match',
      'Access-Control-Max-Age',
      '86400',
      'Cache-Control',
      'no-store',
    ],
    null,
  );
}
