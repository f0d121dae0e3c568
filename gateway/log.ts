// One JSON line per request (method, path, status, duration, account id) and per event. Lines are
// buffered and written together, off the request's path. Nothing that could hold a key is logged:
// no headers, no query string, and key-shaped text in a path is masked.
import { holdsKey, maskKeys } from './key-in-url.ts';
import { LogChunks, type LogOutput } from './log-chunks.ts';
import { ascii, isoTime, TimeStamp } from './log-time.ts';

export type { LogOutput };

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

/** The duration, in hundredths, as JSON.stringify writes the number they make. */
function writeMs(chunks: LogChunks, hundredths: number) {
  chunks.digits(Math.floor(hundredths / 100));
  const cents = hundredths % 100;
  if (cents !== 0) {
    chunks.byte(DOT);
    chunks.byte(ZERO + Math.floor(cents / 10));
    if (cents % 10 !== 0) chunks.byte(ZERO + (cents % 10));
  }
}

function writeAccount(chunks: LogChunks, account: string | null) {
  if (account === null) return chunks.bytes(ACCOUNT_NULL);
  chunks.bytes(ACCOUNT_START);
  for (let i = 0; i < account.length; i++) chunks.byte(account.charCodeAt(i));
  chunks.bytes(END);
}

/** `out` receives chunks of lines (log-chunks.ts: how they are held, and dropped while it is backed up). */
export function createLogger(
  out: LogOutput | ((chunk: Buffer) => void),
  clock: () => number = Date.now,
  flushMs = 100,
) {
  const output: LogOutput = typeof out === 'function' ? { write: (c) => void out(c) } : out;
  /** The logger's kept parts of lines, by method and path. */
  const methodPaths = new Map<string, Map<string, PathParts>>();
  const chunks = new LogChunks(output, flushMs, (lines) => log({ event: 'log_dropped', lines }));
  const stamp = new TimeStamp();
  // a function declaration: the chunks report drops through it
  function log(fields: Record<string, unknown>) {
    chunks.push(`${JSON.stringify({ time: isoTime(clock()), ...fields })}\n`);
  }
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
      chunks.full ||
      !(hundredths >= 0 && hundredths < 1e15) ||
      (account !== null && !isDecimal(account)) ||
      !(status >= 100 && status <= 999)
    ) {
      chunks.push(
        `{"time":"${isoTime(now)}",${parts.methodPath.toString()},"status":${status},` +
          `"ms":${hundredths / 100},"account":${JSON.stringify(account)}}\n`,
      );
      return;
    }
    const part = parts.withStatus[status] ?? withStatus(parts, status);
    const time = stamp.at(now);
    chunks.room(part.length + 128);
    chunks.bytes(time);
    chunks.bytes(part);
    writeMs(chunks, hundredths);
    writeAccount(chunks, account);
    chunks.schedule();
  };
  return { log, request, flush: () => chunks.flush() };
}
