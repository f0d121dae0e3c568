// Operations: durability across kill -9, counters across a restart, a new build while serving,
// the operators' CLI against a running gateway, configuration errors, the request log.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { buildSite } from '../build/build-site.ts';
import { publishSite } from '../build/publish.ts';
import { ConfigError, loadConfig } from '../gateway/config.ts';
import { createLogger } from '../gateway/log.ts';
import { type Decision, WINDOW_MS } from '../gateway/rate-limit.ts';
import { openSqliteStore } from '../gateway/store/sqlite.ts';
import { DB_FILE } from '../gateway/store/sqlite-schema.ts';
import { decodeWindows, encodeWindows } from '../gateway/store/window-snapshot.ts';
import { baseGrain, tempDir, writeDataset } from './helpers/dataset.ts';
import {
  get,
  realSiteDir,
  register,
  request,
  root,
  runAccounts,
  spawnGateway,
  startTestGateway,
  type TestGateway,
} from './helpers/gateway.ts';

describe('configuration', () => {
  const bad: [Record<string, string>, RegExp][] = [
    [{ PORT: '70000' }, /^PORT must be a whole number from 0 to 65535, not "70000"$/],
    [{ PORT: 'http' }, /^PORT must be/],
    [{ RATE_LIMIT_PER_HOUR: '0' }, /^RATE_LIMIT_PER_HOUR must be a whole number from 1/],
    [{ RATE_LIMIT_PER_HOUR: '1.5' }, /^RATE_LIMIT_PER_HOUR/],
    [{ REGISTER_LIMIT_PER_HOUR: '-3' }, /^REGISTER_LIMIT_PER_HOUR/],
    [{ TRUST_PROXY: 'true' }, /^TRUST_PROXY must list the proxies' addresses or CIDR ranges.*not "true"$/],
    [{ TRUST_PROXY: '99' }, /^TRUST_PROXY as a hop count is at most 10, not 99$/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /^TRUST_PROXY must list .* not "10\.0\.0\.0\/33"$/],
    [{ TRUST_PROXY: '10.0.0.0/8,cdn.example.net' }, /^TRUST_PROXY must list .* not "cdn\.example\.net"$/],
    [{ REDIS_URL: 'localhost:6379' }, /^REDIS_URL must start with redis: or rediss:/],
    [{ UPSTREAM_URL: 'not a url' }, /^UPSTREAM_URL must be a URL/],
    [{ HOST: 'a b' }, /^HOST must be an address/],
    [{ ACCESS_LOG: 'some' }, /^ACCESS_LOG must be one of all, errors, off, not "some"$/],
  ];
  for (const [env, message] of bad) {
    it(`refuses ${JSON.stringify(env)}, naming the variable`, () => {
      assert.throws(
        () => loadConfig(env),
        (e: Error) => e instanceof ConfigError && message.test(e.message),
      );
    });
  }
  it('has the documented defaults and is frozen', () => {
    const c = loadConfig({}, '/srv/app');
    assert.equal(c.port, 8080);
    assert.equal(c.stateDir, '/srv/app/var');
    assert.equal(c.rateLimitPerHour, 100);
    assert.equal(c.registerLimitPerHour, 10);
    assert.deepEqual(c.trustProxy, { kind: 'none' });
    assert.equal(c.redisUrl, null);
    assert.ok(Object.isFrozen(c));
  });
  it('stops npm start with a message naming the variable', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'gateway/index.ts')], {
      cwd: root,
      env: { ...process.env, RATE_LIMIT_PER_HOUR: 'lots' },
      encoding: 'utf8',
    });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /configuration error: RATE_LIMIT_PER_HOUR must be a whole number/);
  });
});

describe('durability', () => {
  it('every key answered 201 still works after kill -9 during a storm of registrations', async () => {
    const stateDir = tempDir('kill9');
    const env = { STATE_DIR: stateDir, SITE_DIR: realSiteDir(), REGISTER_LIMIT_PER_HOUR: '100000' };
    const first = await spawnGateway(env);
    const issued: string[] = [];
    let stop = false;
    // 8 clients register as fast as they can; the process is killed while they do
    const storm = Array.from({ length: 8 }, async (_, c) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await request(first.url, '/api/register', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: `storm-${c}-${i}@example.com` }),
            agent: false,
          });
          if (res.status === 201) issued.push(res.json().api_key);
        } catch {
          return; // the connection died with the process
        }
      }
    });
    while (issued.length < 60) await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGKILL');
    assert.equal(await first.exited, null);
    stop = true;
    await Promise.all(storm);

    const second = await spawnGateway(env);
    try {
      const results = await Promise.all(issued.map((k) => get(second.url, '/api/grains', k)));
      assert.deepEqual(
        results.map((r) => r.status),
        issued.map(() => 200),
        `${issued.length} keys issued before the kill`,
      );
      console.log(
        `kill -9: ${issued.length} keys answered 201 before the kill; all ${results.length} work after the restart`,
      );
    } finally {
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0);
    }
  });

  it('SIGTERM saves the hourly windows; a restart hands out no fresh quota', async () => {
    const env = { STATE_DIR: tempDir('restart'), SITE_DIR: realSiteDir() };
    const first = await spawnGateway(env);
    const key = await register(first.url, 'restart@example.com');
    for (let i = 0; i < 5; i++) assert.equal((await get(first.url, '/api/grains', key)).status, 200);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    assert.match(first.output.join(''), /"event":"stopped","in_flight_left":0/);
    const second = await spawnGateway(env);
    try {
      const res = await get(second.url, '/api/grains', key);
      assert.equal(res.headers['x-ratelimit-used'], '6');
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});

describe('saving the hourly windows while serving', () => {
  it('saves what was counted every checkpoint, so a killed process loses at most that much', async () => {
    const stateDir = tempDir('checkpoint');
    const start = Date.UTC(2026, 10, 22, 12);
    let now = start;
    const clock = () => now;
    const first = openSqliteStore({
      stateDir,
      rateLimitPerHour: 100,
      registerLimitPerHour: 10,
      registerAttemptsPerHour: 100,
      clock,
      checkpointMs: 20,
    });
    for (let i = 0; i < 7; i++) assert.equal((first.requests.hit('1', now) as Decision).used, i + 1);
    for (let i = 0; i < 3; i++) first.requests.hit('2', now);
    first.registrations.hit('192.0.2.1', now);
    now += 1_000;
    // another connection reads the file, as a restarted process would, until the checkpoint ran
    const reader = new Database(join(stateDir, DB_FILE), { readonly: true });
    const saved = () =>
      (
        reader.prepare('SELECT kind, data FROM window_snapshots ORDER BY kind').all() as {
          kind: string;
          data: Buffer;
        }[]
      ).map((r) => [r.kind, decodeWindows(r.data)]);
    const expected = [
      ['registrations', [['192.0.2.1', start, 1, start]]],
      [
        'requests',
        [
          ['1', start, 7, start],
          ['2', start, 3, start],
        ],
      ],
    ];
    for (let i = 0; i < 200 && JSON.stringify(saved()) !== JSON.stringify(expected); i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(saved(), expected);
    // first is never closed (as after kill -9); a second store on the same file restores the windows
    const second = openSqliteStore({
      stateDir,
      rateLimitPerHour: 100,
      registerLimitPerHour: 10,
      registerAttemptsPerHour: 100,
      clock,
      checkpointMs: 60_000,
    });
    try {
      assert.equal((second.requests.hit('1', now) as Decision).used, 8);
      assert.equal((second.requests.peek('2', now) as Decision).used, 3);
      assert.equal((second.registrations.peek('192.0.2.1', now) as Decision).used, 1);
      // an hour after its start a window is over, and is not saved again
      now = start + WINDOW_MS;
      assert.equal((second.requests.peek('1', now) as Decision).used, 0);
    } finally {
      await second.close();
    }
    assert.deepEqual(saved(), [
      ['registration_attempts', []],
      ['registrations', []],
      ['requests', []],
    ]);
    reader.close();
  });
});

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
  it('carries each line its own time, as the millisecond changes (the time part is rewritten in place)', () => {
    const times = [at, at + 1, at + 1, at + 86_400_000 + 7, Date.UTC(10000, 0, 1), at, -1];
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

describe('window snapshots', () => {
  const cases: [string, [string, number, number, number][]][] = [
    ['none', []],
    [
      'account ids',
      [
        ['1', 1795348800000, 7, 1795348800000],
        ['123456789', 1795348800123, 4294967295, 1795348800123],
      ],
    ],
    [
      'addresses, IPv6 by /64',
      [
        ['192.0.2.1', 1795348800000, 1, 1795348800000],
        ['2001:db8:1:2::/64', 1795348801000, 10, 1795348801000],
      ],
    ],
    ['any UTF-8 subject', [['é—✓', 1, 2, 1]]],
  ];
  for (const [name, rows] of cases) {
    it(`round-trips ${name}`, () => {
      const map = new Map(rows.map(([k, start, count, last]) => [k, { start, count, last, unsaved: 0 }]));
      assert.deepEqual(decodeWindows(encodeWindows(map)), rows);
    });
  }
  it('refuses a snapshot of another version or cut short', () => {
    const whole = encodeWindows(new Map([['42', { start: 1795348800000, count: 3, last: 1795348800500, unsaved: 0 }]]));
    assert.throws(() => decodeWindows(Buffer.from([3])), /not a version 1 or 2 window snapshot/);
    assert.throws(() => decodeWindows(Buffer.alloc(0)), /not a version 1 or 2 window snapshot/);
    for (let cut = 2; cut < whole.length; cut++)
      assert.throws(() => decodeWindows(whole.subarray(0, cut)), /cut short/);
  });
});

describe('a new build while serving', () => {
  it('is picked up without a restart, and no request fails or mixes builds', async () => {
    const siteDir = tempDir('reload-site');
    const real = buildSite(join(root, 'dataset'));
    const other = buildSite(writeDataset({ grains: { TEST: baseGrain() } }));
    assert.ok(real.ok && other.ok);
    publishSite(siteDir, real.site);
    const t = await startTestGateway({ SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '1000000' }, { sitePollMs: 10 });
    try {
      const key = await register(t.url, 'reload@example.com');
      let stop = false;
      const seen = new Set<number>();
      let requests = 0;
      const load = Array.from({ length: 8 }, async () => {
        while (!stop) {
          const res = await get(t.url, '/api/grains', key);
          requests++;
          assert.equal(res.status, 200);
          // the body is exactly the one its ETag names: never half of one build and half of another
          assert.equal(res.headers.etag, `"${createHash('sha256').update(res.body).digest('hex').slice(0, 32)}"`);
          seen.add(res.json().count);
        }
      });
      for (let i = 0; i < 6; i++) {
        const next = (i % 2 ? real : other).site;
        publishSite(siteDir, next);
        // each build is served before the next is published, however loaded the machine is
        for (let w = 0; w < 500 && (await get(t.url, '/health')).json().build_id !== next.manifest.build_id; w++) {
          await new Promise((r) => setTimeout(r, 10));
        }
        await new Promise((r) => setTimeout(r, 30));
      }
      stop = true;
      await Promise.all(load);
      assert.deepEqual(
        [...seen].sort((a, b) => a - b),
        [1, real.dataset.grains.length],
      );
      assert.ok(requests > 50, `${requests} requests during the swaps`);
      console.log(`reload: ${requests} requests during 6 build swaps, none failed`);
      // the last build published is picked up (polled for, up to 5 s)
      let health = (await get(t.url, '/health')).json();
      for (let i = 0; i < 100 && health.build_id !== real.site.manifest.build_id; i++) {
        await new Promise((r) => setTimeout(r, 50));
        health = (await get(t.url, '/health')).json();
      }
      assert.equal(health.build_id, real.site.manifest.build_id);
      assert.match(t.logs.join(''), /"event":"site_swapped"/);
    } finally {
      await t.close();
    }
  });
});

describe('operators', () => {
  it('npm run accounts lists accounts, shows their keys, revokes one or all; the running gateway refuses them', async () => {
    const t = await startTestGateway();
    try {
      const key = await register(t.url, 'ops@example.com');
      const other = await register(t.url, 'ops@example.com');
      assert.equal((await get(t.url, '/api/grains', key)).status, 200);
      await t.gateway.store.close(); // the last use is written with the checkpoint (and at close)
      await t.close();
      const cli = (...args: string[]) => runAccounts({ STATE_DIR: t.stateDir }, ...args);
      const list = await cli('list');
      assert.equal(list.status, 0, list.stderr);
      assert.match(
        list.stdout,
        /^1\tops@example\.com\tcreated 2026-11-22T12:00:00\.000Z\t2 live key\(s\) of 2\t1 request\(s\)\tlast used 2026-11-22T12:00:00\.000Z\n1 account\(s\)\n$/,
      );
      const show = await cli('show', 'OPS@example.com');
      assert.equal(show.status, 0, show.stderr);
      const lines = show.stdout.trim().split('\n');
      assert.equal(lines.length, 3);
      assert.match(
        lines[1]!,
        /^ {2}key 1\tcreated 2026-11-22T12:00:00\.000Z\tlast used 2026-11-22T12:00:00\.000Z\t1 request\(s\)\tlive$/,
      );
      assert.match(lines[2]!, /^ {2}key 2\tcreated 2026-11-22T12:00:00\.000Z\tlast used -\t0 request\(s\)\tlive$/);
      for (const out of [list.stdout, show.stdout]) assert.ok(!out.includes(key) && !out.includes(other));
      assert.equal((await cli('show', 'nobody@example.com')).status, 1);
      assert.equal((await cli('revoke', 'ops@example.com', '9')).status, 1, 'a key the account does not have');
      const one = await cli('revoke', 'ops@example.com', '1');
      assert.equal(one.status, 0, one.stderr);
      assert.equal(one.stdout, 'revoked 1 live key(s) of ops@example.com\n');
      assert.match((await cli('show', 'ops@example.com')).stdout, /key 1\t.*\trevoked 20\d\d-/);
      // a gateway started on the file refuses the revoked key and serves the other
      const g = await startTestGateway({ STATE_DIR: t.stateDir });
      try {
        assert.equal((await get(g.url, '/api/grains', key)).status, 401);
        assert.equal((await get(g.url, '/api/grains', other)).status, 200);
        // a revocation by the CLI while it runs reaches it within its 2-second bound
        const all = await cli('revoke', 'ops@example.com', '--all');
        assert.equal(all.stdout, 'revoked 1 live key(s) of ops@example.com\n');
        const revokedAt = Date.now();
        let status = (await get(g.url, '/api/grains', other)).status;
        while (status !== 401 && Date.now() - revokedAt < 2_000) {
          await new Promise((r) => setTimeout(r, 20));
          status = (await get(g.url, '/api/grains', other)).status;
        }
        assert.equal(status, 401, 'refused within 2 seconds of the revocation');
        assert.equal((await cli('frobnicate')).status, 2);
        assert.equal((await cli('revoke', 'ops@example.com')).status, 2, 'revoke names a key or --all');
        const fresh = await register(g.url, 'ops@example.com');
        assert.equal((await get(g.url, '/api/grains', fresh)).status, 200);
      } finally {
        await g.close();
      }
    } finally {
      await t.close();
    }
  });

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
    it(`ACCESS_LOG=${level} logs ${statuses.length ? 'only the answers of status 400 and above' : 'no request'}, and every event`, async () => {
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
