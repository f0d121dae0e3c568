// One JSON line per request (method, path, status, duration, account id) and per event. Lines are
// buffered and written together, off the request's path. Nothing that could hold a key is logged:
// no headers, no query string, and key-shaped text in a path is masked.
export type LogFn = (fields: Record<string, unknown>) => void;

const KEY_SHAPED = /ggt_[A-Za-z0-9_-]*/g;
export const safePath = (url: string) => {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).slice(0, 512);
  return path.includes('ggt_') ? path.replace(KEY_SHAPED, 'ggt_[redacted]') : path;
};

export interface LogOutput {
  /** Takes a chunk of lines; false means the output is backed up (a stream over its buffer). */
  write(chunk: string): boolean | void;
  /** Calls back once a backed-up output has room again. */
  onDrain?(resume: () => void): void;
}

/** Lines held while the output is backed up; beyond this they are counted and dropped. */
const MAX_HELD_BYTES = 1 << 20;

/**
 * `out` receives chunks of lines. When it says it is backed up (a log reader slower than the
 * requests), lines wait, up to 1 MiB, and the rest are dropped and counted in a `log_dropped`
 * line once it drains: memory stays bounded whatever reads the log (measured: with a starved
 * reader on the pipe, RSS grew past 450 MiB in 13 s of a 401 flood before this).
 */
export function createLogger(out: LogOutput | ((chunk: string) => void), clock: () => number = Date.now, flushMs = 100) {
  const output: LogOutput = typeof out === 'function' ? { write: out } : out;
  let pending: string[] = [];
  let bytes = 0;
  let timer: NodeJS.Timeout | null = null;
  let backedUp = false;
  let dropped = 0;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (backedUp || !pending.length) return;
    const chunk = pending.join('');
    pending = [];
    bytes = 0;
    if (output.write(chunk) === false && output.onDrain) {
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
  let lastMs = -1;
  let lastIso = '';
  const time = () => {
    const ms = clock();
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    return lastIso;
  };
  const push = (line: string) => {
    if (backedUp && bytes > MAX_HELD_BYTES) {
      dropped++;
      return;
    }
    pending.push(line);
    bytes += line.length;
    if (bytes > 65_536) flush();
    else if (!timer) {
      timer = setTimeout(flush, flushMs);
      timer.unref();
    }
  };
  // a function declaration: flush (above) reports drops through it
  function log(fields: Record<string, unknown>) {
    push(JSON.stringify({ time: time(), ...fields }) + '\n');
  }
  /** The per-request line, written without a generic serialiser (the fields are known). */
  const request = (method: string, path: string, status: number, ms: number, account: string | null) =>
    push(
      `{"time":"${time()}","method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},` +
        `"ms":${ms},"account":${account === null ? 'null' : JSON.stringify(account)}}\n`,
    );
  return { log, request, flush };
}
