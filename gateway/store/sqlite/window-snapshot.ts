// The hourly windows of one process as one compact blob, so saving 100,000 of them is one write
// that holds the event loop far shorter than as many row upserts (docs/performance.md: the
// measurements behind the code). Layout: a version byte, then per window: u16 byte length and
// UTF-8 subject, f64 start, u32 count, and from version 2 f64 last (when it last counted).
// Version 1 snapshots (before keys' last use was kept) are still read: last is then the start.
import type { WindowState } from '../../rate-limit.ts';
import type { SavedWindow } from '../memory-limiter.ts';

const VERSION = 2;
const FIXED = { 1: 2 + 8 + 4, 2: 2 + 8 + 4 + 8 } as const;

export function encodeWindows(windows: Map<string, WindowState>): Buffer {
  let size = 1;
  for (const subject of windows.keys()) size += FIXED[VERSION] + Buffer.byteLength(subject);
  const buf = Buffer.allocUnsafe(size);
  buf[0] = VERSION;
  let o = 1;
  for (const [subject, w] of windows) {
    const n = buf.write(subject, o + 2);
    buf.writeUInt16LE(n, o);
    o += 2 + n;
    buf.writeDoubleLE(w.start, o);
    buf.writeUInt32LE(w.count, o + 8);
    buf.writeDoubleLE(w.last, o + 12);
    o += 20;
  }
  return buf;
}

/** Throws on anything that is not a whole snapshot of a known version. */
export function decodeWindows(buf: Buffer): SavedWindow[] {
  const version = buf[0];
  if (buf.length < 1 || (version !== 1 && version !== 2)) throw new Error('not a version 1 or 2 window snapshot');
  const tail = FIXED[version] - 2;
  const out: SavedWindow[] = [];
  let o = 1;
  while (o < buf.length) {
    if (o + 2 > buf.length) throw new Error('window snapshot cut short');
    const n = buf.readUInt16LE(o);
    if (o + 2 + n + tail > buf.length) throw new Error('window snapshot cut short');
    const subject = buf.toString('utf8', o + 2, o + 2 + n);
    o += 2 + n;
    const start = buf.readDoubleLE(o);
    out.push([subject, start, buf.readUInt32LE(o + 8), version === 2 ? buf.readDoubleLE(o + 12) : start]);
    o += tail;
  }
  return out;
}
