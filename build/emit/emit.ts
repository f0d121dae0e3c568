// Bodies → their encodings, strong ETags and the manifest, a few bodies at a time: each is encoded
// on the thread pool (encode.ts) while the next ones are made, then handed to the build's files (a
// Map in memory, or a folder: build-files.ts), so nothing is held but the manifest and the bodies
// under way. Identical bodies are stored once, named by their hash; the plain form of a data body
// few ask for, only as its gzip form (plainStored).
import { createHash } from 'node:crypto';
import {
  BODY_TYPES,
  type BodyEntry,
  type BodyKind,
  bodyHash,
  CHANGELOG_DEFAULT_LIMIT,
  cacheClassOf,
  ENCODING_SUFFIX,
  ENCODINGS,
  isPage,
  MANIFEST_FILE,
  type Manifest,
  routeOf,
  strongEtag,
  yearOfKey,
} from '../site-format.ts';
import { type Effort, type EncodingCache, encodeOnce, LEVELS } from './encode.ts';

/** What a route's body is: JSON but the pages (site-format.ts, isPage), the assets and the client package. */
function kindOf(route: string): BodyKind {
  if (isPage(route)) return 'html';
  const ext = route.slice(route.lastIndexOf('.') + 1);
  return ext === 'css' || ext === 'js' || ext === 'svg' || ext === 'tgz' || ext === 'atom' ? ext : 'json';
}
/** Kinds already compressed: a content-coding would only cost the build time. */
const COMPRESSED: ReadonlySet<BodyKind> = new Set(['tgz']);

/** A route few clients ask for: a past crop year's, or the changelog at one of its other limits. */
const fewAskFor = (route: string) =>
  yearOfKey(route) !== null || (routeOf(route) === 'changelog' && !route.endsWith(`limit=${CHANGELOG_DEFAULT_LIMIT}`));
/**
 * Is a body's plain form stored as a file of its own, given the routes it answers? Not where each is a data
 * route few ask for: their plain forms were nearly all of an archive's bytes on disk (the changelog at a
 * hundred limits), and only a client that takes no gzip asks for one, so only the gzip form is stored and the
 * gateway unzips it when asked (docs/performance.md, Growth). Its ETag and bytes are the plain body's still.
 */
const plainStored = (routes: readonly string[]) => routes.some((r) => !fewAskFor(r) || cacheClassOf(r) !== 'private');

/** Where a build's files go, each once, by its path in the build: a Map, or a folder (build-files.ts). */
export interface BuildFiles {
  /** `kept`: a file that holds these very bytes, which a folder may link rather than write. */
  set(path: string, bytes: Buffer, kept?: string): unknown;
}

export interface EmittedSite<F extends BuildFiles = Map<string, Buffer>> {
  manifest: Manifest;
  /** Relative path → bytes, for publish.ts. */
  files: F;
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

export interface EmitOptions {
  dataset_version: string;
  /** When the newest changelog entry was made (its created_at): the site's age (GET /metrics). */
  dataset_updated_at?: string;
  grain_ids: string[];
  schema_version: string;
  /** The compression of the body of a route (Effort); `small` when left out. */
  effort?: (route: string) => Effort;
  /** Encodings kept from the caller's earlier builds (EncodingCache). */
  encodings?: EncodingCache;
}

/** The manifest's file as written: one line per field, so a build's diff reads. */
export const manifestText = (manifest: Manifest) => `${JSON.stringify(manifest, null, 1)}\n`;

/**
 * Bodies whose encodings may be under way at once: enough that one slow body (brotli's best on a
 * large one) leaves the others flowing and the thread pool busy; few, so that little is held.
 */
const IN_FLIGHT = 4;

export async function emitSite<F extends BuildFiles = Map<string, Buffer>>(
  bodies: Iterable<readonly [readonly string[], string | Buffer]>,
  meta: EmitOptions,
  files: F = new Map() as unknown as F,
): Promise<EmittedSite<F>> {
  const effort = meta.effort ?? (() => 'small');
  const entries = new Map<string, BodyEntry>();
  const routes = new Map<string, string>();
  // each body's files are handed over as its encodings are done: the files' order is not the
  // build's (the manifest, sorted, is)
  const underWay = new Set<Promise<void>>();
  // the bodies whose plain form is stored (plainStored), and those whose encodings are done
  const plain = new Set<string>();
  const finished = new Set<string>();
  /** A plain file stored after all, for a body given again under a route that needs it. */
  const wanted = (hash: string, entry: BodyEntry, body: Buffer, kind: BodyKind) => {
    plain.add(hash);
    if (!finished.has(hash) || entry.identity.file !== undefined) return;
    entry.identity = { file: `bodies/${hash}.${kind}`, ...entry.identity };
    files.set(entry.identity.file!, body);
  };
  for (const [keys, given] of bodies) {
    const body = typeof given === 'string' ? Buffer.from(given, 'utf8') : given;
    const hash = bodyHash(body);
    for (const key of keys) {
      if (routes.has(key)) throw new Error(`${key} is given two bodies`);
      routes.set(key, hash);
    }
    // a body's kind is its routes' (one body under two kinds would be two files of one hash)
    const kind = kindOf(keys[0]!);
    const known = entries.get(hash);
    if (known) {
      if (known.type !== BODY_TYPES[kind]) throw new Error(`${keys[0]} is the bytes of another kind of body`);
      if (!plain.has(hash) && plainStored(keys)) wanted(hash, known, body, kind);
      continue;
    }
    const plainFile = `bodies/${hash}.${kind}`;
    const entry: BodyEntry = {
      type: BODY_TYPES[kind],
      identity: { file: plainFile, length: body.length, etag: strongEtag(hash) },
    };
    entries.set(hash, entry);
    if (plainStored(keys)) plain.add(hash);
    // the effort of the route that sorts first: one body given under two keys is compressed once
    const levels = LEVELS[effort([...keys].sort()[0]!)];
    const codings = COMPRESSED.has(kind) ? [] : ENCODINGS;
    const encoded = Promise.all(codings.map((enc) => encodeOnce(meta.encodings, enc, body, hash, levels[enc])));
    const done: Promise<void> = encoded.then((made) => {
      codings.forEach((enc, i) => {
        const { bytes, file } = made[i]!;
        if (bytes.length >= body.length) return; // a tiny body is smaller as it is
        const variant = { file: `${plainFile}${ENCODING_SUFFIX[enc]}`, length: bytes.length };
        entry[enc] = { ...variant, etag: strongEtag(hash, enc) };
        files.set(variant.file, bytes, file);
      });
      if (plain.has(hash) || !entry.gzip) files.set(plainFile, body);
      else entry.identity = { length: body.length, etag: entry.identity.etag };
      finished.add(hash);
      underWay.delete(done);
    });
    // seen when awaited below; until then a failure must not count as one nobody awaits
    done.catch(() => {});
    underWay.add(done);
    if (underWay.size >= IN_FLIGHT) await Promise.race(underWay);
  }
  await Promise.all(underWay);
  const sortedRoutes = Object.fromEntries([...routes].sort(([a], [b]) => (a < b ? -1 : 1)));
  const sortedBodies = Object.fromEntries([...entries.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
  const content = {
    schema_version: meta.schema_version,
    dataset_version: meta.dataset_version,
    ...(meta.dataset_updated_at ? { dataset_updated_at: meta.dataset_updated_at } : {}),
    grain_ids: meta.grain_ids,
    routes: sortedRoutes,
    bodies: sortedBodies,
  };
  const build_id = sha(JSON.stringify(content)).slice(0, 16);
  const manifest: Manifest = { generated: 'by `npm run build` from dataset/: do not edit', build_id, ...content };
  files.set(MANIFEST_FILE, Buffer.from(manifestText(manifest)));
  return { manifest, files };
}
