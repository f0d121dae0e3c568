// The bodies few clients ask for, streamed from the build on disk when asked (docs/operations.md,
// "What an instance needs"): the plain form of a body that has compressed ones, a past crop
// year's, the changelog beyond its default limit (site-load.ts says which). What most clients take
// stays in memory from the load, so the resident set follows the current tables, not the archive.
// Nothing read is kept: the system's page cache keeps the files, for every instance on the host.
// A body is sent a chunk at a time, as the socket takes it: a request holds a chunk, not the body,
// and the chunks, all of one size, are reused by the allocator; read whole, each large body was an
// allocation of its own size, which the allocator kept after it was freed, and the resident set
// grew with the bodies read (docs/performance.md, Growth).
// A body whose plain form the build stores only as its gzip form (build/emit/emit.ts) is that file
// unzipped as it is read, a chunk at a time too.
import { open } from 'node:fs/promises';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** The bytes read from a file at a time, and held by a request while the socket takes them. */
const CHUNK = 64 * 1024;

export interface BodyReader {
  /** The file's bytes as a stream, once its length is found to be the manifest's. */
  get(path: string, length: number): Promise<Readable>;
  /** The same of a gzip file, its bytes unzipped. */
  unzipped(path: string, length: number): Promise<Readable>;
}

async function read(path: string, length: number): Promise<Readable> {
  const file = await open(path);
  try {
    const { size } = await file.stat();
    if (size !== length) throw new Error(`${path} has ${size} bytes; its manifest says ${length}`);
  } catch (err) {
    await file.close();
    throw err;
  }
  // closed when the stream ends or is destroyed (a client gone mid-body)
  return file.createReadStream({ highWaterMark: CHUNK });
}

/** A gzip stream unzipped; destroyed (a client gone), the file is closed; a bad file fails the stream. */
export const unzip = (gzip: Readable): Readable => pipeline(gzip, createGunzip({ chunkSize: CHUNK }), () => {});

export function createBodyReader(): BodyReader {
  return { get: read, unzipped: async (path, length) => unzip(await read(path, length)) };
}
