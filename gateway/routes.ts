// Request line → what to do: which endpoint, and for data endpoints the key of the precomputed
// body (the same canonical key the build wrote), or the error to give. No I/O here.
import {
  CHANGELOG_DEFAULT_LIMIT,
  CHANGELOG_MAX_LIMIT,
  CROP_YEAR_PARAM,
  changelogKey,
  GRAIN_ID_PATTERN,
  GRAIN_LIST_KEY,
  grainKey,
  grainYearKey,
  paramOf,
  ROUTE_NAMES,
  ROUTES,
  type RouteName,
  type RouteRow,
  routeOf,
  snapshotKey,
  tableKey,
} from '../build/site-format.ts';
import { isCrossOrigin } from './cors.ts';
import { ERRORS, type HttpError, methodNotAllowed, SERVER_METHODS } from './errors.ts';
import { holdsKey } from './key-in-url.ts';
import type { Routed } from './routed.ts';
import type { Site } from './site.ts';

/**
 * Query parameter names that would carry a key in the URL: refused on every path whatever their
 * value (docs/contract.md, Errors and HTTP), never echoed. Any other unknown parameter is ignored.
 */
export const KEY_PARAMS: ReadonlySet<string> = new Set([
  'api_key',
  'apikey',
  'api-key',
  'key',
  'x-api-key',
  'x_api_key',
  'token',
  'access_token',
]);
/** A grain id as a request may write it: the dataset's pattern in any case, at most 64 characters. */
const GRAIN_ID = new RegExp(GRAIN_ID_PATTERN, 'i');
const isGrainId = (s: string) => s.length <= 64 && GRAIN_ID.test(s);
/** A crop year as written, 2025/26: the second year the first's successor. */
const isCropYear = (s: string) => /^\d{4}\/\d{2}$/.test(s) && (Number(s.slice(0, 4)) + 1) % 100 === Number(s.slice(5));

function decode(s: string): string | null {
  if (!s.includes('%') && !s.includes('+')) return s;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** A path segment's percent-encoding (a + is itself in a path), or null when it is broken. */
function decodePath(s: string): string | null {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

function changelog(query: string, grainIds: ReadonlyMap<string, string>): Routed {
  let grainId: string | null = null;
  let limit = CHANGELOG_DEFAULT_LIMIT;
  let seenGrain = false;
  let seenLimit = false;
  for (const part of query.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = decode(eq < 0 ? '' : part.slice(eq + 1));
    if (name === null || value === null) return { handler: 'data', error: ERRORS.badQuery };
    if (name === 'grain_id') {
      if (seenGrain) return { handler: 'data', error: ERRORS.repeatedParam };
      seenGrain = true;
      const id = isGrainId(value) ? grainIds.get(value.toUpperCase()) : undefined;
      if (!id) return { handler: 'data', error: ERRORS.unknownGrain };
      grainId = id;
    } else if (name === 'limit') {
      if (seenLimit) return { handler: 'data', error: ERRORS.repeatedParam };
      seenLimit = true;
      // base 10, digits alone, leading zeros allowed (05 and 0100 are 5 and 100; docs/contract.md, Endpoints)
      if (!/^[0-9]+$/.test(value)) return { handler: 'data', error: ERRORS.badLimit };
      limit = Number(value);
      if (limit < 1 || limit > CHANGELOG_MAX_LIMIT) return { handler: 'data', error: ERRORS.badLimit };
    }
  }
  return { handler: 'data', key: changelogKey(grainId, limit) };
}

/** RFC 9112 §3.2.2: an absolute-form target (`GET http://host/path`) is served as its origin form. */
function originForm(url: string): string {
  const m = /^https?:\/\/[^/?#]*/i.exec(url);
  if (!m) return url;
  const rest = url.slice(m[0].length);
  return rest === '' || rest[0] === '?' ? `/${rest}` : rest;
}

/** A data route's body key from the rest of the request, or the error to give once the key is checked. */
const DATA: Partial<Record<RouteName, (path: string, query: string, site: Site) => Routed>> = {
  grains: () => ({ handler: 'data', key: GRAIN_LIST_KEY }),
  changelog: (_path, query, site) => changelog(query, site.grainIds),
  grain: (path, query, site) => {
    // Percent-encoding is read as in the query: a broken one is the same 400, not an unknown id
    const raw = decodePath(paramOf('grain', path));
    const id = raw !== null && isGrainId(raw) ? site.grainIds.get(raw.toUpperCase()) : undefined;
    if (!id) return { handler: 'data', error: raw === null ? ERRORS.badQuery : ERRORS.unknownGrain };
    return ofYear(query, site, grainKey(id), (year) => grainYearKey(id, year), id);
  },
  snapshot: (_path, query, site) => ofYear(query, site, snapshotKey(null), snapshotKey, ''),
  /** A signed edition's target (docs/operations.md, "Signed editions"): its path is its body's key. */
  tufTargets: (path) => ({ handler: 'data', key: path }),
};

/**
 * docs/contract.md, Crop years: `?crop_year=2025/26`, the body as it stood in that crop year, else
 * `current`. `of` names whose years a 404 lists: a grain id, or '' for the snapshot's (site.ts).
 */
function ofYear(query: string, site: Site, current: string, keyOf: (year: string) => string, of: string): Routed {
  const year = query ? cropYearIn(query) : null;
  if (year === null) return { handler: 'data', key: current };
  if (typeof year !== 'string') return { handler: 'data', error: year };
  const key = keyOf(year);
  if (site.routes.has(key)) return { handler: 'data', key };
  return { handler: 'data', error: site.unknownCropYear.get(of) ?? ERRORS.unknownCropYear };
}

/** The query's crop year, null when it names none, or the error a malformed one gets. */
function cropYearIn(query: string): string | null | HttpError {
  let year: string | null = null;
  for (const part of query ? query.split('&') : []) {
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = decode(eq < 0 ? '' : part.slice(eq + 1));
    if (name === null || value === null) return ERRORS.badQuery;
    if (name !== CROP_YEAR_PARAM) continue;
    if (year !== null) return ERRORS.repeatedParam;
    if (!isCropYear(value)) return ERRORS.badCropYear;
    year = value;
  }
  return year;
}

/** A table's page (docs/contract.md, The front door): the class's id in any case, `?crop_year=` as the API reads it. */
function tablePage(path: string, query: string, site: Site): Routed {
  const raw = decodePath(paramOf('table', path));
  const id = raw !== null && isGrainId(raw) ? site.grainIds.get(raw.toUpperCase()) : undefined;
  if (!id) return { handler: null, error: raw === null ? ERRORS.badQuery : ERRORS.unknownGrain, row: 'table' };
  const year = query ? cropYearIn(query) : null;
  if (year !== null && typeof year !== 'string') return { handler: null, error: year, row: 'table' };
  const key = tableKey(id, year ?? undefined);
  if (site.routes.has(key)) return { handler: 'public', key, row: 'table' };
  return { handler: null, error: site.unknownCropYear.get(id) ?? ERRORS.unknownCropYear, row: 'table' };
}

/** The methods a route takes: its row's, and OPTIONS where other origins may read it (a preflight). */
const methodsOf = (name: RouteName): readonly string[] =>
  isCrossOrigin(name) ? [...ROUTES[name].methods, 'OPTIONS'] : ROUTES[name].methods;

/**
 * Each route's 405, made once: Allow names the methods it takes (RFC 9110 §15.5.6), under the
 * catalogue's code for its set (a GET route's, else a POST route's, else a DELETE route's).
 */
const NOT_ALLOWED = Object.fromEntries(
  ROUTE_NAMES.map((name) => {
    const methods = methodsOf(name);
    const base = methods.includes('GET')
      ? ERRORS.notAllowedGet
      : methods.includes('POST')
        ? ERRORS.notAllowedPost
        : ERRORS.notAllowedDelete;
    if (methods.join(', ') === base.headers.Allow) return [name, base];
    const e = methodNotAllowed(methods.join(', '));
    e.code = base.code;
    return [name, e];
  }),
) as Record<RouteName, HttpError>;

/** OPTIONS where other origins may read: the methods the route takes, and the CORS preflight's answer (cors.ts). */
const OPTIONS = Object.fromEntries(
  ROUTE_NAMES.filter(isCrossOrigin).map((name) => [
    name,
    Object.freeze({ handler: 'options', allow: methodsOf(name).join(', '), crossOrigin: true, row: name }),
  ]),
) as Partial<Record<RouteName, Routed>>;
/** `OPTIONS *` (RFC 9110 §9.3.7): what the server as a whole takes. */
const OPTIONS_SERVER: Routed = Object.freeze({ handler: 'options', allow: SERVER_METHODS, crossOrigin: false });

const NOT_FOUND: Routed = Object.freeze({ handler: null, error: ERRORS.notFound });
/** The routes that are folders (`/tables/`), by their path without the slash, which a person may type. */
const FOLDERS: ReadonlyMap<string, string> = new Map(
  ROUTE_NAMES.map((name) => ROUTES[name].path)
    .filter((path) => path.length > 1 && path.endsWith('/'))
    .map((path) => [path.slice(0, -1), path]),
);
const KEY_IN_URL: Routed = Object.freeze({ handler: null, error: ERRORS.keyInQuery });

export function route(method: string, target: string, site: Site): Routed {
  if (target === '*') return method === 'OPTIONS' ? OPTIONS_SERVER : NOT_FOUND;
  const url = target.charCodeAt(0) === 47 /* "/" */ ? target : originForm(target);
  if (method === 'GET' || method === 'HEAD') {
    const exact = site.exact.get(url);
    if (exact) return exact;
  }
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);

  const name = routeOf(path);
  // A key anywhere in the URL, however encoded, is refused before anything else: URLs end up in
  // logs and histories.
  if (holdsKey(url) || (query && hasKeyInQuery(query)))
    return name === null ? KEY_IN_URL : { handler: null, error: ERRORS.keyInQuery, row: name };
  if (name === null) {
    const folder = method === 'GET' || method === 'HEAD' ? FOLDERS.get(path) : undefined;
    return folder ? { handler: 'redirect', location: query ? `${folder}?${query}` : folder } : NOT_FOUND;
  }
  const row: RouteRow = ROUTES[name];
  // Any method: without the token it is an unknown path, and the method is checked after (app.ts).
  if (row.handler === 'metrics') return { handler: 'metrics', row: name };
  if (!row.methods.includes(method as RouteRow['methods'][number])) {
    const options = method === 'OPTIONS' ? OPTIONS[name] : undefined;
    if (options) return options;
    return { handler: null, error: NOT_ALLOWED[name], row: name };
  }
  switch (row.handler) {
    case 'data':
      return { ...DATA[name]!(path, query, site), row: name };
    case 'public':
      return name === 'table' ? tablePage(path, query, site) : { handler: 'public', key: path, row: name };
    default:
      return { handler: row.handler, row: name };
  }
}

function hasKeyInQuery(query: string): boolean {
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    if (name !== null && KEY_PARAMS.has(name.toLowerCase())) return true;
  }
  return false;
}
