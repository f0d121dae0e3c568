// One JSON line per request (method, path, status, duration, account id) and per event. Lines are
// buffered and written together, off the request's path. Nothing that could hold a key is logged:
// no headers, no query string, and key-shaped text in a path is masked.
import { holdsKey, maskKeys } from './key-in-url.ts';

export type LogFn = (fields: Record<string, unknown>) => void;

/** What a request's line says; the server's request object carries these once it has answered. */
export interface RequestLine {
  method: string;
  /** As received: only its path is logged, key-shaped text masked. */
  url: string;
  status: number;
  /** Duration; rounded to hundredths by the logger. */
  ms: number;
  /** The account served, never its key. */
  account: string | null;
  /** When the request arrived (the clock's time, read once a request); the clock's now if left out. */
  now?: number;
}

/** The path of a URL as logged: no query, key-shaped text masked however it was encoded, 512 characters at most. */
export const safePath = (url: string) => {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  // masked before it is cut, so a cut never leaves half an escape that hid a key unmasked
  return maskKeys(path.length > 4096 ? path.slice(0, 4096) : path).slice(0, 512);
};

/**
 * The `"method":…,"path":…` part of a request line as UTF-8 bytes, and that part followed by each
 * status's `,"status":…,"ms":`, kept for the paths seen lately: clients sync a handful of paths, and
 * building the part costs two JSON.stringify calls and safePath. Keyed by the path without its
 * query, so no query string is ever held; a path with key-shaped text in it, or longer than the 512
 * characters logged of it, is never kept. Bounded: a flood of distinct paths empties it rather than
 * growing it (at most 1,024 of up to 512 characters per method).
 */
interface PathParts {
  methodPath: Buffer;
  /** By status: methodPath then `,"status":…,"ms":`, made on first use. */
  withStatus: Buffer[];
}
const withStatus = (parts: PathParts, status: number) => {
  const part = Buffer.concat([parts.methodPath, Buffer.from(`,"status":${status},"ms":`, 'latin1')]);
  parts.withStatus[status] = part;
  return part;
};
const MAX_KEPT_PATHS = 1024;
function pathParts(methodPaths: Map<string, Map<string, PathParts>>, method: string, url: string): PathParts {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  let byPath = methodPaths.get(method);
  const kept = byPath?.get(path);
  if (kept !== undefined) return kept;
  const parts: PathParts = {
    methodPath: Buffer.from(`"method":${JSON.stringify(method)},"path":${JSON.stringify(safePath(path))}`),
    withStatus: [],
  };
  if (path.length > 512 || holdsKey(path)) return parts;
  if (!byPath) {
    if (methodPaths.size >= 32) methodPaths.clear(); // node:http knows about 35 methods
    byPath = new Map();
    methodPaths.set(method, byPath);
  }
  if (byPath.size >= MAX_KEPT_PATHS) byPath.clear();
  byPath.set(path, parts);
  return parts;
}

const ascii = (s: string) => Buffer.from(s, 'latin1');
// A line is written as two cached parts (each a copy into the chunk): `{"time":"…",` per ms, then
// the method, path and status (kept by each logger, per path and status), then digits and the account.
const ACCOUNT_NULL = ascii(',"account":null}\n');
const ACCOUNT_START = ascii(',"account":"');
const END = ascii('"}\n');
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
/** Account ids are the stores' decimal numbers: written as they are; anything else goes through JSON. */
const isDecimal = (s: string) => {
  if (s.length === 0 || s.length > 20) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < ZERO || c > NINE) return false;
  }
  return true;
};

export interface LogOutput {
  /**
   * Takes a chunk of whole lines (UTF-8) and may keep it: the logger never writes into a chunk it
   * handed over. false means the output is backed up (a stream over its buffer).
   */
  write(chunk: Buffer): boolean | undefined;
  /** Calls back once a backed-up output has room again. */
  onDrain?(resume: () => void): void;
}

/** Lines held while the output is backed up; beyond this they are counted and dropped. */
const MAX_HELD_BYTES = 1 << 20;
/** Lines are encoded into a buffer of this size and written when it is full or flushMs passed. */
const CHUNK_BYTES = 64 * 1024;

/**
 * `out` receives chunks of lines. Each line is encoded into the current chunk as it is made, so
 * no line lives on as a JS string: held as strings until the next write (up to 100 ms), they
 * outlived young-generation collections at high request rates and were copied to the old one
 * (docs/performance.md: the measurements behind the code).
 *
 * When the output says it is backed up (a log reader slower than the requests), chunks wait, up
 * to 1 MiB, and further lines are dropped and counted in a `log_dropped` line once it drains:
 * memory stays bounded whatever reads the log (a starved reader on the pipe grew RSS without bound
 * before this).
 */
export function createLogger(
  out: LogOutput | ((chunk: Buffer) => void),
  clock: () => number = Date.now,
  flushMs = 100,
) {
  const output: LogOutput = typeof out === 'function' ? { write: (c) => void out(c) } : out;
  /** The logger's kept parts of lines, by method and path. */
  const methodPaths = new Map<string, Map<string, PathParts>>();
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  /** Filled chunks not yet written (the output is backed up), and their bytes. */
  let held: Buffer[] = [];
  let heldBytes = 0;
  let timer: NodeJS.Timeout | null = null;
  let backedUp = false;
  let dropped = 0;
  /** The current chunk's lines join the held ones; a new chunk takes the next lines. */
  const seal = () => {
    if (used === 0) return;
    held.push(chunk.subarray(0, used));
    heldBytes += used;
    chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    used = 0;
  };
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    seal();
    if (backedUp || heldBytes === 0) return;
    const data = held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
    held = [];
    heldBytes = 0;
    if (output.write(data) === false && output.onDrain) {
      backedUp = true;
      output.onDrain(() => {
        backedUp = false;
        if (dropped > 0) {
          log({ event: 'log_dropped', lines: dropped });
          dropped = 0;
        }
        flush();
      });
    }
  };
  /** The time as text, for events and unusual lines (rare): made when asked. */
  const time = (ms = clock()) => new Date(ms).toISOString();
  /**
   * `{"time":"…",` of the last request's millisecond, kept as bytes: the whole ISO text is made once
   * a second, and within the second only the three digits of the millisecond are rewritten: below
   * some thousands of requests a second the millisecond changes on almost every request, and the
   * text made per millisecond was most of a line's cost (docs/performance.md: the measurements behind the code).
   */
  let timePart = ascii('{"time":"1970-01-01T00:00:00.000Z",');
  let lastMs = 0;
  let lastSecond = Number.NaN;
  const timeBytes = (now: number) => {
    if (now === lastMs) return;
    lastMs = now;
    const ms = Math.floor(now); // toISOString's millisecond
    const second = Math.floor(ms / 1000);
    if (second !== lastSecond) {
      lastSecond = second;
      const iso = time(ms);
      if (iso.length + 11 !== timePart.length)
        timePart = ascii(`{"time":"${iso}",`); // a year past 9999
      else for (let i = 0; i < iso.length; i++) timePart[9 + i] = iso.charCodeAt(i);
      return;
    }
    // `.mmmZ",` ends the part: the digits are the 6th to 4th bytes from its end
    const milli = ms - second * 1000;
    const at = timePart.length - 6;
    timePart[at] = ZERO + Math.floor(milli / 100);
    timePart[at + 1] = ZERO + (Math.floor(milli / 10) % 10);
    timePart[at + 2] = ZERO + (milli % 10);
  };
  /** Lines are written at the latest flushMs after the first of them. */
  const schedule = () => {
    if (timer) return;
    timer = setTimeout(flush, flushMs);
    timer.unref();
  };
  const push = (line: string) => {
    if (backedUp && heldBytes + used >= MAX_HELD_BYTES) {
      dropped++;
      return;
    }
    const most = line.length * 3; // UTF-8 bytes of a UTF-16 string, at most
    if (used + most > CHUNK_BYTES) {
      flush();
      if (most > CHUNK_BYTES) {
        // a line longer than a chunk (an event with a long message) goes as a chunk of its own
        const own = Buffer.from(line);
        held.push(own);
        heldBytes += own.length;
        flush();
        return;
      }
    }
    used += chunk.write(line, used);
    schedule();
  };
  // a function declaration: flush (above) reports drops through it
  function log(fields: Record<string, unknown>) {
    push(`${JSON.stringify({ time: time(), ...fields })}\n`);
  }
  const bytes = (b: Uint8Array) => {
    chunk.set(b, used);
    used += b.length;
  };
  /** A whole number below 2^53, in decimal. */
  const digits = (n: number) => {
    let end = used + 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) end++;
    used = end;
    do {
      chunk[--end] = ZERO + (n % 10);
      n = Math.floor(n / 10);
    } while (n > 0);
  };
  /**
   * The per-request line, written as bytes into the chunk: cached parts, digits, nothing allocated
   * (cheaper than the same line built as a string and encoded (docs/performance.md: the
   * measurements behind the code)). `url` is the request's as received: only its path is logged,
   * key-shaped text masked (safePath). `ms` is rounded to hundredths and written as
   * JSON.stringify would write that number. `now` is the request's time, when the caller has it
   * (one clock read a request).
   */
  const request = (line: RequestLine) => {
    const { method, url, status, ms, account } = line;
    const now = line.now ?? clock();
    const parts = pathParts(methodPaths, method, url);
    const hundredths = Math.round(ms * 100);
    if (
      (backedUp && heldBytes + used >= MAX_HELD_BYTES) ||
      !(hundredths >= 0 && hundredths < 1e15) ||
      (account !== null && !isDecimal(account)) ||
      !(status >= 100 && status <= 999)
    ) {
      push(
        `{"time":"${time(now)}",${parts.methodPath.toString()},"status":${status},` +
          `"ms":${hundredths / 100},"account":${JSON.stringify(account)}}\n`,
      );
      return;
    }
    timeBytes(now);
    const part = parts.withStatus[status] ?? withStatus(parts, status);
    if (used + part.length + 128 > CHUNK_BYTES) flush();
    bytes(timePart);
    bytes(part);
    digits(Math.floor(hundredths / 100));
    const cents = hundredths % 100;
    if (cents !== 0) {
      chunk[used++] = DOT;
      chunk[used++] = ZERO + Math.floor(cents / 10);
      if (cents % 10 !== 0) chunk[used++] = ZERO + (cents % 10);
    }
    if (account === null) bytes(ACCOUNT_NULL);
    else {
      bytes(ACCOUNT_START);
      for (let i = 0; i < account.length; i++) chunk[used++] = account.charCodeAt(i);
      bytes(END);
    }
    schedule();
  };
  return { log, request, flush };
}
