// tier: full (gateway processes under abuse and slow clients)
// Reliability: slow clients are cut by the server's timeouts while others are served;
// a flood of unknown keys and of registrations from many addresses leaves memory bounded.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { generateKey } from '../gateway/keys.ts';
import { tempDir } from './helpers/dataset.ts';
import { get, realSiteDir, register, spawnGateway, startTestGateway, type TestGateway } from './helpers/gateway.ts';
import { type RawConnection, rawConnection } from './helpers/raw-http.ts';

/** Resolves with the time until the server closed the socket (and what it said first). */
function untilClosed(socket: Socket): Promise<{ ms: number; said: string }> {
  const t0 = Date.now();
  let said = '';
  socket.on('data', (c) => (said += c.toString()));
  return new Promise((r) => socket.on('close', () => r({ ms: Date.now() - t0, said })));
}

describe('slow clients', () => {
  let t: TestGateway;
  let key: string;
  before(async () => {
    t = await startTestGateway({
      HEADERS_TIMEOUT_MS: '500',
      REQUEST_TIMEOUT_MS: '1000',
      KEEP_ALIVE_TIMEOUT_MS: '300',
      RATE_LIMIT_PER_HOUR: '100000',
    });
    key = await register(t.url, 'patient@example.com');
  });
  after(() => t.close());
  const open = () => {
    const u = new URL(t.url);
    return connect(Number(u.port), u.hostname);
  };

  /** Other clients keep being served while `slow` is pending. */
  async function servedMeanwhile(slow: Promise<unknown>): Promise<number> {
    let done = false;
    void slow.then(() => (done = true));
    let served = 0;
    while (!done) {
      const res = await get(t.url, '/api/grains/CWRS', key);
      assert.equal(res.status, 200);
      served++;
    }
    return served;
  }

  it('cuts a client that sends its headers too slowly (408), serving others meanwhile', async () => {
    const socket = open();
    socket.write('GET /api/grains HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => socket.writable && socket.write('X'), 100); // never ends the headers
    const closed = untilClosed(socket);
    const served = await servedMeanwhile(closed);
    clearInterval(drip);
    const { ms, said } = await closed;
    assert.match(said, /^HTTP\/1\.1 408 /);
    assert.ok(ms >= 400 && ms < 2_000, `cut after ${ms} ms`);
    assert.ok(served > 5, `${served} other requests served meanwhile`);
  });

  it('cuts a client that sends its body too slowly, serving others meanwhile', async () => {
    const socket = open();
    // a whole JSON object, but fewer bytes than Content-Length promises: never registered
    socket.write(
      'POST /api/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        'Content-Length: 100\r\n\r\n{"email":"patient2@example.com"}',
    );
    const closed = untilClosed(socket);
    const served = await servedMeanwhile(closed);
    const { ms, said } = await closed;
    assert.equal(await t.gateway.store.show('patient2@example.com'), null, 'a body cut short registers nothing');
    assert.ok(said === '' || /^HTTP\/1\.1 (408|400) /.test(said), said);
    assert.ok(ms >= 800 && ms < 3_000, `cut after ${ms} ms`);
    assert.ok(served > 5);
  });

  it('closes an idle keep-alive connection', async () => {
    const socket = open();
    const closed = untilClosed(socket);
    const answered = new Promise<number>((r) => socket.once('data', () => r(Date.now())));
    socket.write(`GET /api/grains HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`); // keep-alive by default
    const t0 = await answered;
    const { said } = await closed;
    const idle = Date.now() - t0;
    assert.match(said, /^HTTP\/1\.1 200 /);
    assert.match(said, /\r\nConnection: keep-alive\r\n/i);
    assert.ok(idle >= 200 && idle < 2_000, `closed after ${idle} ms of idleness (KEEP_ALIVE_TIMEOUT_MS 300)`);
  });
});

describe('abuse without growth', () => {
  it('keeps memory bounded over 50,000 requests of unknown keys and registrations from many addresses', async () => {
    const g = await spawnGateway({ STATE_DIR: tempDir('abuse'), SITE_DIR: realSiteDir(), TRUST_PROXY: '1' });
    const pid = g.child.pid!;
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
    // clients on kept-alive connections, their requests written as bytes (raw-http.ts): node's HTTP
    // client would cost more than the gateway under test
    const connections = Array.from({ length: 64 }, () => rawConnection(g.url));
    const host = new URL(g.url).host;
    let n = 0;
    const statuses = new Map<number, number>();
    const one = async (connection: RawConnection) => {
      const i = n++;
      const body = i % 10 === 0 ? JSON.stringify({ email: `flood-${i}@example.com` }) : '';
      const status = await connection.send(
        body
          ? `POST /api/register HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
              `X-Forwarded-For: 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}\r\n` +
              `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
          : `GET /api/grains/CWRS HTTP/1.1\r\nHost: ${host}\r\nX-API-Key: ${generateKey()}\r\n\r\n`,
      );
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    };
    const run = async (count: number) => {
      const end = n + count;
      await Promise.all(
        connections.map(async (connection) => {
          while (n < end) await one(connection);
        }),
      );
    };
    try {
      await run(5_000); // warm-up: code compiled, pools and caches at their working size
      const before = rss();
      await run(50_000);
      const afterRss = rss();
      for (const connection of connections) connection.close();
      console.log(
        `abuse: RSS ${before.toFixed(1)} MiB → ${afterRss.toFixed(1)} MiB after 50,000 more requests; ` +
          `statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
      assert.ok(afterRss - before < 40, `RSS grew by ${(afterRss - before).toFixed(1)} MiB`);
      assert.equal(statuses.get(401), 49_500);
      assert.equal(statuses.get(201), 5_500); // every address registered once
      assert.equal((await get(g.url, '/health')).status, 200);
    } finally {
      g.child.kill('SIGTERM');
      await g.exited;
    }
  });
});
