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

export function createLogger(write: (chunk: string) => void, clock: () => number = Date.now, flushMs = 100) {
  let pending: string[] = [];
  let bytes = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!pending.length) return;
    const chunk = pending.join('');
    pending = [];
    bytes = 0;
    write(chunk);
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
    pending.push(line);
    bytes += line.length;
    if (bytes > 65_536) flush();
    else if (!timer) {
      timer = setTimeout(flush, flushMs);
      timer.unref();
    }
  };
  const log: LogFn = (fields) => push(JSON.stringify({ time: time(), ...fields }) + '\n');
  /** The per-request line, written without a generic serialiser (the fields are known). */
  const request = (method: string, path: string, status: number, ms: number, account: string | null) =>
    push(
      `{"time":"${time()}","method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},` +
        `"ms":${ms},"account":${account === null ? 'null' : JSON.stringify(account)}}\n`,
    );
  return { log, request, flush };
}
