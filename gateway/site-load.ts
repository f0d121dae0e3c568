// Loading a published build: from SITE_DIR, every body read into memory; or, with UPSTREAM_URL,
// from the static origin, where the bodies stay (only the pages and templates are read). One
// reader interface, two readers; the table is built the same way from either (site.ts).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE, POINTER_FILE, type Pointer, parseManifest, parsePointer } from '../build/site-format.ts';
import type { ServePolicy } from './cache-policy.ts';
import { pageFiles, type Site, siteFromManifest } from './site.ts';

export interface BuildReader {
  /** The pointer: which build is live. */
  readPointer(): Promise<Pointer>;
  /** A file of the build `p` names, by its path in the build's folder (the manifest, a body). */
  readFile(p: Pointer, file: string): Promise<Buffer>;
  /** True when the bodies stay where they are, fetched per request (UPSTREAM_URL); false: held in memory. */
  bodiesStay: boolean;
}

export function diskReader(siteDir: string): BuildReader {
  return {
    readPointer: async () => parsePointer(await readFile(join(siteDir, POINTER_FILE), 'utf8')),
    readFile: (p, file) => readFile(join(siteDir, p.dir, file)),
    bodiesStay: false,
  };
}

/** UPSTREAM_URL: the pointer, the manifest and the pages come from the static origin. */
export function upstreamReader(base: string, timeoutMs: number): BuildReader {
  const get = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${base}/${path}`, { signal: AbortSignal.timeout(timeoutMs), ...init });
    if (!res.ok) throw new Error(`the upstream origin answered ${res.status} for ${path}`);
    return Buffer.from(await res.arrayBuffer());
  };
  return {
    readPointer: async () =>
      parsePointer((await get(POINTER_FILE, { headers: { 'cache-control': 'no-cache' } })).toString('utf8')),
    readFile: (p, file) => get(`${p.dir}/${file}`),
    bodiesStay: true,
  };
}

/**
 * The build `pointer` names (the live one when left out), each file read once. Held bodies must
 * all be read, at the manifest's lengths; a page or template that cannot be fetched upstream is
 * left out (site.ts serves the page as built, the form's answers plain).
 */
export async function loadSite(reader: BuildReader, policy: ServePolicy, pointer?: Pointer): Promise<Site> {
  const p = pointer ?? (await reader.readPointer());
  const manifest = parseManifest((await reader.readFile(p, MANIFEST_FILE)).toString('utf8'), p);
  const bytes = new Map<string, Buffer>();
  if (reader.bodiesStay) {
    const files = [...new Set(pageFiles(manifest))];
    await Promise.all(
      files.map(async (f) => {
        const body = await reader.readFile(p, f).catch(() => null);
        if (body) bytes.set(f, body);
      }),
    );
  } else {
    const variants = Object.values(manifest.bodies).flatMap((e) => [e.identity, e.br, e.gzip]);
    await Promise.all(
      variants.map(async (v) => {
        if (!v) return;
        const body = await reader.readFile(p, v.file);
        if (body.length !== v.length)
          throw new Error(`${v.file} has ${body.length} bytes; the manifest says ${v.length}`);
        bytes.set(v.file, body);
      }),
    );
  }
  return siteFromManifest(manifest, { bytes, upstreamDir: reader.bodiesStay ? p.dir : null }, policy);
}
