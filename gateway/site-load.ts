// Loading a published build: from SITE_DIR, what most clients take read into memory and the rest
// read when asked (hotBodies, body-reader.ts); or, with UPSTREAM_URL, from
// the static origin, where the bodies stay (only the pages and templates are read). One reader
// interface, two readers; the table is built the same way from either (site.ts).
import { statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import {
  type BodyEntry,
  CHANGELOG_DEFAULT_LIMIT,
  type Manifest,
  POINTER_FILE,
  type Pointer,
  parsePointer,
  readBuild,
  routeOf,
  yearOfKey,
} from '../build/site-format.ts';
import { type BodyReader, unzip } from './body-reader.ts';
import type { ServePolicy } from './cache-policy.ts';
import { ERRORS } from './errors.ts';
import type { BodyLoader } from './resource.ts';
import { pageFiles, type Site, siteFromManifest } from './site.ts';

export interface BuildReader {
  /** A file of the site by its path there: the pointer, a build's manifest, a body. */
  read(path: string): Promise<Buffer>;
  /** True when the bodies stay where they are, fetched per request (UPSTREAM_URL); false: on disk here. */
  bodiesStay: boolean;
  /** On disk: how the bodies not held are read when asked; without it, every body is held. */
  asked?: { dir: string; bodies: BodyReader };
  /** At the origin: a gzip file fetched and unzipped as it comes, for a plain form stored only so. */
  unzipped?: (path: string, length: number) => BodyLoader;
  /** When current.json was last written (epoch ms): the time the live build went live; null when not told. */
  published(): Promise<number | null>;
}

export function diskReader(siteDir: string, bodies?: BodyReader): BuildReader {
  const read = (path: string) => readFile(join(siteDir, path));
  const published = () =>
    stat(join(siteDir, POINTER_FILE)).then(
      (s) => s.mtimeMs,
      () => null,
    );
  return { read, bodiesStay: false, asked: bodies && { dir: siteDir, bodies }, published };
}

/** A file the static origin did not give: a sentence naming UPSTREAM_URL, the file and why. */
export class UpstreamError extends Error {}

/** Why a fetch failed, in words: fetch's own message is "fetch failed", its cause says why. */
function failureOf(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = err instanceof Error ? (err.cause as NodeJS.ErrnoException | undefined) : undefined;
  return cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/** UPSTREAM_URL: the pointer, the manifest and the pages come from the static origin. */
export function upstreamReader(base: string, timeoutMs: number): BuildReader {
  // the pointer changes in place: a cache between must ask the origin; a build's files never change
  const fresh = { 'cache-control': 'no-cache' };
  /** current.json's Last-Modified as the origin last gave it. */
  let pointerModified: number | null = null;
  const read = async (path: string) => {
    const headers = path === POINTER_FILE ? fresh : undefined;
    const fail = (why: string) => new UpstreamError(`UPSTREAM_URL ${base}: ${path} could not be fetched (${why})`);
    let res: Response;
    try {
      res = await fetch(`${base}/${path}`, { signal: AbortSignal.timeout(timeoutMs), headers });
    } catch (err) {
      throw fail(failureOf(err, timeoutMs));
    }
    if (!res.ok) throw fail(`the origin answered ${res.status}`);
    if (path === POINTER_FILE) {
      const modified = Date.parse(res.headers.get('last-modified') ?? '');
      pointerModified = Number.isFinite(modified) ? modified : null;
    }
    return Buffer.from(await res.arrayBuffer());
  };
  // answered as a file proxied is (server-proxy.ts): 502 when the origin fails, 504 with no answer in time
  const unzipped = (path: string, length: number) => async () => {
    const noAnswer = new AbortController();
    const timer = setTimeout(() => noAnswer.abort(), timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${base}/${path}`, { signal: noAnswer.signal, headers: { 'accept-encoding': 'identity' } });
    } catch {
      throw noAnswer.signal.aborted ? ERRORS.upstreamTimeout : ERRORS.upstreamFailed;
    } finally {
      clearTimeout(timer);
    }
    const given = res.headers.get('content-length');
    if (res.status !== 200 || !res.body || (given !== null && given !== String(length))) {
      await res.body?.cancel();
      throw ERRORS.upstreamFailed;
    }
    const body = Readable.fromWeb(res.body as ReadableStream<Uint8Array>);
    // an origin that labels a .gz file with its coding (Apache's AddEncoding) has it unzipped by fetch already
    return /gzip/i.test(res.headers.get('content-encoding') ?? '') ? body : unzip(body);
  };
  return { read, bodiesStay: true, unzipped, published: async () => pointerModified };
}

/** Which build is live now (site-watch.ts polls it). */
export const readPointer = async (reader: BuildReader): Promise<Pointer> =>
  parsePointer((await reader.read(POINTER_FILE)).toString('utf8'));

/**
 * `fn` on every item, LOAD_AT_ONCE at a time: a build's thousands of files are read or looked at
 * without as many operations in flight at once.
 */
type BodyVariant = { file: string; length: number };

async function eachAtOnce<T>(items: readonly T[], fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: LOAD_AT_ONCE }, worker));
}
const LOAD_AT_ONCE = 16;
/**
 * The plain form of a body clients ask for most is held too when it is small (a record, the list):
 * read from disk, the plain record was served slower (docs/performance.md, Growth); a large one
 * (the snapshot, a changelog page of long entries) is read when asked.
 */
const HELD_PLAIN_MAX = 64 * 1024;

/**
 * The bodies whose compressed encodings are read at the load, on disk (docs/operations.md, "What
 * an instance needs"): what clients ask for most. The pages and files, and of the data the current
 * tables (the list, each record, the snapshot) and the changelog at its default limit; not a past
 * crop year's bodies (records, snapshots, table pages) nor the changelog at the other limits.
 */
function hotBodies(manifest: Manifest): Set<BodyEntry> {
  const hot = new Set<BodyEntry>();
  for (const [key, hash] of Object.entries(manifest.routes)) {
    const other =
      (routeOf(key) === 'changelog' && !key.endsWith(`limit=${CHANGELOG_DEFAULT_LIMIT}`)) ||
      routeOf(key) === 'tufTargets'; // the same bodies as their API routes: hot, or not, by those
    if (yearOfKey(key) === null && !other) hot.add(manifest.bodies[hash]!);
  }
  return hot;
}

/**
 * The build `pointer` names (the live one when left out), each file read once. On disk, the bodies
 * held are read at the manifest's lengths and the others' lengths are checked, so a damaged build is
 * refused at its load; upstream, a page or template that cannot be fetched is left out (site.ts
 * serves the page as built, the form's answers plain).
 */
export async function loadSite(reader: BuildReader, policy: ServePolicy, pointer?: Pointer): Promise<Site> {
  const text = async (path: string) => (await reader.read(path)).toString('utf8');
  const { pointer: p, manifest } = await readBuild(text, pointer);
  const published = await reader.published();
  const bytes = new Map<string, Buffer>();
  if (reader.bodiesStay) {
    const files = [...new Set(pageFiles(manifest))];
    await Promise.all(
      files.map(async (f) => {
        const body = await reader.read(`${p.dir}/${f}`).catch(() => null);
        if (body) bytes.set(f, body);
      }),
    );
    const unzipped = (file: string, length: number) => reader.unzipped!(`${p.dir}/${file}`, length);
    return siteFromManifest(manifest, { bytes, upstreamDir: p.dir, unzipped, published }, policy);
  }
  const { asked } = reader;
  const pages = new Set(pageFiles(manifest));
  const hot = hotBodies(manifest);
  const mismatch = (file: string, length: number, expected: number) =>
    new Error(`${file} has ${length} bytes; the manifest says ${expected}`);
  // held: read now, at the manifest's lengths; the rest: their lengths looked at, so a damaged
  // build is refused at its load all the same (a few hundred at a time, the event loop free between)
  const held: BodyVariant[] = [];
  const cold: BodyVariant[] = [];
  for (const e of Object.values(manifest.bodies)) {
    for (const v of [e.identity, e.br, e.gzip]) {
      if (v?.file === undefined) continue; // a plain form stored only as gzip is unzipped when asked
      const stored = v as BodyVariant;
      const plain = v === e.identity;
      const read =
        !asked ||
        pages.has(v.file) ||
        (plain ? !(e.br || e.gzip) || (hot.has(e) && v.length <= HELD_PLAIN_MAX) : hot.has(e));
      (read ? held : cold).push(stored);
    }
  }
  await eachAtOnce(held, async (v) => {
    const body = await reader.read(`${p.dir}/${v.file}`);
    if (body.length !== v.length) throw mismatch(v.file, body.length, v.length);
    bytes.set(v.file, body);
  });
  for (let i = 0; i < cold.length; i += 256) {
    for (const v of cold.slice(i, i + 256)) {
      const { size } = statSync(join(asked!.dir, p.dir, v.file));
      if (size !== v.length) throw mismatch(v.file, size, v.length);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const inBuild = (file: string) => join(asked!.dir, p.dir, file);
  const onDemand = asked && ((file: string, length: number) => () => asked.bodies.get(inBuild(file), length));
  const unzipped = (file: string, length: number): BodyLoader =>
    asked ? () => asked.bodies.unzipped(inBuild(file), length) : async () => unzip(Readable.from([bytes.get(file)!]));
  return siteFromManifest(manifest, { bytes, upstreamDir: null, onDemand, unzipped, published }, policy);
}
