// The bodies' encodings kept in a folder across builds (encode.ts, EncodingCache), so a build after a
// small edit compresses only the bodies it changed (docs/performance.md, Growth). An entry is named
// by the body's hash, the coding and the quality, under a folder named by the encoder (its code as
// this process runs it) and this Node's zlib and brotli: another encoder or Node starts a folder of
// its own, so an entry is always the bytes a build without the cache would make, and the build id
// is the same cold or warm. An entry is written whole (beside, then renamed); an empty one (a write
// cut short) is not believed.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type EncodingCache, encoderSource } from './encode.ts';

const ENTRY = /^[0-9a-f]{32}\.(br|gzip)\.\d+$/;
/** An encoder's folder: a prefix of its own, so no other folder (a build's, named by 16 hex) is taken for one. */
const FOLDER = /^enc-[0-9a-f]{16}$/;

export interface FolderEncodings extends EncodingCache {
  /** Removes the entries this process neither read nor wrote: the folder then holds one build's. */
  keepOnlyUsed(): void;
}

/**
 * The encodings under `root` (node_modules/.cache/encodings for npm run build). A speed-up only:
 * a folder that cannot be made or written leaves the build as it is without it.
 */
export function folderEncodings(root: string): FolderEncodings {
  const fingerprint = createHash('sha256')
    .update(encoderSource())
    .update(`zlib ${process.versions.zlib} brotli ${process.versions.brotli}`)
    .digest('hex')
    .slice(0, 16);
  const dir = join(root, `enc-${fingerprint}`);
  let usable = attempt(() => mkdirSync(dir, { recursive: true }));
  const nameOf = (key: string) => key.replaceAll(' ', '.');
  const used = new Set<string>();
  return {
    get(key) {
      const bytes = usable ? readWhole(join(dir, nameOf(key))) : undefined;
      if (bytes) used.add(nameOf(key));
      return bytes;
    },
    set(key, bytes) {
      if (!usable) return;
      const file = join(dir, nameOf(key));
      // written beside under a name no other build prunes (ENTRY), then renamed into place whole
      const beside = join(dir, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
      usable = attempt(() => {
        writeFileSync(beside, bytes);
        renameSync(beside, file);
      });
      if (usable) used.add(nameOf(key));
    },
    fileOf(key) {
      const file = join(dir, nameOf(key));
      return usable && used.has(nameOf(key)) ? file : undefined;
    },
    keepOnlyUsed() {
      if (!usable) return;
      // only what this cache writes: entries (<hash>.<coding>.<quality>) and encoders' folders
      attempt(() => {
        for (const name of readdirSync(dir))
          if (ENTRY.test(name) && !used.has(name)) rmSync(join(dir, name), { force: true });
        for (const other of readdirSync(root))
          if (FOLDER.test(other) && other !== `enc-${fingerprint}`)
            rmSync(join(root, other), { recursive: true, force: true });
      });
    },
  };
}

/** Runs `fn`; false when the file system refused (the cache is then left alone). */
function attempt(fn: () => void): boolean {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
}

function readWhole(file: string): Buffer | undefined {
  try {
    const bytes = readFileSync(file);
    return bytes.length > 0 ? bytes : undefined;
  } catch {
    return undefined;
  }
}
