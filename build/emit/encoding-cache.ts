// The bodies' encodings kept in a folder across builds (emit.ts, EncodingCache), so a build after a
// small edit compresses only the bodies it changed (docs/performance.md, Growth). An entry is named
// by the body's hash, the coding and the quality, under a folder named by the encoder (its code as
// this process runs it) and this Node's zlib and brotli: another encoder or Node starts a folder of
// its own, so an entry is always the bytes a build without the cache would make, and the build id
// is the same cold or warm. An entry is written whole (beside, then renamed); an empty one (a write
// cut short) is not believed.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type EncodingCache, encoderSource } from './emit.ts';

const ENTRY = /^[0-9a-f]{32}\.(br|gzip)\.\d+(\.\d+)?$/;
const FOLDER = /^[0-9a-f]{16}$/;

export interface FolderEncodings extends EncodingCache {
  /** Removes the entries this process neither read nor wrote: the folder then holds one build's. */
  keepOnlyUsed(): void;
}

/** The encodings under `root` (node_modules/.cache/encodings for npm run build). */
export function folderEncodings(root: string): FolderEncodings {
  const fingerprint = createHash('sha256')
    .update(encoderSource())
    .update(`zlib ${process.versions.zlib} brotli ${process.versions.brotli}`)
    .digest('hex')
    .slice(0, 16);
  const dir = join(root, fingerprint);
  mkdirSync(dir, { recursive: true });
  const nameOf = (key: string) => key.replaceAll(' ', '.');
  const used = new Set<string>();
  return {
    get(key) {
      const bytes = readWhole(join(dir, nameOf(key)));
      if (bytes) used.add(nameOf(key));
      return bytes;
    },
    set(key, bytes) {
      const file = join(dir, nameOf(key));
      writeFileSync(`${file}.${process.pid}`, bytes);
      renameSync(`${file}.${process.pid}`, file);
      used.add(nameOf(key));
    },
    keepOnlyUsed() {
      // only what this cache writes: entries (<hash>.<coding>.<quality>) and encoders' folders
      for (const name of readdirSync(dir))
        if (ENTRY.test(name) && !used.has(name)) rmSync(join(dir, name), { force: true });
      for (const other of readdirSync(root))
        if (FOLDER.test(other) && other !== fingerprint) rmSync(join(root, other), { recursive: true, force: true });
    },
  };
}

function readWhole(file: string): Buffer | undefined {
  try {
    const bytes = readFileSync(file);
    return bytes.length > 0 ? bytes : undefined;
  } catch {
    return undefined;
  }
}
