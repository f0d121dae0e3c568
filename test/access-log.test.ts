// tier: full (a gateway process whose log reader goes away)
// The access log: the line each request writes (gateway/log.ts: bytes that read exactly as the same
// fields through JSON), its bounded memory while the reader is slow, and what the server logs at
// each ACCESS_LOG level (docs/operations.md, Configuration). The server writes the lines, so those
// tests run a real one, in this process; a spawned one when its stdout's reader goes away.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../gateway/log.ts';
import { tempDir } from './helpers/dataset.ts';
import { get, realSiteDir, register, spawnGateway, startTestGateway, type TestGateway } from './helpers/gateway.ts';

describe('the request line', () => {
  // Written as bytes (log.ts); it must read exactly as the same fields through JSON would.
  const at = Date.UTC(2026, 10, 22, 12, 0, 0, 123);
  const cases: [
    name: string,
    method: string,
    url: string,
    status: number,
    ms: number,
    account: string | null,
    path: string,
  ][] = [
    ['a grain', 'GET', '/api/grains/CWRS', 200, 0.37, '17', '/api/grains/CWRS'],
    ['a query is not logged', 'GET', '/api/changelog?grain_id=CWRS&limit=5', 200, 0.5, '1', '/api/changelog'],
    ['a 304, a long account id', 'HEAD', '/api/grains', 304, 0.05, '123456789012', '/api/grains'],
    ['no account', 'GET', '/nowhere', 404, 1, null, '/nowhere'],
    ['hundredths rounded', 'POST', '/api/register', 201, 12.345, '42', '/api/register'],
    ['zero, a whole number', 'GET', '/', 200, 0, '7', '/'],
    ['a long duration', 'GET', '/', 200, 123456.78, '7', '/'],
    ['quotes and backslashes escaped', 'GET', '/a"b\\c', 400, 0.1, null, '/a"b\\c'],
    ['a key in the path masked', 'GET', '/api/grains/ggt_abcDEF-_123', 400, 0.1, null, '/api/grains/ggt_[redacted]'],
    ['non-ASCII in UTF-8', 'GET', '/é中', 404, 0.999, null, '/é中'],
    [
      'a path cut to 512 characters (and not kept)',
      'GET',
      `/${'a'.repeat(600)}?q=1`,
      404,
      0.1,
      null,
      `/${'a'.repeat(511)}`,
    ],
    ['an account id that is not a number goes through JSON', 'GET', '/', 200, 0.2, 'x"y', '/'],
  ];
  for (const [name, method, url, status, ms, account, path] of cases) {
    it(name, () => {
      const chunks: string[] = [];
      const logger = createLogger(
        (chunk) => chunks.push(chunk.toString()),
        () => at,
      );
      logger.request({ method, url, status, ms, account });
      logger.request({ method, url, status, ms, account }); // the second from the kept part
      logger.flush();
      const expected = JSON.stringify({
        time: new Date(at).toISOString(),
        method,
        path,
        status,
        ms: Math.round(ms * 100) / 100,
        account,
      });
      assert.equal(chunks.join(''), `${expected}\n${expected}\n`);
    });
  }
  it('writes each status of a kept path as its own (the parts are kept per path and status)', () => {
    const chunks: string[] = [];
    const logger = createLogger(
      (chunk) => chunks.push(chunk.toString()),
      () => at,
    );
    const statuses = [200, 304, 200, 404, 304, 429];
    for (const status of statuses)
      logger.request({ method: 'GET', url: '/api/grains/CWRS', status, ms: 1, account: '5' });
    logger.request({ method: 'HEAD', url: '/api/grains/CWRS', status: 200, ms: 1, account: '5' });
    logger.flush();
    const lines = chunks
      .join('')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.method, l.path, l.status]),
      [...statuses.map((s) => ['GET', '/api/grains/CWRS', s]), ['HEAD', '/api/grains/CWRS', 200]],
    );
  });
  it('carries each line its own time, as the millisecond changes (the time part is rewritten in place)', () => {
    const times = [
      at,
      at + 1,
      at + 1,
      at + 876,
      at + 877,
      at + 922,
      at + 86_400_000 + 7,
      Date.UTC(10000, 0, 1) + 5,
      at,
      -1,
    ];
    const chunks: string[] = [];
    const logger = createLogger((chunk) => chunks.push(chunk.toString()));
    for (const t of times)
      logger.request({ method: 'GET', url: '/api/grains', status: 200, ms: 0.5, account: '3', now: t });
    logger.flush();
    const expected = times.map(
      (t) =>
        `${JSON.stringify({
          time: new Date(t).toISOString(),
          method: 'GET',
          path: '/api/grains',
          status: 200,
          ms: 0.5,
          account: '3',
        })}\n`,
    );
    assert.equal(chunks.join(''), expected.join(''));
  });
});

describe('the request log with a slow reader', () => {
  it('holds at most 1 MiB while the output is backed up, then says how many lines it dropped', () => {
    const chunks: string[] = [];
    let backedUp = true;
    let resume: (() => void) | null = null;
    const logger = createLogger({
      write: (chunk) => {
        chunks.push(chunk.toString());
        return !backedUp;
      },
      onDrain: (r) => (resume = r),
    });
    const line = (i: number) =>
      logger.request({ method: 'GET', url: `/api/grains/CWRS?n=${i}`, status: 200, ms: 0.1, account: '1' });
    for (let i = 0; i < 1_000; i++) line(i); // the first 64 KiB go out; the output answers "backed up"
    assert.equal(chunks.length, 1);
    for (let i = 1_000; i < 100_000; i++) line(i); // ~11 MB of lines while nothing can be written
    assert.equal(chunks.length, 1, 'nothing written while backed up');
    backedUp = false;
    resume!();
    logger.flush();
    const written = chunks.slice(1).join('');
    assert.ok(written.length <= (1 << 20) + 65_536 + 200, `${written.length} bytes held`);
    const dropped = written
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event?: string; lines?: number });
    const note = dropped.find((l) => l.event === 'log_dropped');
    const requests = dropped.filter((l) => l.event === undefined).length;
    assert.ok(note && note.lines! > 80_000, JSON.stringify(note));
    const first = chunks[0]!.split('\n').filter(Boolean).length;
    assert.equal(first + requests + note!.lines!, 100_000, 'every line written or counted as dropped');
  });
});

describe('what the server logs', () => {
  /** A gateway's log, one parsed object a line. */
  // biome-ignore lint/suspicious/noExplicitAny: log lines are read as whatever fields they carry
  const logLines = (t: TestGateway): any[] =>
    t.logs
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));

  it('logs one line per request: method, path, status, duration, account', async () => {
    const t = await startTestGateway();
    try {
      const key = await register(t.url, 'log@example.com');
      await get(t.url, '/api/changelog?limit=2', key);
      await get(t.url, '/api/grains');
      await t.close();
      const requests = logLines(t).filter((l) => l.method);
      assert.deepEqual(
        requests.map((l) => [l.method, l.path, l.status]),
        [
          ['POST', '/api/register', 201],
          ['GET', '/api/changelog', 200],
          ['GET', '/api/grains', 401],
        ],
      );
      assert.equal(requests[1].account, requests[0].account);
      assert.equal(requests[2].account, null);
      assert.ok(requests.every((l) => typeof l.ms === 'number' && typeof l.time === 'string'));
    } finally {
      await t.close();
    }
  });

  const levels: [level: string, statuses: number[]][] = [
    ['errors', [401, 404]],
    ['off', []],
  ];
  for (const [level, statuses] of levels) {
    const which = statuses.length ? 'only the answers of status 400 and above' : 'no request';
    it(`ACCESS_LOG=${level} logs ${which}, and every event`, async () => {
      const t = await startTestGateway({ ACCESS_LOG: level });
      try {
        const key = await register(t.url, `log-${level}@example.com`);
        assert.equal((await get(t.url, '/api/grains', key)).status, 200);
        assert.equal((await get(t.url, '/api/grains')).status, 401);
        assert.equal((await get(t.url, '/nothing')).status, 404);
        await t.close();
        const lines = logLines(t);
        assert.deepEqual(
          lines.filter((l) => l.method).map((l) => l.status),
          statuses,
        );
        assert.ok(lines.some((l) => l.event === 'listening') && lines.some((l) => l.event === 'stopped'));
      } finally {
        await t.close();
      }
    });
  }
});

describe("when the log's reader goes away", () => {
  // The process is the subject: its stdout is a pipe whose other end this test closes.
  it('goes on answering, and says once on stderr that the log is lost', async () => {
    const g = await spawnGateway({ STATE_DIR: tempDir('log-reader'), SITE_DIR: realSiteDir() });
    g.child.stdout!.destroy();
    const lost = () => g.output.join('').includes('log output lost (EPIPE)');
    // every request writes a line; the first write after the pipe closed fails (lines go every 100 ms)
    for (let i = 0; i < 200 && !lost(); i++) {
      assert.equal((await get(g.url, '/health')).status, 200);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(lost(), `the loss is said on stderr:\n${g.output.join('')}`);
    for (let i = 0; i < 20; i++) assert.equal((await get(g.url, '/health')).status, 200);
    assert.equal(g.child.exitCode, null, 'the process is still up');
    assert.equal(g.output.join('').split('log output lost').length, 2, 'said once');
    g.child.kill('SIGTERM');
    assert.equal(await g.exited, 0, 'and stops cleanly');
  });
});
