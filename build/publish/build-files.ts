// A build's files written into a folder as emit gives them (emit.ts, BuildFiles), so a build of any
// size holds one body at a time (docs/performance.md, Growth); publish.ts then swaps the folder in.
// A body's plain file is named by its content's hash (site-format.ts): where the live build has a
// file of that name and length, it is the same bytes, and is linked rather than written again; an
// encoding is linked from the entry that keeps it (emit/encode.ts, EncodingCache). A file that is
// the live build's own (the same inode) was flushed when that build went live, and is not flushed
// again (publish.ts). So a small edit writes, and flushes, what it changed.
import { linkSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface FolderFiles {
  set(path: string, bytes: Buffer, kept?: string): void;
  readonly dir: string;
  /** Files written or linked, and their bytes. */
  readonly count: number;
  readonly bytes: number;
  /** Files linked from the live build's own: on disk already, nothing to flush (atomic-write.mjs). */
  readonly durable: ReadonlySet<string>;
}

/** A plain body's file: `bodies/<hash>.<kind>`, with no encoding's suffix. */
const PLAIN_BODY = /^bodies\/[0-9a-f]{32}\.[a-z]+$/;

/** The files of a build written into `dir`; `live`, the live build's folder, to link unchanged bodies from. */
export function folderFiles(dir: string, live?: string | null): FolderFiles {
  const made = new Set<string>();
  const durable = new Set<string>();
  let count = 0;
  let bytes = 0;
  /** The live build's file at `path`, where it is the very file `from` (a link to one inode). */
  const isLives = (path: string, from: string) => {
    if (!live) return false;
    const [a, b] = [statSync(from), statSync(join(live, path), { throwIfNoEntry: false })];
    return b !== undefined && a.ino === b.ino && a.dev === b.dev;
  };
  /** A file with these bytes linked in: the live build's plain body of this name, or `kept`. */
  const linked = (path: string, file: string, length: number, kept?: string) => {
    const from = kept ?? (live && PLAIN_BODY.test(path) ? join(live, path) : null);
    if (!from) return false;
    try {
      if (statSync(from).size !== length) return false;
      linkSync(from, file);
      if (!kept || isLives(path, kept)) durable.add(path);
      return true;
    } catch {
      return false; // not there, or another file system: written
    }
  };
  return {
    dir,
    durable,
    set(path, body, kept) {
      const file = join(dir, path);
      const parent = dirname(file);
      if (!made.has(parent)) mkdirSync(parent, { recursive: true });
      made.add(parent);
      if (!linked(path, file, body.length, kept)) writeFileSync(file, body);
      count++;
      bytes += body.length;
    },
    get count() {
      return count;
    },
    get bytes() {
      return bytes;
    },
  };
}
