// @ts-check
// The one way this project replaces what a reader may be reading: written beside under a temporary
// name, flushed to disk (fsync), then renamed into place, so a reader meets the old file or folder or
// the new one, never half of either, and a crash leaves the old. Plain JavaScript with no dependency:
// the build, the changelog, the bundler (scripts/bundle-node.mjs) and the client package's sync use it.
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Flushes a file's or a folder's entry to disk. @param {string} path */
function fsyncPath(path) {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes a file and flushes it. @param {string} path @param {string | Uint8Array} bytes */
function writeDurably(path, bytes) {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces files: each written beside its place and flushed, then all renamed in, in the order given
 * (a file others point at goes last), and their folders flushed.
 * @param {Iterable<readonly [string, string | Uint8Array]>} files path → content
 */
export function replaceFiles(files) {
  const list = [...files];
  /** @param {string} path */
  const tmp = (path) => join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  for (const [path, bytes] of list) writeDurably(tmp(path), bytes);
  for (const [path] of list) renameSync(tmp(path), path);
  for (const dir of new Set(list.map(([path]) => dirname(path)))) fsyncPath(dir);
}

/**
 * Flushes every file and folder under `dir`, and `dir`, but the files named in `durable` (paths
 * relative to the folder swapped in): links to files already flushed, whose data is on disk.
 * @param {string} dir @param {ReadonlySet<string>} durable @param {string} at `dir`'s path in the swapped folder
 */
function fsyncTree(dir, durable, at = '') {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = at ? `${at}/${entry.name}` : entry.name;
    if (entry.isDirectory()) fsyncTree(path, durable, rel);
    else if (!durable.has(rel)) fsyncPath(path);
  }
  fsyncPath(dir);
}

/**
 * Swaps the folder `tmp` (whole, its files flushed) in for `out`: `out` is renamed to `previous`, `tmp`
 * to `out`, then `previous` is removed. A crash between the two renames leaves `previous` for the
 * caller to put back. When `tmp` cannot take `out`'s place, another run swapped in first (the bundler
 * runs may race with the same bytes): `tmp` is dropped if `out` exists, else `previous` is put back
 * and the error thrown. `durable`: files in `tmp` that need no flush (fsyncTree).
 * @param {string} tmp @param {string} out @param {string} previous @param {ReadonlySet<string>} [durable]
 */
export function swapFolder(tmp, out, previous, durable = new Set()) {
  fsyncTree(tmp, durable);
  rmSync(previous, { recursive: true, force: true });
  let had = true;
  try {
    renameSync(out, previous);
  } catch {
    had = false; // none yet, or another run's swap is under way
  }
  try {
    renameSync(tmp, out);
  } catch (error) {
    if (!existsSync(out)) {
      if (had) renameSync(previous, out);
      throw error;
    }
    rmSync(tmp, { recursive: true, force: true });
  }
  rmSync(previous, { recursive: true, force: true });
  fsyncPath(dirname(out));
}
