// The hourly windows of one process as one compact blob, so saving 100,000 of them is one write
// that holds the event loop far shorter than as many row upserts (docs/performance.md: the measurements behind the code).
// Layout: a version byte, then per window: u16 byte length and UTF-8 subject, f64 start, u32 count.
import type { SavedWindow, WindowState } from '../rate-limit.ts';

const VERSION = 1;
const FIXED = 2 + 8 + 4;

export function encodeWindows(windows: Map<string, WindowState>): Buffer {
  let size = 1;
  for (const subject of windows.keys()) size += FIXED + Buffer.byteLength(subject);
  const buf = Buffer.allocUnsafe(size);
  buf[0] = VERSION;
  let o = 1;
  for (const [subject, w] of windows) {
    const n = buf.write(subject, o + 2);
    buf.writeUInt16LE(n, o);
    o += 2 + n;
    buf.writeDoubleLE(w.start, o);
    buf.writeUInt32LE(w.count, o + 8);
    o += 12;
  }
  return buf;
}

/** Throws on anything that is not a whole snapshot of this version. */
export function decodeWindows(buf: Buffer): SavedWindow[] {
  if (buf.length < 1 || buf[0] !== VERSION) throw new Error('not a version 1 window snapshot');
  const out: SavedWindow[] = [];
  let o = 1;
  while (o < buf.length) {
    if (o + 2 > buf.length) throw new Error('window snapshot cut short');
    const n = buf.readUInt16LE(o);
    if (o + 2 + n + 12 > buf.length) throw new Error('window snapshot cut short');
    const subject = buf.toString('utf8', o + 2, o + 2 + n);
    o += 2 + n;
    out.push([subject, buf.readDoubleLE(o), buf.readUInt32LE(o + 8)]);
    o += 12;
  }
  return out;
}
