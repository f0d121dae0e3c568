// THE contract between the build and the gateway: how a published site is laid out, what its
// manifest and pointer hold, and the canonical key of every route. Both sides import this file;
// the gateway imports nothing else from build/ (test/layout.test.ts holds it to that). No imports.
//
//   <site>/current.json                  the pointer: which build is live (replaced by rename)
//   <site>/builds/<build_id>/manifest.json
//   <site>/builds/<build_id>/bodies/<hash>.json[.br|.gz]

export const POINTER_FILE = 'current.json';
export const MANIFEST_FILE = 'manifest.json';
export const BUILDS_DIR = 'builds';

export interface Pointer {
  build_id: string;
  /** The build's folder, relative to the site: `builds/<build_id>`. */
  dir: string;
}

/** One encoding of a body: each content-coding is a representation of its own. */
export interface ManifestVariant {
  file: string;
  length: number;
  /** Strong ETag of this representation. */
  etag: string;
}

export interface BodyEntry {
  type: string;
  identity: ManifestVariant;
  br?: ManifestVariant;
  gzip?: ManifestVariant;
}

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

/** The manifest's text → the manifest, checked against the pointer that named it. */
export function parseManifest(text: string, pointer: Pointer): Manifest {
  const manifest = JSON.parse(text) as Manifest;
  if (manifest.build_id !== pointer.build_id) {
    throw new Error(`${POINTER_FILE} names ${pointer.build_id} but its manifest is ${manifest.build_id}`);
  }
  return manifest;
}

export const pointerFor = (buildId: string): Pointer => ({ build_id: buildId, dir: `${BUILDS_DIR}/${buildId}` });

// Route keys: the build writes a body under each key, the gateway builds the same key from a request.

/** interface.md: the changelog's `limit` defaults to 20, at most 100. */
export const CHANGELOG_DEFAULT_LIMIT = 20;
export const CHANGELOG_MAX_LIMIT = 100;

/** The canonical key of a changelog request (grain id in its canonical case). */
export const changelogKey = (grainId: string | null, limit: number) =>
  grainId ? `/api/changelog?grain_id=${grainId}&limit=${limit}` : `/api/changelog?limit=${limit}`;

export const grainKey = (grainId: string) => `/api/grains/${grainId}`;

/**
 * Files the pages load (stylesheet, scripts, icon) and the public modules are also served under a
 * content-addressed name, `/assets/site.<12 hex digits>.css`, which never changes meaning: a cache
 * may keep it for ever. The plain name stays, as a stable alias people import or link.
 */
export const contentAddressed = (route: string, sha256: string) =>
  route.replace(/(\.[a-z]+)$/, `.${sha256.slice(0, 12)}$1`);
export const CONTENT_ADDRESSED = /^\/(assets|client)\/[^/]+\.[0-9a-f]{12}\.[a-z]+$/;

/**
 * Who may keep a route's answer, and how long (docs/operations.md, "Behind a CDN"): `private`, the
 * key holder only, revalidated each time (the data); `immutable`, anyone, for a year (the
 * content-addressed files); `shared`, anyone, for a short lifetime, then revalidated (the pages,
 * the OpenAPI document and the plain names of the files).
 */
export type CacheClass = 'private' | 'immutable' | 'shared';
export const cacheClassOf = (route: string): CacheClass =>
  CONTENT_ADDRESSED.test(route)
    ? 'immutable'
    : route.startsWith('/api/') && route !== '/api/openapi.json'
      ? 'private'
      : 'shared';
export const GRAIN_LIST_KEY = '/api/grains';

/**
 * The pages the gateway fills per request (docs/contract.md, The front door): the answers to the front door's form post
 * to /api/register. The build writes them as bodies under these keys (never served as they are);
 * `{{name}}` marks a slot the gateway fills with the HTML-escaped value.
 */
export const PAGE_TEMPLATES = {
  /** 201: the key, once. Slots: api_key, origin. */
  registered: '/_templates/registered',
  /** An error: the form again with its message. Slots: email, error. */
  registerError: '/_templates/register-error',
} as const;
export const TEMPLATE_SLOT = /\{\{([a-z_]+)\}\}/g;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text as HTML text or attribute value: how the build writes pages and the gateway fills slots. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The host examples name until a page's script (or, answering a form, the gateway) knows its own. */
export const ORIGIN_PLACEHOLDER = 'https://grain.example.net';
