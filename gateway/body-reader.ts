// The bodies few clients ask for, read from the build on disk when asked (docs/operations.md,
// "What an instance needs"): the plain form of a body that has compressed ones, a past crop
// year's, the changelog beyond its default limit (site-load.ts says which). What most clients take
// stays in memory from the load, so the resident set follows the current tables, not the archive.
// Nothing read is kept: the system's page cache keeps the files, for every instance on the host;
// kept here under a bound, the bodies outlived the young generation and their garbage held the
// resident set higher than reading them afresh (docs/performance.md, Growth). Requests for a file
// while it is read share the read.
import { readFile } from 'node:fs/promises';

export interface BodyReader {
  /** The file's bytes, checked against the manifest's length. */
  get(path: string, length: number): Promise<Buffer>;
}

export function createBodyReader(): BodyReader {
  const reading = new Map<string, Promise<Buffer>>();
  function read(path: string, length: number): Promise<Buffer> {
    const p = readFile(path)
      .then((bytes) => {
        if (bytes.length !== length) throw new Error(`${path} has ${bytes.length} bytes; its manifest says ${length}`);
        return bytes;
      })
      .finally(() => reading.delete(path));
    reading.set(path, p);
    return p;
  }
  return { get: (path, length) => reading.get(path) ?? read(path, length) };
}
