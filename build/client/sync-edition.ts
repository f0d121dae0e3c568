// A sync's check against the signed edition (docs/sync.md, "Signed editions"): the metadata fetched
// from the service's /tuf/metadata/ (public: it costs no quota), verified from the root the copy
// trusts (the one given, else the one it kept, else the service's first root, taken on first use),
// and every file the sync would write compared with the target of its API route.
import { GRAIN_LIST_KEY, grainKey, grainYearKey } from '../site-format.ts';
import {
  EditionError,
  metadataUrl,
  type TrustedEdition,
  targetMismatch,
  type VerifiedEdition,
  verifyEdition,
} from './edition.ts';

export interface EditionOptions {
  baseUrl?: string;
  /** Where the metadata is read instead of the service (a mirror's folder or URL: mirror.ts). */
  metadata?: (file: string) => Promise<Buffer | null>;
  /** Every metadata file read, kept by name (a mirror writes them). */
  keep?: Map<string, Buffer>;
  fetch?: typeof fetch;
  /** A root to trust (its JSON text), pinned by whoever holds the copy; else the copy's, else the first seen. */
  trustedRoot?: string;
  /** What the copy trusted after its last sync (sync-state.json). */
  seen: TrustedEdition | null;
  now: number;
  log: (line: string) => void;
}

/** The edition verified, or null where the service publishes none and the copy never trusted one. */
export async function syncEdition(o: EditionOptions): Promise<VerifiedEdition | null> {
  const read = o.metadata ?? fromUrl(o.baseUrl!, o.fetch ?? fetch);
  const get = async (file: string) => {
    const bytes = await read(file);
    if (bytes) o.keep?.set(file, bytes);
    return bytes;
  };
  let trusted = o.seen;
  if (o.trustedRoot !== undefined) {
    const root = JSON.parse(o.trustedRoot);
    // a pinned root newer than the kept one replaces it; the versions seen still hold
    if (!trusted || trusted.root.signed.version < root.signed.version)
      trusted = { timestamp: 0, snapshot: 0, targets: 0, ...trusted, root };
  }
  if (!trusted) {
    const first = await get('1.root.json');
    if (!first) {
      o.log('the service publishes no signed edition: this copy is not verified');
      return null;
    }
    o.log('no root pinned: trusting the service\'s first root from now on (docs/sync.md, "Signed editions")');
    trusted = { root: JSON.parse(first.toString('utf8')), timestamp: 0, snapshot: 0, targets: 0 };
  }
  return verifyEdition(get, trusted, o.now);
}

/** A metadata file from a service's (or a mirror's) /tuf/metadata/, or null where it has none (404). */
export const fromUrl =
  (baseUrl: string, doFetch: typeof fetch) =>
  async (file: string): Promise<Buffer | null> => {
    const res = await doFetch(metadataUrl(baseUrl, file));
    if (res.status === 404) return null;
    if (!res.ok) throw new EditionError(`${file}: the server answered ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  };

/** The first file of a copy that is not its route's signed body, as a sentence; null when all are. */
export function unsignedFile(
  edition: VerifiedEdition,
  files: ReadonlyMap<string, string>,
  paths: { list: string; record: (id: string) => string },
  cropYear: string | null,
): string | null {
  for (const [file, text] of files) {
    const id = /^grains\/(.+)\.json$/.exec(file)?.[1];
    const route = id
      ? cropYear
        ? grainYearKey(id, cropYear)
        : grainKey(id)
      : file === paths.list && !cropYear
        ? GRAIN_LIST_KEY
        : null;
    if (route === null) continue; // the changelog is not a target
    const wrong = targetMismatch(edition, route, text);
    if (wrong) return wrong;
  }
  return null;
}
