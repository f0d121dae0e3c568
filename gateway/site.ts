// A published build, loaded once into a table of ready responses: for each route, each encoding's
// bytes with its headers already built. A new build is loaded beside the live one and swapped in
// by one assignment, so a request is served wholly from the old build or wholly from the new.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type BodyEntry,
  type CacheClass,
  cacheClassOf,
  JSON_MEDIA_TYPE,
  MANIFEST_FILE,
  type Manifest,
  PAGE_ROUTES,
  PAGE_TEMPLATES,
  POINTER_FILE,
  type Pointer,
  parseManifest,
  parsePointer,
  routeOf,
  TEMPLATE_SLOT,
} from '../build/site-format.ts';
import { type Config, loadConfig } from './config.ts';
import { type PageTemplate, pageFigures, pageResource, pageTemplate } from './filled-pages.ts';
import type { Resource, Variant } from './resource.ts';

export type { Resource, Variant } from './resource.ts';

export interface Site {
  buildId: string;
  datasetVersion: string;
  /** Epoch ms of the newest changelog entry, or null (a build from before it was kept). */
  datasetUpdatedAt: number | null;
  /** Upper-case id → canonical id, for case-insensitive matching. */
  grainIds: Map<string, string>;
  routes: Map<string, Resource>;
  /**
   * The page templates the gateway fills (PAGE_TEMPLATES), split at their slots once, at load:
   * text and slot names alternating. Absent in older builds.
   */
  templates: Map<string, string[]>;
  /** Without PUBLIC_URL, the pages, filled per origin they are asked from (filled-pages.ts). */
  pages: Map<string, PageTemplate>;
}

export const DATA_CACHE_CONTROL = 'private, no-cache';

/** How the gateway serves a build's public answers: PUBLIC_CACHE_SECONDS (docs/operations.md). */
export interface ServePolicy {
  /** The shared lifetime of a page, the OpenAPI document or a plain-named file at a cache. */
  sharedSeconds: number;
  /** The configuration's figures the pages state (filled-pages.ts, pageFigures). */
  figures: Readonly<Record<string, string>>;
  /** PUBLIC_URL: the origin the pages' examples name; null: the origin each request was sent to. */
  publicUrl: string | null;
}

/** The serving policy from the configuration: the shared lifetime, the pages' limits and origin. */
export const servePolicy = (
  config: Pick<Config, 'publicCacheSeconds' | 'rateLimitPerHour' | 'registerLimitPerHour' | 'publicUrl'>,
): ServePolicy => ({
  sharedSeconds: config.publicCacheSeconds,
  figures: pageFigures(config),
  publicUrl: config.publicUrl,
});
export const DEFAULT_POLICY: ServePolicy = servePolicy(loadConfig({}));

/** A page filled per request from its Host is never kept by a shared cache (filled-pages.ts). */
const PER_HOST_PAGE_CACHE = 'private, no-cache';

/** A route's Cache-Control (site-format.ts, cacheClassOf); browsers keep a page a minute at most. */
function cacheControlOf(cls: CacheClass, policy: ServePolicy): string {
  if (cls === 'private') return DATA_CACHE_CONTROL;
  if (cls === 'immutable') return 'public, max-age=31536000, immutable';
  return `public, max-age=${Math.min(60, policy.sharedSeconds)}, s-maxage=${policy.sharedSeconds}`;
}

/** The pages may load only what this service serves; nothing may frame them. */
export const PAGE_HEADERS: readonly string[] = [
  'Content-Security-Policy',
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options',
  'nosniff',
  'Referrer-Policy',
  'no-referrer',
];

/** The headers of one encoding of a body, served under a route of that cache class. A 304 says the same as its 200. */
export function variantHeaders(
  entry: { type: string },
  v: { length: number; etag: string },
  encoding: string | null,
  serving: { cache: string; publicModule: boolean },
): string[] {
  const json = entry.type.startsWith(JSON_MEDIA_TYPE);
  const h = [
    'Content-Type',
    entry.type,
    'Content-Length',
    String(v.length),
    'ETag',
    v.etag,
    'Cache-Control',
    serving.cache,
    'Vary',
    'Accept-Encoding',
  ];
  if (!json) h.push(...PAGE_HEADERS);
  else h.push('X-Content-Type-Options', 'nosniff');
  // The code and files under /client/ are public modules any page may import (the grader and its
  // suite, docs/grading.md); data stays without CORS (docs/contract.md, Errors and HTTP).
  if (serving.publicModule) h.push('Access-Control-Allow-Origin', '*');
  if (encoding) h.push('Content-Encoding', encoding);
  return h;
}

/** One encoding of a body, ready to write: its bytes (or its path upstream), headers and 304 headers. */
function preparedVariant(
  entry: { type: string },
  v: { length: number; etag: string },
  encoding: string | null,
  serving: { cache: string; publicModule: boolean },
  body: Buffer | null,
  path?: string,
): Variant {
  const headers = variantHeaders(entry, v, encoding, serving);
  const notModifiedHeaders = ['ETag', v.etag, 'Cache-Control', serving.cache, 'Vary', 'Accept-Encoding'];
  return path === undefined
    ? { body, etag: v.etag, headers, notModifiedHeaders }
    : { body: null, path, etag: v.etag, headers, notModifiedHeaders };
}

/**
 * Builds the table from a manifest. `read` gives a file's bytes (from disk); without it the bytes
 * stay at the upstream origin and each variant keeps its path there (`dir` is the build's folder).
 */
export async function siteFromManifest(
  manifest: Manifest,
  read: ((file: string) => Promise<Buffer>) | { dir: string },
  /** Reads the few page templates, which are held in memory also when bodies stay upstream. */
  readTemplate: (file: string) => Promise<Buffer> = typeof read === 'function' ? read : () => Promise.reject(),
  policy: ServePolicy = DEFAULT_POLICY,
): Promise<Site> {
  // Each body's bytes are read once; a body served under routes of two cache classes (a file's
  // plain and content-addressed names) gets one resource per class, sharing the bytes.
  const bytes = new Map<string, Buffer | null>();
  await Promise.all(
    Object.values(manifest.bodies).flatMap((entry) =>
      [entry.identity, entry.br, entry.gzip].map(async (v) => {
        if (!v) return;
        if (typeof read !== 'function') return void bytes.set(v.file, null);
        const body = await read(v.file);
        if (body.length !== v.length)
          throw new Error(`${v.file} has ${body.length} bytes; the manifest says ${v.length}`);
        bytes.set(v.file, body);
      }),
    ),
  );
  const resources = new Map<string, Resource>();
  const resourceFor = (hash: string, route: string): Resource => {
    const cls = cacheClassOf(route);
    const publicModule = routeOf(route) === 'client';
    const id = `${hash} ${cls} ${publicModule}`;
    const known = resources.get(id);
    if (known) return known;
    const entry: BodyEntry = manifest.bodies[hash]!;
    const serving = { cache: cacheControlOf(cls, policy), publicModule };
    const variant = (v: BodyEntry['identity'], encoding: string | null): Variant =>
      typeof read === 'function'
        ? preparedVariant(entry, v, encoding, serving, bytes.get(v.file) ?? null)
        : preparedVariant(entry, v, encoding, serving, null, `/${read.dir}/${v.file}`);
    const r: Resource = {
      identity: variant(entry.identity, null),
      br: entry.br && variant(entry.br, 'br'),
      gzip: entry.gzip && variant(entry.gzip, 'gzip'),
      etags: new Set([entry.identity.etag, entry.br?.etag, entry.gzip?.etag].filter((e): e is string => Boolean(e))),
    };
    resources.set(id, r);
    return r;
  };
  const routes = new Map<string, Resource>();
  for (const [key, hash] of Object.entries(manifest.routes)) routes.set(key, resourceFor(hash, key));
  const templates = new Map<string, string[]>();
  for (const key of Object.values(PAGE_TEMPLATES)) {
    const hash = manifest.routes[key];
    // a template that cannot be read leaves the form's answers to form-pages.ts's plain pages
    const text = hash && (await readTemplate(manifest.bodies[hash]!.identity.file).catch(() => null));
    if (text) templates.set(key, text.toString('utf8').split(TEMPLATE_SLOT));
  }
  // The pages, filled (filled-pages.ts): with PUBLIC_URL once, here, and served as any body; else
  // per request from its Host. A page that cannot be read is served as built rather than not at all.
  const pages = new Map<string, PageTemplate>();
  const pageNames = new Set(PAGE_ROUTES);
  for (const [key, hash] of Object.entries(manifest.routes)) {
    const name = routeOf(key);
    if (!name || !pageNames.has(name)) continue;
    const entry = manifest.bodies[hash]!;
    const text = await readTemplate(entry.identity.file).catch(() => null);
    if (!text) continue;
    const cache = policy.publicUrl ? cacheControlOf(cacheClassOf(key), policy) : PER_HOST_PAGE_CACHE;
    const serving = { cache, publicModule: false };
    const page = pageTemplate(text.toString('utf8'), policy.figures, (body, etag, encoding) =>
      preparedVariant(entry, { length: body.length, etag }, encoding, serving, body),
    );
    if (policy.publicUrl) routes.set(key, pageResource(page, policy.publicUrl, true));
    else pages.set(key, page);
  }
  return {
    buildId: manifest.build_id,
    datasetVersion: manifest.dataset_version,
    datasetUpdatedAt: Number.isFinite(Date.parse(manifest.dataset_updated_at ?? ''))
      ? Date.parse(manifest.dataset_updated_at!)
      : null,
    grainIds: new Map(manifest.grain_ids.map((id) => [id.toUpperCase(), id])),
    routes,
    templates,
    pages,
  };
}

export async function readPointerFile(siteDir: string): Promise<Pointer> {
  return parsePointer(await readFile(join(siteDir, POINTER_FILE), 'utf8'));
}

export async function loadSiteFromDisk(siteDir: string, pointer?: Pointer, policy?: ServePolicy): Promise<Site> {
  const p = pointer ?? (await readPointerFile(siteDir));
  const dir = join(siteDir, p.dir);
  const manifest = parseManifest(await readFile(join(dir, MANIFEST_FILE), 'utf8'), p);
  const read = (file: string) => readFile(join(dir, file));
  return siteFromManifest(manifest, read, read, policy);
}

/** UPSTREAM_URL: the pointer and manifest come from the static origin; bodies stay there. */
export async function readUpstreamPointer(base: string, timeoutMs: number): Promise<Pointer> {
  const res = await fetch(`${base}/${POINTER_FILE}`, {
    signal: AbortSignal.timeout(timeoutMs),
    headers: { 'cache-control': 'no-cache' },
  });
  if (!res.ok) throw new Error(`the upstream origin answered ${res.status} for ${POINTER_FILE}`);
  return parsePointer(await res.text());
}

export async function loadSiteFromUpstream(
  base: string,
  timeoutMs: number,
  pointer?: Pointer,
  policy?: ServePolicy,
): Promise<Site> {
  const p = pointer ?? (await readUpstreamPointer(base, timeoutMs));
  const res = await fetch(`${base}/${p.dir}/${MANIFEST_FILE}`, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`the upstream origin answered ${res.status} for ${p.dir}/${MANIFEST_FILE}`);
  const manifest = parseManifest(await res.text(), p);
  const readTemplate = async (file: string) => {
    const r = await fetch(`${base}/${p.dir}/${file}`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!r.ok) throw new Error(`the upstream origin answered ${r.status} for ${p.dir}/${file}`);
    return Buffer.from(await r.arrayBuffer());
  };
  return siteFromManifest(manifest, { dir: p.dir }, readTemplate, policy);
}
