// A gzipped tar (POSIX ustar) of files in memory: what `npm pack` writes, made here so the build packs
// the client package on the production dependencies alone. Deterministic: fixed time, owner and
// order, so the same files give the same bytes (docs/sync.md, The client package).
import { gzipSync } from 'node:zlib';

export interface TarFile {
  path: string;
  bytes: Buffer;
  /** 0o644 unless said (0o755 for a command). */
  mode?: number;
}

/** npm's own fixed time for packed files, 1985-10-26T08:15:00Z, so packs compare by content. */
const MTIME = 499162500;
const BLOCK = 512;

function header(path: string, size: number, mode: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  const name = Buffer.from(path);
  // ustar: a name over 100 bytes goes into the prefix field, split at a slash
  let prefix = Buffer.alloc(0);
  let rest = name;
  if (name.length > 100) {
    const cut = path.lastIndexOf('/', 155);
    if (cut < 0 || name.length - cut - 1 > 100) throw new Error(`${path}: too long a path for a tar header`);
    prefix = Buffer.from(path.slice(0, cut));
    rest = Buffer.from(path.slice(cut + 1));
  }
  const octal = (v: number, width: number) => `${v.toString(8).padStart(width - 1, '0')}\0`;
  rest.copy(h, 0);
  h.write(octal(mode, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii'); // uid
  h.write(octal(0, 8), 116, 'ascii'); // gid
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(MTIME, 12), 136, 'ascii');
  h.write('        ', 148, 'ascii'); // the checksum's field counts as spaces while it is summed
  h.write('0', 156, 'ascii'); // a regular file
  h.write('ustar\u000000', 257, 'ascii');
  prefix.copy(h, 345);
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

export function tarGz(files: readonly TarFile[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    parts.push(header(f.path, f.bytes.length, f.mode ?? 0o644), f.bytes);
    const pad = (BLOCK - (f.bytes.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2)); // the end: two empty blocks
  return gzipSync(Buffer.concat(parts), { level: 9 });
}
