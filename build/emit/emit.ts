// Pure: bodies → their encodings, strong ETags and the manifest. Identical bodies are stored once
// (most changelog limits give the same bytes), named by their hash.
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

export interface EmittedSite {
  manifest: Manifest;
  /** Relative path → bytes, for publish.ts. */
  files: Map<string, Buffer>;
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

function encode(encoding: Encoding, body: Buffer, brotliQuality: number): Buffer {
  if (encoding === 'br') {
    return brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: brotliQuality,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
  }
  if (encoding === 'gzip') return gzipSync(body, { level: 9 });
  return body;
}

/**
 * Bodies' encodings by hash, coding and quality, kept across builds (encoding-cache.ts: npm run
 * build's folder, and the tests', most of whose builds share the pages' scripts, the client modules
 * and the suite), so a body is compressed once. The output is the same bytes with or without it.
 */
export interface EncodingCache {
  get(key: string): Buffer | undefined;
  set(key: string, bytes: Buffer): void;
}

/** The encoder as this process runs it: what a cache of its output is named by (encoding-cache.ts). */
export const encoderSource = () => encode.toString();

function encodeOnce(
  cache: EncodingCache | undefined,
  encoding: Encoding,
  body: Buffer,
  hash: string,
  brotliQuality: number,
): Buffer {
  if (!cache) return encode(encoding, body, brotliQuality);
  const key = `${hash} ${encoding} ${brotliQuality}`;
  let bytes = cache.get(key);
  if (!bytes) {
    bytes = encode(encoding, body, brotliQuality);
    cache.set(key, bytes);
  }
  return bytes;
}

export interface EmitOptions {
  dataset_version: string;
  /** When the newest changelog entry was made (its created_at): the site's age (GET /metrics). */
  dataset_updated_at?: string;
  grain_ids: string[];
  schema_version: string;
  /** Brotli quality for the body of a route (11 is smallest and ~75× slower than 7 on small JSON). */
  brotliQuality?: (route: string) => number;
  /** Encodings kept from the caller's earlier builds (EncodingCache). */
  encodings?: EncodingCache;
}

export function emitSite(bodies: Map<string, string | Buffer>, meta: EmitOptions): EmittedSite {
  const quality = meta.brotliQuality ?? (() => 11);
  const files = new Map<string, Buffer>();
  const entries = new Map<string, BodyEntry>();
  const routes: Record<string, string> = {};
  // a body given for several routes (compile.ts names one changelog page by many limits) is hashed once
  const hashes = new Map<string | Buffer, string>();
  for (const key of [...bodies.keys()].sort()) {
    const given = bodies.get(key)!;
    const known = hashes.get(given);
    if (known !== undefined) {
      routes[key] = known;
      continue;
    }
    const body = typeof given === 'string' ? Buffer.from(given, 'utf8') : given;
    const hash = bodyHash(body);
    hashes.set(given, hash);
    routes[key] = hash;
    if (entries.has(hash)) continue;
    const kind = kindOf(key);
    const entry: BodyEntry = {
      type: BODY_TYPES[kind],
      identity: { file: `bodies/${hash}.${kind}`, length: body.length, etag: strongEtag(hash) },
    };
    files.set(entry.identity.file, body);
    for (const enc of COMPRESSED.has(kind) ? [] : ENCODINGS) {
      const bytes = encodeOnce(meta.encodings, enc, body, hash, quality(key));
      if (bytes.length >= body.length) continue; // a tiny body is smaller as it is
      const variant = {
        file: `bodies/${hash}.${kind}${ENCODING_SUFFIX[enc]}`,
        length: bytes.length,
        etag: strongEtag(hash, enc),
      };
      entry[enc] = variant;
      files.set(variant.file, bytes);
    }
    entries.set(hash, entry);
  }
  const sortedBodies = Object.fromEntries([...entries.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
  const content = {
    schema_version: meta.schema_version,
    dataset_version: meta.dataset_version,
    ...(meta.dataset_updated_at ? { dataset_updated_at: meta.dataset_updated_at } : {}),
    grain_ids: meta.grain_ids,
    routes,
    bodies: sortedBodies,
  };
  const build_id = sha(JSON.stringify(content)).slice(0, 16);
  const manifest: Manifest = { generated: 'by `npm run build` from dataset/: do not edit', build_id, ...content };
  files.set(MANIFEST_FILE, Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`));
  return { manifest, files };
}
