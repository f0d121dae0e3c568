// What routing a request gives (routes.ts): the handler, the row of the route table it matched,
// and for a body the key it is stored under. Its own file, so a build's table of paths routed once
// (site.ts) and the router that reads that table (routes.ts) do not import each other.
import type { HandlerKind, RouteName } from '../build/site-format.ts';
import type { HttpError } from './errors.ts';
import type { Resource } from './resource.ts';

/**
 * How a request is routed, with the route table's row it matched (`row`; none for an unknown path):
 * GET /metrics labels a request by it, so nothing routes a request twice.
 */
export type Routed = RoutedKind & { row?: RouteName };
type RoutedKind =
  | { handler: null; error: HttpError } // unknown path, wrong method, key in the URL
  /** A folder asked for without its slash (`/tables`): moved to `location` (`/tables/`, the query kept). */
  | { handler: 'redirect'; location: string }
  /** OPTIONS: `*`, or a route other origins may read (its CORS preflight, cors.ts). */
  | { handler: 'options'; allow: string; crossOrigin: boolean }
  /** The gateway's own handlers: every kind of the route table but the two that serve a body. */
  | { handler: Exclude<HandlerKind, 'public' | 'data'> }
  /** A precomputed body anyone may read: the OpenAPI document, the pages and their assets. */
  | { handler: 'public'; key: string }
  /** A data request: `key` names the body, or `error` is the answer once the key is checked. */
  | { handler: 'data'; key: string; error?: undefined; resource?: Resource }
  | { handler: 'data'; key?: undefined; error: HttpError; resource?: undefined };
