// Loading a published build: from SITE_DIR, every body read into memory; or, with UPSTREAM_URL,
// from the static origin, where the bodies stay (only the pages and templates are read). One
// reader interface, two readers; the table is built the same way from either (site.ts).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { POINTER_FILE, type Pointer, parsePointer, readBuild } from '../build/site-format.ts';
import type { ServePolicy } from './cache-policy.ts';
import { pageFiles, type Site, siteFromManifest } from './site.ts';

export interface BuildReader {
  /** A file of the site by its path there: the pointer, a build's manifest, a body. */
  read(path: string): Promise<Buffer>;
  /** True when the bodies stay where they are, fetched per request (UPSTREAM_URL); false: held in memory. */
  bodiesStay: boolean;
}

export function diskReader(siteDir: string): BuildReader {
  return { read: (path) => readFile(join(siteDir, path)), bodiesStay: false };
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
    return Buffer.from(await res.arrayBuffer());
  };
  return { read, bodiesStay: true };
}

/** Which build is live now (site-watch.ts polls it). */
export const readPointer = async (reader: BuildReader): Promise<Pointer> =>
  parsePointer((await reader.read(POINTER_FILE)).toString('utf8'));

/**
 * The build `pointer` names (the live one when left out), each file read once. Held bodies must
 * all be read, at the manifest's lengths; a page or template that cannot be fetched upstream is
 * left out (site.ts serves the page as built, the form's answers plain).
 */
export async function loadSite(reader: BuildReader, policy: ServePolicy, pointer?: Pointer): Promise<Site> {
  const text = async (path: string) => (await reader.read(path)).toString('utf8');
  const { pointer: p, manifest } = await readBuild(text, pointer);
  const bytes = new Map<string, Buffer>();
  if (reader.bodiesStay) {
    const files = [...new Set(pageFiles(manifest))];
    await Promise.all(
      files.map(async (f) => {
        const body = await reader.read(`${p.dir}/${f}`).catch(() => null);
        if (body) bytes.set(f, body);
      }),
    );
  } else {
    const variants = Object.values(manifest.bodies).flatMap((e) => [e.identity, e.br, e.gzip]);
    await Promise.all(
      variants.map(async (v) => {
        if (!v) return;
        const body = await reader.read(`${p.dir}/${v.file}`);
        if (body.length !== v.length)
          throw new Error(`${v.file} has ${body.length} bytes; the manifest says ${v.length}`);
        bytes.set(v.file, body);
      }),
    );
  }
  return siteFromManifest(manifest, { bytes, upstreamDir: reader.bodiesStay ? p.dir : null }, policy);
}
