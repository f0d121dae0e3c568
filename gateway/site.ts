// A published build as the gateway holds it: a table of ready responses, for each route each
// encoding's bytes with its headers already built, and the table of paths routed without parsing.
// A new build is made beside the live one and swapped in by one assignment (site-watch.ts), so a
// request is served wholly from the old build or wholly from the new. Reading it: site-load.ts.
import {
  type BodyEntry,
  CHANGELOG_DEFAULT_LIMIT,
  cacheClassOf,
  changelogKey,
  GRAIN_LIST_KEY,
  grainKey,
  isFilled,
  isTemplate,
  keyOfYear,
  type Manifest,
  PAGE_TEMPLATES,
  paramOf,
  ROUTES,
  type RouteName,
  routeOf,
  snapshotKey,
  TEMPLATE_SLOT,
  yearOfKey,
} from '../build/site-format.ts';
import { cacheControlOf, PER_HOST_PAGE_CACHE, type ServePolicy } from './cache-policy.ts';
import { isCrossOrigin } from './cors.ts';
import { type HttpError, unknownCropYearOf } from './errors.ts';
import { type PageTemplate, pageResource, pageTemplate } from './filled-pages.ts';
import type { BodyLoader, Resource, Variant } from './resource.ts';
import type { Routed } from './routed.ts';
import { httpDate, preparedVariant, type Serving } from './variant-headers.ts';

export type { Resource, Variant } from './resource.ts';

export interface Site {
  buildId: string;
  datasetVersion: string;
  /** Epoch ms of the newest changelog entry, or null (a build from before it was kept). */
  datasetUpdatedAt: number | null;
  /** Upper-case id → canonical id, for case-insensitive matching. */
  grainIds: ReadonlyMap<string, string>;
  routes: ReadonlyMap<string, Resource>;
  /** The 404 for a crop year not published, naming the years: by grain id, and '' for the snapshot's. */
  unknownCropYear: ReadonlyMap<string, HttpError>;
  /** The paths that need no parsing, routed once for this build (exactRoutes, below). */
  exact: ReadonlyMap<string, Routed>;
  /**
   * The page templates the gateway fills (PAGE_TEMPLATES), split at their slots once, at load:
   * text and slot names alternating. Absent in older builds.
   */
  templates: ReadonlyMap<string, string[]>;
  /** Without PUBLIC_URL, the pages and the OpenAPI document, filled per origin asked from (filled-pages.ts). */
  pages: ReadonlyMap<string, PageTemplate>;
}

/**
 * A build's body files as read: the bytes held, and how the others are served: from the folder the
 * bodies stay in at the origin (UPSTREAM_URL), or read from disk when asked (body-reader.ts).
 */
export interface BuildBodies {
  /** File → bytes: the bodies held; when upstream, only the filled bodies' and templates' (those read). */
  bytes: ReadonlyMap<string, Buffer>;
  /** The build's folder at the upstream origin when the bodies stay there; null when they are on disk. */
  upstreamDir: string | null;
  /** How a body on disk that is not held is read when asked (by its file in the build, and its length). */
  onDemand?: (file: string, length: number) => BodyLoader;
  /** How a plain form stored only as its gzip form (build/emit/emit.ts) is made when asked, from that file. */
  unzipped?: (gzipFile: string, length: number) => BodyLoader;
  /** When the build went live (epoch ms): current.json's time, as the disk or the origin tells it. */
  published?: number | null;
}

/** The files the gateway reads also when the bodies stay upstream: the page templates and the bodies it fills. */
export function pageFiles(manifest: Manifest): string[] {
  return Object.entries(manifest.routes)
    .filter(([key]) => isTemplate(key) || isFilled(key))
    .flatMap(([, hash]) => manifest.bodies[hash]!.identity.file ?? []);
}

/**
 * How a filled page's variants are made: a function of its own, so that the closure the page keeps
 * holds its type and serving, not siteFromManifest's scope (and with it the whole manifest).
 */
const filledVariant =
  (entry: { type: string }, serving: Serving) =>
  (body: Buffer, etag: string, encoding: string | null): Variant =>
    preparedVariant(entry, { length: body.length, etag }, encoding, serving, body);

/** Where a variant's bytes come from: held, at the origin, read from disk when asked, or unzipped when asked. */
function sourceOf(
  bodies: BuildBodies,
  v: BodyEntry['identity'],
  gzip?: BodyEntry['gzip'],
): Buffer | string | BodyLoader {
  if (v.file === undefined) {
    if (!gzip || !bodies.unzipped)
      throw new Error(`a plain form has no file, and nothing unzips ${gzip?.file} when asked`);
    return bodies.unzipped(gzip.file, gzip.length);
  }
  if (bodies.upstreamDir) return `/${bodies.upstreamDir}/${v.file}`;
  const held = bodies.bytes.get(v.file);
  if (held) return held;
  if (!bodies.onDemand) throw new Error(`${v.file} was not read, and nothing reads it when asked`);
  return bodies.onDemand(v.file, v.length);
}

/** The build's table from its manifest and the bodies read; pure, and the same for disk and upstream. */
export function siteFromManifest(manifest: Manifest, bodies: BuildBodies, policy: ServePolicy): Site {
  const updatedAt = Date.parse(manifest.dataset_updated_at ?? '');
  // Last-Modified (docs/contract.md, Errors and HTTP): when the build went live, else its newest entry's time
  const live = bodies.published ?? (Number.isFinite(updatedAt) ? updatedAt : null);
  const modified = live === null ? null : httpDate(live);
  // A body served under routes of two cache classes (a file's plain and content-addressed names)
  // gets one resource per class, sharing the bytes.
  const resources = new Map<string, Resource>();
  const resourceFor = (hash: string, route: string): Resource => {
    const cls = cacheClassOf(route);
    const crossOrigin = isCrossOrigin(routeOf(route));
    const id = `${hash} ${cls} ${crossOrigin}`;
    const known = resources.get(id);
    if (known) return known;
    const entry: BodyEntry = manifest.bodies[hash]!;
    const serving = { cache: cacheControlOf(cls, policy), crossOrigin, modified };
    const variant = (v: BodyEntry['identity'], encoding: string | null): Variant =>
      preparedVariant(entry, v, encoding, serving, sourceOf(bodies, v, entry.gzip));
    const r: Resource = {
      identity: variant(entry.identity, null),
      br: entry.br && variant(entry.br, 'br'),
      gzip: entry.gzip && variant(entry.gzip, 'gzip'),
    };
    resources.set(id, r);
    return r;
  };
  const routes = new Map<string, Resource>();
  for (const [key, hash] of Object.entries(manifest.routes)) routes.set(key, resourceFor(hash, key));
  const textOf = (hash: string | undefined) => {
    const file = hash === undefined ? undefined : manifest.bodies[hash]!.identity.file;
    const bytes = file === undefined ? undefined : bodies.bytes.get(file);
    return bytes?.toString('utf8');
  };
  const templates = new Map<string, string[]>();
  for (const key of Object.values(PAGE_TEMPLATES)) {
    // a template that could not be read leaves the form's answers to form-pages.ts's plain pages
    const text = textOf(manifest.routes[key]);
    if (text) templates.set(key, text.split(TEMPLATE_SLOT));
  }
  // The pages and the OpenAPI document, filled (filled-pages.ts): with PUBLIC_URL once, here, and
  // served as any body; else per request from its Host. One that could not be read is served as
  // built rather than not at all. The document is JSON: an origin (config.ts, or requestOrigin's
  // plain host) HTML-escaped is itself, and an escaped value holds no quote or backslash.
  const pages = new Map<string, PageTemplate>();
  for (const [key, hash] of Object.entries(manifest.routes)) {
    if (!isFilled(key)) continue;
    const text = textOf(hash);
    if (!text) continue;
    const entry = manifest.bodies[hash]!;
    const cache = policy.publicUrl ? cacheControlOf(cacheClassOf(key), policy) : PER_HOST_PAGE_CACHE;
    // a page states the configuration's figures too: no older than the configuration
    const since = live === null ? null : httpDate(Math.max(live, policy.since));
    const serving = { cache, crossOrigin: isCrossOrigin(routeOf(key)), modified: since };
    const page = pageTemplate(text, policy.figures, filledVariant({ type: entry.type }, serving));
    if (policy.publicUrl) routes.set(key, pageResource(page, policy.publicUrl, true));
    else pages.set(key, page);
  }
  const grainIds = new Map(manifest.grain_ids.map((id) => [id.toUpperCase(), id]));
  return {
    buildId: manifest.build_id,
    datasetVersion: manifest.dataset_version,
    datasetUpdatedAt: Number.isFinite(updatedAt) ? updatedAt : null,
    grainIds,
    unknownCropYear: unknownCropYears(manifest),
    routes,
    exact: exactRoutes(grainIds, routes),
    templates,
    pages,
  };
}

/**
 * The paths of a build that need no parsing (a grain by its canonical id, the list, the snapshot and
 * the changelog without a query, a crop year's record), routed with their resource once, when the
 * build is loaded: most requests are then one lookup in the build's own table (routes.ts).
 */
function exactRoutes(grainIds: ReadonlyMap<string, string>, routes: ReadonlyMap<string, Resource>) {
  const table = new Map<string, Routed>();
  const data = (key: string, row: RouteName): Routed =>
    Object.freeze({ handler: 'data' as const, key, resource: routes.get(key), row });
  for (const id of grainIds.values()) table.set(grainKey(id), data(grainKey(id), 'grain'));
  // A record of a crop year, as a client writes it: the slash plain or percent-encoded.
  for (const key of routes.keys()) {
    const row = routeOf(key);
    if ((row !== 'grain' && row !== 'snapshot') || !yearOfKey(key)) continue; // a table's page is no data
    const { base, year } = yearOfKey(key)!;
    for (const slash of ['/', '%2F', '%2f']) table.set(keyOfYear(base, year.replace('/', slash)), data(key, row));
  }
  table.set(GRAIN_LIST_KEY, data(GRAIN_LIST_KEY, 'grains'));
  table.set(snapshotKey(null), data(snapshotKey(null), 'snapshot'));
  // no query: the default limit (docs/contract.md, Endpoints)
  table.set(ROUTES.changelog.path, data(changelogKey(null, CHANGELOG_DEFAULT_LIMIT), 'changelog'));
  return table;
}

/** Each crop year's 404, made once: the years each class, and the snapshot, was published for. */
function unknownCropYears(manifest: Manifest): Map<string, HttpError> {
  const years = new Map<string, Set<string>>([['', new Set()]]);
  for (const key of Object.keys(manifest.routes)) {
    const y = yearOfKey(key);
    if (!y || routeOf(key) !== 'grain') continue;
    const id = paramOf('grain', y.base);
    years.set(id, (years.get(id) ?? new Set()).add(y.year));
    years.get('')!.add(y.year);
  }
  return new Map([...years].map(([id, set]) => [id, unknownCropYearOf(id || null, [...set].sort())]));
}
