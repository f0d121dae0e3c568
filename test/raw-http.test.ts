// The raw HTTP client the abuse test loads a gateway with (test/helpers/raw-http.ts), against a
// server of bytes in this process: answers read by their length, a connection the server closes
// opened again for the next request (the old one's close is not the new request's failure), and an
// answer it cannot read said with what was read.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, it } from 'node:test';
import { rawConnection } from './helpers/raw-http.ts';

/** Answers each request with the next of `answers`, as written; `close` ends the connection after it. */
function bytesServer(answers: { text: string; close?: boolean }[]): Server {
  let next = 0;
  return createServer((socket) => {
    let seen = '';
    socket.on('data', (chunk) => {
      seen += chunk.toString('latin1');
      while (seen.includes('\r\n\r\n')) {
        seen = seen.slice(seen.indexOf('\r\n\r\n') + 4);
        const answer = answers[next++]!;
        socket.write(answer.text);
        if (answer.close) socket.end();
      }
    });
  });
}

let server: Server;
let url: string;
before(async () => {
  server = bytesServer([
    { text: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello' },
    { text: 'HTTP/1.1 201 Created\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok', close: true },
    { text: 'HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n' },
    { text: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n' },
  ]);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  url = `http://127.0.0.1:${address.port}`;
});
after(() => server.close());

it('reads answers by their length, reopens after Connection: close, refuses an answer without a length', async () => {
  const connection = rawConnection(url);
  const ask = () => connection.send('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal(await ask(), 200);
  assert.equal(await ask(), 201);
  // straight after the server closed the last one: a new connection, not the old one's close
  assert.equal(await ask(), 204);
  await assert.rejects(ask(), /an answer without Content-Length; read: "HTTP\/1\.1 200 OK/);
  connection.close();
});
