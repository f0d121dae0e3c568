// The bodies few clients ask for, read from the build on disk when asked and kept under a bound
// (docs/operations.md, "What an instance needs"): the plain form of a body that has compressed
// ones, a past crop year's, the changelog beyond its default limit (site-load.ts says which). What
// most clients take stays in memory from the load; this keeps the resident set following the
// traffic, not the archive. A hit is a lookup and the same bytes as ever; a miss is one file read,
// shared by the requests that wait on it.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { LRUCache } from 'lru-cache';

export interface BodyCache {
  /** The file's bytes: at once when kept, else through a promise (one read, however many ask). */
  get(path: string, length: number): Buffer | Promise<Buffer>;
  /** Bytes kept now (for the footprint's measurements). */
  readonly size: number;
}

export function createBodyCache(opts: { maxBytes: number }): BodyCache {
  // Keyed by the file's name: a build's body files are named by their content's hash
  // (build/site-format.ts), so one name is the same bytes in every build, and a new build swapped
  // in keeps what the cache holds.
  const kept = new LRUCache<string, Buffer>({
    maxSize: Math.max(1, opts.maxBytes),
    sizeCalculation: (b) => b.length || 1,
  });
  const reading = new Map<string, Promise<Buffer>>();
  function read(name: string, path: string, length: number): Promise<Buffer> {
    const p = readFile(path)
      .then((bytes) => {
        if (bytes.length !== length) throw new Error(`${path} has ${bytes.length} bytes; its manifest says ${length}`);
        // a body larger than the whole bound is served, not kept (lru-cache would refuse it anyway)
        if (bytes.length <= opts.maxBytes) kept.set(name, bytes);
        return bytes;
      })
      .finally(() => reading.delete(name));
    reading.set(name, p);
    return p;
  }
  return {
    get(path, length) {
      const name = basename(path);
      return kept.get(name) ?? reading.get(name) ?? read(name, path, length);
    },
    get size() {
      return kept.calculatedSize;
    },
  };
}
