// Requests written as bytes on a kept-alive connection, one at a time, each answer read to its end by
// its Content-Length: for a test that loads a gateway with many requests, where node's HTTP client
// costs the test's process more than the gateway it loads costs its own. An answer without a length
// (chunked), or a connection closed before the answer ends, fails the request with what was read. A
// connection the server ends (after `Connection: close`, or idle) is opened again for the next one.
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  /** Writes `request` (a whole HTTP/1.1 request) and resolves with the answer's status. */
  send(request: string): Promise<number>;
  close(): void;
}

const HEAD_END = Buffer.from('\r\n\r\n');

export function rawConnection(url: string): RawConnection {
  const { hostname, port } = new URL(url);
  let socket: Socket | undefined;
  let buffered: Buffer = Buffer.alloc(0);
  /** The request under way, and the connection it was written on (an earlier one's close is not its). */
  let waiting: { resolve(status: number): void; reject(err: Error): void; on: Socket } | undefined;

  const fail = (why: string) => {
    const w = waiting;
    waiting = undefined;
    w?.reject(new Error(`${why}; read: ${JSON.stringify(buffered.toString('latin1').slice(0, 300))}`));
  };
  const answered = () => {
    const end = buffered.indexOf(HEAD_END);
    if (end < 0 || !waiting) return;
    const head = buffered.subarray(0, end).toString('latin1');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) return fail('an answer without Content-Length');
    const total = end + HEAD_END.length + Number(length[1]);
    if (buffered.length < total) return;
    buffered = buffered.subarray(total);
    const w = waiting;
    waiting = undefined;
    if (/\r\nconnection: *close/i.test(head)) drop();
    w.resolve(Number(head.slice(9, 12)));
  };
  const drop = () => {
    socket?.destroy();
    socket = undefined;
  };
  const open = () => {
    const s = connect(Number(port), hostname);
    s.on('data', (chunk: Buffer) => {
      if (waiting?.on !== s) return; // nothing is asked of it
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      answered();
    });
    s.on('error', () => {}); // 'close' follows, and says it
    s.on('end', () => {
      if (socket === s) socket = undefined; // the server is done with it: the next request opens another
    });
    s.on('close', () => {
      if (socket === s) socket = undefined;
      if (waiting?.on === s) fail('the connection closed');
    });
    return s;
  };

  return {
    send(request) {
      if (waiting) return Promise.reject(new Error('one request at a time on a connection'));
      socket ??= open(); // again after the server closed one: a client on keep-alive does the same
      buffered = Buffer.alloc(0);
      const s = socket;
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject, on: s };
        s.write(request);
      });
    },
    close: drop,
  };
}
