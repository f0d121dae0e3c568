// A body's content-codings, made on libuv's thread pool (zlib's callback forms), so that the build
// makes the next bodies while the last ones are compressed (emit.ts), and kept across builds by
// hash, coding and level (EncodingCache) so that a body is compressed once.
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Encoding } from '../site-format.ts';

type Coding = Exclude<Encoding, 'identity'>;

/**
 * The compression a body gets: `small`, the smallest form, for the few bodies clients sync and
 * the pages; `fast`, for the many that few ask for (the changelog at each limit, a past crop
 * year's bodies), at nearly the same size for a fraction of the time (docs/performance.md, Growth).
 */
export type Effort = 'small' | 'fast';
export const LEVELS: Record<Effort, Record<Coding, number>> = {
  small: { br: 11, gzip: 9 },
  fast: { br: 6, gzip: 6 },
};

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

function encode(encoding: Coding, body: Buffer, level: number): Promise<Buffer> {
  if (encoding === 'br') {
    return brotliAsync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: level,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
  }
  return gzipAsync(body, { level });
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

/** A body's encoding, from the cache where it is kept there; `file`, the cache's file that holds it. */
export async function encodeOnce(
  cache: EncodingCache | undefined,
  encoding: Coding,
  body: Buffer,
  hash: string,
  level: number,
): Promise<{ bytes: Buffer; file?: string }> {
  if (!cache) return { bytes: await encode(encoding, body, level) };
  const key = `${hash} ${encoding} ${level}`;
  let bytes = cache.get(key);
  if (!bytes) {
    bytes = await encode(encoding, body, level);
    cache.set(key, bytes);
  }
  return { bytes, file: cache.fileOf?.(key) };
}
