// A paced (open-loop) load: `rate` GET requests a second on keep-alive connections, each on a
// schedule fixed in advance; a request's latency runs from its scheduled time to the last byte of
// its answer, so a stalled server shows as latency, not as fewer requests (no coordinated
// omission). Prints the latency percentiles as JSON. Used by npm run bench for the p99 at half the
// maximum rate; wrk cannot hold a rate, and the Node http client could not send more than ~4,000
// requests a second of 24 KB answers, so this one writes prepared request bytes to plain sockets,
// reads into one reused buffer and skips bodies by their Content-Length.
// usage: tsx scripts/bench/paced-load.ts <url> <rate> <seconds> [keysFile] [connections] (load.ts, latencyAt)
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

const [url, rateArg, secondsArg, keysFile, connectionsArg] = process.argv.slice(2);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const connections = Number(connectionsArg || 64);
const target = new URL(url!);
const keys = keysFile ? readFileSync(keysFile, 'utf8').trim().split('\n') : [''];
const requests = keys.map((k) =>
  Buffer.from(
    `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n${k ? `X-API-Key: ${k}\r\n` : ''}\r\n`,
    'latin1',
  ),
);

const latencies: number[] = [];
let answers = 0;
let errors = 0;
const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

interface Conn {
  socket: Socket;
  /** Scheduled times of the requests written and not yet answered, oldest first. */
  waiting: number[];
}

function open(): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const conn: Conn = { socket: null as unknown as Socket, waiting: [] };
    let head: Buffer | null = null; // an answer's header bytes split across reads
    let bodyLeft = 0;
    const buf = Buffer.allocUnsafe(256 * 1024);
    const answered = () => {
      const scheduled = conn.waiting.shift()!;
      answers++;
      if (scheduled - start >= WARMUP_MS) latencies.push(performance.now() - scheduled);
    };
    conn.socket = connect({
      host: target.hostname,
      port: Number(target.port),
      noDelay: true,
      onread: {
        buffer: buf,
        callback(n) {
          let i = 0;
          while (i < n) {
            if (bodyLeft > 0) {
              const take = Math.min(bodyLeft, n - i);
              bodyLeft -= take;
              i += take;
              if (bodyLeft === 0) answered();
              continue;
            }
            const from = head ? Buffer.concat([head, buf.subarray(i, n)]) : buf.subarray(i, n);
            const end = from.indexOf(HEADER_END);
            if (end < 0) {
              head = Buffer.from(from); // copied: the read buffer is reused
              break;
            }
            const length = CONTENT_LENGTH.exec(from.toString('latin1', 0, end + 2));
            i += end + 4 - (head ? head.length : 0);
            head = null;
            bodyLeft = length ? Number(length[1]) : 0;
            if (bodyLeft === 0) answered();
          }
          return true;
        },
      },
    });
    conn.socket.once('connect', () => resolve(conn));
    conn.socket.on('error', (err) => {
      errors++;
      reject(err);
    });
  });
}

const conns = await Promise.all(Array.from({ length: connections }, open));
// The first second warms both sides up and is not counted.
const WARMUP_MS = 1_000;
const start = performance.now();
const total = Math.floor(rate * (seconds + WARMUP_MS / 1000));
let sent = 0;
let next = 0;
// Runs on every turn of the event loop (setImmediate, not a 1 ms timer, whose lateness would be
// counted as latency): this process has a core of its own.
const tick = () => {
  const now = performance.now();
  const due = Math.min(total, Math.floor(((now - start) / 1000) * rate));
  if (sent < due) {
    for (const c of conns) c.socket.cork();
    while (sent < due) {
      // the least busy connection takes it (pipelined behind its earlier ones if all are busy)
      let best = conns[next++ % conns.length]!;
      if (best.waiting.length > 0) for (const c of conns) if (c.waiting.length < best.waiting.length) best = c;
      best.waiting.push(start + (sent * 1000) / rate); // the schedule, not the moment it left
      best.socket.write(requests[sent % requests.length]!);
      sent++;
    }
    for (const c of conns) c.socket.uncork();
  }
  if (sent < total) {
    setImmediate(tick);
    return;
  }
  const deadline = performance.now() + 10_000;
  const wait = setInterval(() => {
    if (answers < sent && performance.now() < deadline) return;
    clearInterval(wait);
    latencies.sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
    console.log(
      JSON.stringify({
        rate,
        counted: latencies.length,
        answers,
        sent,
        errors,
        p50: pct(50),
        p99: pct(99),
        max: latencies.at(-1) ?? NaN,
      }),
    );
    for (const c of conns) c.socket.destroy();
  }, 10);
};
setImmediate(tick);
