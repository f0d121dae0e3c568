// Bodies → their encodings, strong ETags and the manifest, a body at a time: each is encoded and
// handed to the build's files (a Map in memory, or a folder: build-files.ts) before the next is
// made, so nothing is held but the manifest. Identical bodies are stored once, named by their hash.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import {
  BODY_TYPES,
  type BodyEntry,
  type BodyKind,
  bodyHash,
  ENCODING_SUFFIX,
  ENCODINGS,
  type Encoding,
  isPage,
  MANIFEST_FILE,
  type Manifest,
  strongEtag,
} from '../site-format.ts';

/** What a route's body is: JSON but the pages (site-format.ts, isPage), the assets and the client package. */
function kindOf(route: string): BodyKind {
  if (isPage(route)) return 'html';
  const ext = route.slice(route.lastIndexOf('.') + 1);
  return ext === 'css' || ext === 'js' || ext === 'svg' || ext === 'tgz' || ext === 'atom' ? ext : 'json';
}
/** Kinds already compressed: a content-coding would only cost the build time. */
const COMPRESSED: ReadonlySet<BodyKind> = new Set(['tgz']);

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

/**
 * The compression a body gets: `small`, the smallest form, for the few bodies clients sync and
 * the pages; `fast`, for the many that few ask for (the changelog at each limit, a past crop
 * year's bodies), at nearly the same size for a fraction of the time (docs/performance.md, Growth).
 */
type Effort = 'small' | 'fast';
const LEVELS: Record<Effort, Record<Exclude<Encoding, 'identity'>, number>> = {
  small: { br: 11, gzip: 9 },
  fast: { br: 6, gzip: 6 },
};

function encode(encoding: Encoding, body: Buffer, level: number): Buffer {
  if (encoding === 'br') {
    return brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: level,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
  }
  if (encoding === 'gzip') return gzipSync(body, { level });
  return body;
}

/**
 * Bodies' encodings by hash, coding and level, kept across builds (encoding-cache.ts: npm run
 * build's folder, and the tests', most of whose builds share the pages' scripts, the client modules
 * and the suite), so a body is compressed once. The output is the same bytes with or without it.
 */
export interface EncodingCache {
  get(key: string): Buffer | undefined;
  set(key: string, bytes: Buffer): void;
  /** The file an entry is kept in, where it is one: a build's folder may link it (build-files.ts). */
  fileOf?(key: string): string | undefined;
}

/** The encoder as this process runs it: what a cache of its output is named by (encoding-cache.ts). */
export const encoderSource = () => encode.toString();

function encodeOnce(
  cache: EncodingCache | undefined,
  encoding: Encoding,
  body: Buffer,
  hash: string,
  level: number,
): { bytes: Buffer; file?: string } {
  if (!cache) return { bytes: encode(encoding, body, level) };
  const key = `${hash} ${encoding} ${level}`;
  let bytes = cache.get(key);
  if (!bytes) {
    bytes = encode(encoding, body, level);
    cache.set(key, bytes);
  }
  return { bytes, file: cache.fileOf?.(key) };
}

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

export function emitSite<F extends BuildFiles = Map<string, Buffer>>(
  bodies: Iterable<readonly [readonly string[], string | Buffer]>,
  meta: EmitOptions,
  files: F = new Map() as unknown as F,
): EmittedSite<F> {
  const effort = meta.effort ?? (() => 'small');
  const entries = new Map<string, BodyEntry>();
  const routes = new Map<string, string>();
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
      continue;
    }
    const entry: BodyEntry = {
      type: BODY_TYPES[kind],
      identity: { file: `bodies/${hash}.${kind}`, length: body.length, etag: strongEtag(hash) },
    };
    files.set(entry.identity.file, body);
    // the effort of the route that sorts first: one body given under two keys is compressed once
    const levels = LEVELS[effort([...keys].sort()[0]!)];
    for (const enc of COMPRESSED.has(kind) ? [] : ENCODINGS) {
      const { bytes, file } = encodeOnce(meta.encodings, enc, body, hash, levels[enc]);
      if (bytes.length >= body.length) continue; // a tiny body is smaller as it is
      const variant = {
        file: `bodies/${hash}.${kind}${ENCODING_SUFFIX[enc]}`,
        length: bytes.length,
        etag: strongEtag(hash, enc),
      };
      entry[enc] = variant;
      files.set(variant.file, bytes, file);
    }
    entries.set(hash, entry);
  }
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
