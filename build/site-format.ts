// THE contract between the build and the gateway: how a published site is laid out, what its
// manifest and pointer hold, and the canonical key of every route. Both sides import this file;
// the gateway imports nothing else from build/ (test/layout.test.ts holds it to that). It imports
// only the parts it re-exports (page-slots.ts, error-codes.ts), which import nothing.
//
//   <site>/current.json                  the pointer: which build is live (replaced by rename)
//   <site>/builds/<build_id>/manifest.json
//   <site>/builds/<build_id>/bodies/<hash>.<kind>[.br|.gz]   (kind: BODY_TYPES, what the body is)

export * from './error-codes.ts';
export * from './page-slots.ts';
export * from './service-figures.ts';
export * from './tuf-paths.ts';

import { PAGE_TEMPLATES } from './page-slots.ts';
import { consistentTargetFile, targetNameOf } from './tuf-paths.ts';

export const POINTER_FILE = 'current.json';
export const MANIFEST_FILE = 'manifest.json';
export const BUILDS_DIR = 'builds';
/** The folders a deployment uses unless told otherwise (SITE_DIR, DATASET_DIR, STATE_DIR), relative to
 * the working directory: written here once, for the gateway's configuration and every command. */
export const DEFAULT_DIRS = { site: 'site', dataset: 'dataset', state: 'var' } as const;

export interface Pointer {
  build_id: string;
  /** The build's folder, relative to the site: `builds/<build_id>`. */
  dir: string;
}

/** One encoding of a body: each content-coding is a representation of its own. */
interface ManifestVariant {
  file: string;
  length: number;
  etag: string; // strong: of this representation
}
type PlainVariant = Omit<ManifestVariant, 'file'> & { file?: string }; // no file: only gzip stored (emit/emit.ts)
export type BodyEntry = { type: string; identity: PlainVariant; br?: ManifestVariant; gzip?: ManifestVariant };

export interface Manifest {
  generated: string;
  build_id: string;
  schema_version: string;
  dataset_version: string;
  /** The newest changelog entry's created_at (ISO 8601); absent in builds made before it was kept. */
  dataset_updated_at?: string;
  grain_ids: string[];
  /** Canonical route key → body hash (a key of `bodies`). */
  routes: Record<string, string>;
  bodies: Record<string, BodyEntry>;
}

/** Every JSON body's `schema_version`, and every JSON answer's type (docs/contract.md, Errors and HTTP). */
export const SCHEMA_VERSION = '1.0';
export const JSON_MEDIA_TYPE = 'application/json';
export const JSON_CONTENT_TYPE = `${JSON_MEDIA_TYPE}; charset=utf-8`;
/** What a body is, as its file's extension, and the type it is served with. */
export const BODY_TYPES = {
  json: JSON_CONTENT_TYPE,
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
  tgz: 'application/gzip', // the client package (docs/sync.md): a gzipped tar, as npm installs it
  atom: 'application/atom+xml; charset=utf-8', // the changes feed (docs/contract.md, The front door)
} as const;
export type BodyKind = keyof typeof BODY_TYPES;

export const ENCODINGS = ['br', 'gzip'] as const;
export type Encoding = 'identity' | (typeof ENCODINGS)[number];

const BUILD_ID = /^[0-9a-f]{16}$/;
/** A pointer's text → the pointer, or an error naming what is wrong (a half-written or foreign file). */
export function parsePointer(text: string): Pointer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${POINTER_FILE} is not JSON`);
  }
  const p = value as Partial<Pointer> | null;
  if (!p || typeof p.build_id !== 'string' || !BUILD_ID.test(p.build_id) || p.dir !== `${BUILDS_DIR}/${p.build_id}`) {
    throw new Error(`${POINTER_FILE} does not name a build as ${BUILDS_DIR}/<16 hex digits>`);
  }
  return { build_id: p.build_id, dir: p.dir };
}

/** A build as read: the pointer that named it and its manifest. */
export type Build = { pointer: Pointer; manifest: Manifest };
/** The build `pointer` names (the live one when left out), through `read` (a path under the site → its text,
 * at once or by a promise): the one reader of the gateway and the commands. */
export function readBuild(read: (path: string) => string, pointer?: Pointer): Build;
export function readBuild(read: (path: string) => Promise<string>, pointer?: Pointer): Promise<Build>;
export function readBuild(read: (path: string) => string | Promise<string>, pointer?: Pointer) {
  const then = <A, B>(v: A | Promise<A>, f: (a: A) => B): B | Promise<B> => (v instanceof Promise ? v.then(f) : f(v));
  return then(pointer ?? then(read(POINTER_FILE), parsePointer), (p) =>
    then(read(`${p.dir}/${MANIFEST_FILE}`), (text): Build => {
      const manifest = JSON.parse(text) as Manifest;
      if (manifest.build_id === p.build_id) return { pointer: p, manifest };
      throw new Error(`${POINTER_FILE} names ${p.build_id} but its manifest is ${manifest.build_id}`);
    }),
  );
}

/** A route's plain body's file in a build, as a path under the site; null when none, or not stored (plain-body.ts). */
export function bodyPath({ pointer, manifest }: Build, route: string): string | null {
  const file = manifest.bodies[manifest.routes[route] ?? '']?.identity.file;
  return file === undefined ? null : `${pointer.dir}/${file}`;
}

export const pointerFor = (buildId: string): Pointer => ({ build_id: buildId, dir: `${BUILDS_DIR}/${buildId}` });

// The route table: every path the service answers, written once, read by the router, the metrics, the compiler,
// the clients and the OpenAPI document (docs/contract.md, Endpoints); test/routes.test.ts holds the router to it.

const GET = ['GET', 'HEAD'] as const;
export type Method = 'GET' | 'HEAD' | 'POST' | 'DELETE';

/**
 * The kind of handler that answers a route: `data`, a precomputed body behind a key and the hourly
 * limit; `public`, a precomputed body anyone may read (a page, the OpenAPI document, a file); the
 * others are the gateway's own handlers.
 */
export type HandlerKind =
  | 'data'
  | 'public'
  | 'register'
  | 'register_form'
  | 'revoke'
  | 'recover'
  | 'recover_confirm'
  | 'recover_page'
  | 'health'
  | 'metrics'
  | 'tuf_metadata';

export interface RouteRow {
  /** The path: exact, a template with one `{param}` segment at its end, or a folder ending in `/*`. */
  path: string;
  methods: readonly Method[];
  /** Who may call it: an X-API-Key (`key`), anyone (`open`), the operator's METRICS_TOKEN (`token`). */
  access: 'key' | 'open' | 'token';
  handler: HandlerKind;
  /** The response schema (build/schema/responses.ts) of its success, where it answers JSON. */
  schema: string | null;
  /** In the OpenAPI document: the API's own operations; pages, files and /metrics are not. */
  api: boolean;
}

const row = (
  path: string,
  methods: readonly Method[],
  access: RouteRow['access'],
  handler: HandlerKind,
  schema: string | null = null,
  api = schema !== null,
): RouteRow => ({ path, methods, access, handler, schema, api });

export const ROUTES = {
  grain: row('/api/grains/{grain_id}', GET, 'key', 'data', 'GrainRecord'),
  grains: row('/api/grains', GET, 'key', 'data', 'GrainList'),
  changelog: row('/api/changelog', GET, 'key', 'data', 'Changelog'),
  /** Every record and the whole changelog in one body: a sync in one request (docs/sync.md). */
  snapshot: row('/api/snapshot', GET, 'key', 'data', 'Snapshot'),
  register: row('/api/register', ['POST'], 'open', 'register', 'Registration'),
  revokeKey: row('/api/keys/current', ['DELETE'], 'key', 'revoke', null, true),
  /** Lost keys: a mail with a single-use link (docs/contract.md, Getting a key back). */
  recover: row('/api/keys/recover', ['POST'], 'open', 'recover', 'RecoveryAccepted'),
  recoverConfirm: row('/api/keys/recover/confirm', ['POST'], 'open', 'recover_confirm', 'Registration'),
  openapi: row('/api/openapi.json', GET, 'open', 'public', null, true),
  health: row('/health', GET, 'open', 'health', 'Health'),
  metrics: row('/metrics', GET, 'token', 'metrics'),
  home: row('/', GET, 'open', 'public'),
  docs: row('/docs', GET, 'open', 'public'),
  gradePage: row('/grade', GET, 'open', 'public'),
  /** The tables as pages (docs/contract.md, The front door): the index and feed first, matched before the template. */
  tables: row('/tables/', GET, 'open', 'public'),
  feed: row('/tables/changes.atom', GET, 'open', 'public'),
  table: row('/tables/{grain_id}', GET, 'open', 'public'),
  /** The front door's form posts here and is answered with a page, so the API's operations stay JSON. */
  registerForm: row('/register', ['POST'], 'open', 'register_form'),
  /** A recovery mail's link and the "Lost your key?" form: GET changes nothing; POST asks or uses. */
  recoverPage: row('/recover', [...GET, 'POST'], 'open', 'recover_page'),
  assets: row('/assets/*', GET, 'open', 'public'),
  client: row('/client/*', GET, 'open', 'public'),
  /** Signed editions (docs/operations.md): the TUF metadata, public; its targets, data bodies behind a key. */
  tufMetadata: row('/tuf/metadata/*', GET, 'open', 'tuf_metadata'),
  tufTargets: row('/tuf/targets/*', GET, 'key', 'data'),
} as const satisfies Record<string, RouteRow>;
export type RouteName = keyof typeof ROUTES;
export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

/** The pages (HTML, built); with the OpenAPI document's `servers`, the bodies the gateway fills (page-slots.ts). */
const PAGE_ROUTES: readonly RouteName[] = ['home', 'docs', 'gradePage'];
const FILLED_ROUTES: readonly RouteName[] = [...PAGE_ROUTES, 'openapi'];
/** The tables' pages: HTML anyone may read, with no slot to fill (docs/contract.md, The front door). */
const TABLE_ROUTES: readonly RouteName[] = ['tables', 'table'];

/** A page template the gateway fills to answer the front door's form (page-slots.ts). */
export const isTemplate = (route: string) => (Object.values(PAGE_TEMPLATES) as string[]).includes(route);
/** Is a route's body a page (HTML)? The one answer the build types bodies by and the gateway fills
 * them by: the front door's pages, the tables' pages and the form's templates. */
export function isPage(route: string): boolean {
  if (isTemplate(route)) return true;
  const name = routeOf(route);
  return name !== null && (PAGE_ROUTES.includes(name) || TABLE_ROUTES.includes(name));
}
/** Is a route's body filled with the origin by the gateway (FILLED_ROUTES)? */
export const isFilled = (route: string): boolean => FILLED_ROUTES.includes(routeOf(route)!);

/** A folder route's path for one file in it: `/client/grade.js`. */
export const fileIn = (name: 'assets' | 'client' | 'tufMetadata' | 'tufTargets', file: string) =>
  `${ROUTES[name].path.slice(0, -1)}${file}`;
/** The data bodies that are TUF targets: each record, the list, the snapshot, and their crop years' forms. */
export const isTargetRoute = (route: string) => ['grain', 'grains', 'snapshot'].includes(routeOf(route) ?? '');
/** A target's path as served, from its route and its body's SHA-256 (tuf-paths.ts). */
export const tufTargetKey = (route: string, sha256: string) =>
  fileIn('tufTargets', consistentTargetFile(targetNameOf(route), sha256));
/** The client package's tarball, served with no key (docs/sync.md, The client package). */
export const CLIENT_TARBALL = fileIn('client', 'grain-tables-client.tgz');

type Matcher = { name: RouteName; kind: 'exact' | 'param' | 'folder'; prefix: string };
const MATCHERS: Matcher[] = ROUTE_NAMES.map((name) => {
  const { path } = ROUTES[name];
  if (path.endsWith('/*')) return { name, kind: 'folder', prefix: path.slice(0, -1) };
  const brace = path.indexOf('{');
  return brace < 0 ? { name, kind: 'exact', prefix: path } : { name, kind: 'param', prefix: path.slice(0, brace) };
});

/** The route a request target (path, with or without its query) belongs to, or null. A few string
 * comparisons and nothing allocated: the metrics ask it for every request. */
export function routeOf(target: string): RouteName | null {
  for (const m of MATCHERS) {
    if (!target.startsWith(m.prefix)) continue;
    if (m.kind !== 'exact') return m.name;
    const end = m.prefix.length;
    if (target.length === end || target.charCodeAt(end) === 63 /* "?" */) return m.name;
  }
  return null;
}

/** The value of a template route's parameter in `path` (still percent-encoded). */
export const paramOf = (name: RouteName, path: string) =>
  path.slice(MATCHERS.find((m) => m.name === name)!.prefix.length);

// Body keys: the build writes a body under each key, the gateway builds the same key from a request.

/** docs/contract.md, Endpoints: the changelog's `limit` defaults to 20, at most 100. */
export const CHANGELOG_DEFAULT_LIMIT = 20;
export const CHANGELOG_MAX_LIMIT = 100;

/** The canonical key of a changelog request (grain id in its canonical case). */
export const changelogKey = (grainId: string | null, limit: number) =>
  grainId ? `${ROUTES.changelog.path}?grain_id=${grainId}&limit=${limit}` : `${ROUTES.changelog.path}?limit=${limit}`;

export const grainKey = (grainId: string) => ROUTES.grain.path.replace('{grain_id}', grainId);
/** docs/contract.md, Crop years: a record as it stood in a crop year (`2025/26`), by its canonical key. */
export const CROP_YEAR_PARAM = 'crop_year';
/** A key as it stood in a crop year: the one writer of `?crop_year=`, as yearOfKey is its one reader. */
export const keyOfYear = (base: string, cropYear: string) => `${base}?${CROP_YEAR_PARAM}=${cropYear}`;
export const grainYearKey = (grainId: string, cropYear: string) => keyOfYear(grainKey(grainId), cropYear);
export const GRAIN_LIST_KEY = ROUTES.grains.path;
/** A crop year's key (a record's or the snapshot's) → the key without the year, and the year; null for others. */
export function yearOfKey(key: string): { base: string; year: string } | null {
  const at = key.indexOf(`?${CROP_YEAR_PARAM}=`);
  return at < 0 ? null : { base: key.slice(0, at), year: key.slice(at + CROP_YEAR_PARAM.length + 2) };
}
/** The snapshot of the current tables (null), or of the records as they stood in a crop year. */
export const snapshotKey = (cropYear: string | null) =>
  cropYear === null ? ROUTES.snapshot.path : keyOfYear(ROUTES.snapshot.path, cropYear);
/** A class's table page, and as it stood in a crop year, by its canonical key. */
export const tableKey = (grainId: string, cropYear?: string): string =>
  cropYear ? keyOfYear(tableKey(grainId), cropYear) : ROUTES.table.path.replace('{grain_id}', grainId);

/** Files the pages load (stylesheet, scripts, icon) and the public modules are also served under a content-
 * addressed name, `/assets/site.<12 hex digits>.css`, which never changes meaning: a cache may keep it for ever.
 * The plain name stays, as a stable alias people import or link. */
export const contentAddressed = (route: string, sha256: string) =>
  route.replace(/(\.[a-z]+)$/, `.${sha256.slice(0, 12)}$1`);
const FOLDERS = [ROUTES.assets.path, ROUTES.client.path].map((p) => p.slice(0, -1)).join('|');
export const CONTENT_ADDRESSED = new RegExp(`^(?:${FOLDERS})[^/]+\\.[0-9a-f]{12}\\.[a-z]+$`);
/** A page's link (`src` or `href`) to a file in the folders above. */
export const CONTENT_LINK = new RegExp(`(src|href)="((?:${FOLDERS})[^"]+)"`, 'g');

/** Who may keep a route's answer, and how long (docs/operations.md, "Behind a CDN"): `private`, the key holder
 * only, revalidated each time (the data); `immutable`, anyone, for a year (the content-addressed files); `shared`,
 * anyone, for a short lifetime, then revalidated (the pages, the OpenAPI document and the files' plain names). */
export type CacheClass = 'private' | 'immutable' | 'shared';
const keyed = (route: string) => ROUTES[routeOf(route) ?? 'home'].access === 'key';
export const cacheClassOf = (route: string): CacheClass =>
  CONTENT_ADDRESSED.test(route) ? 'immutable' : keyed(route) ? 'private' : 'shared';
// A body's name and strong ETag, made the same way by the build (emit/emit.ts) and the gateway (a filled page).
/** What a compressed form adds to its body's hash, in its file's name and in its ETag. */
export const ENCODING_SUFFIX: Record<Encoding, string> = { identity: '', br: '.br', gzip: '.gz' };
/** A body's hash, the build's and the gateway's (a page it fills): its SHA-256's first 32 hex digits. node:crypto
 * is asked for when called, not imported, as the browser modules bundle this file too. */
export const bodyHash = (body: Buffer | string): string =>
  process.getBuiltinModule('node:crypto').createHash('sha256').update(body).digest('hex').slice(0, 32);
/** A body's strong ETag in an encoding, from its hash: `"<hash>"`, `"<hash>.br"`, `"<hash>.gz"`. */
export const strongEtag = (hash: string, encoding: Encoding = 'identity') => `"${hash}${ENCODING_SUFFIX[encoding]}"`;
