// tier: full (start-up refusals of a gateway process)
// The configuration (gateway/config.ts): each variable refused with a sentence that names it, the
// documented defaults, and npm start stopping on a bad value (docs/operations.md lists them).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../gateway/config.ts';
import { bundled } from './helpers/bundles.ts';
import { tempDir } from './helpers/dataset.ts';
import { realSiteDir, root } from './helpers/gateway.ts';

/** A port nothing listens on: one the system gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

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
    [{ REDIS_URL: 'localhost:6380' }, /^REDIS_URL must start with redis: or rediss:/],
    [{ UPSTREAM_URL: 'not a url' }, /^UPSTREAM_URL must be a URL/],
    [
      { REDIS_URL: 'redis://a:6380', REDIS_SENTINELS: 'b:26379', REDIS_SENTINEL_NAME: 'grain' },
      /^REDIS_URL and REDIS_SENTINELS are two ways to reach Redis: set one of them, not both$/,
    ],
    [{ REDIS_SENTINELS: 'b:26379' }, /^REDIS_SENTINEL_NAME must be the name the sentinels monitor/],
    [{ REDIS_SENTINEL_NAME: 'grain' }, /^REDIS_SENTINEL_NAME needs REDIS_SENTINELS/],
    [{ REDIS_SENTINELS: 'b:26379,c', REDIS_SENTINEL_NAME: 'grain' }, /^REDIS_SENTINELS must be host:port pairs/],
    [{ REDIS_SENTINELS: 'b:0', REDIS_SENTINEL_NAME: 'grain' }, /^REDIS_SENTINELS must be host:port pairs/],
    [
      { REDIS_URL: 'redis://a:6380', REDIS_PASSWORD: 's3cret' },
      /^REDIS_PASSWORD and REDIS_SENTINEL_PASSWORD go with REDIS_SENTINELS \((?!.*s3cret)/,
    ],
    [{ REDIS_MIN_REPLICAS: '1' }, /^REDIS_MIN_REPLICAS counts Redis replicas: it needs REDIS_URL or REDIS_SENTINELS$/],
    [
      { REDIS_URL: 'redis://a:6380', REDIS_MIN_REPLICAS: '99' },
      /^REDIS_MIN_REPLICAS must be a whole number from 0 to 16/,
    ],
    [{ HOST: 'a b' }, /^HOST must be an address/],
    [{ HOST: ':::bad' }, /^HOST must be an address or host name \(0\.0\.0\.0, ::1, localhost\), not ":::bad"$/],
    [{ HOST: '1.2.3.999' }, /^HOST must be an address/],
    [{ HOST: 'a..b' }, /^HOST must be an address/],
    [{ HOST: '127.0.0.1:8080' }, /^HOST must be an address/],
    [{ ACCESS_LOG: 'some' }, /^ACCESS_LOG must be one of all, errors, off, not "some"$/],
    [{ PUBLIC_URL: 'grain.example.org' }, /^PUBLIC_URL must be a URL/],
    [{ PUBLIC_URL: 'ftp://grain.example.org' }, /^PUBLIC_URL must start with http: or https:/],
    [{ PUBLIC_URL: 'https://grain.example.org/api' }, /^PUBLIC_URL must be an origin alone .* not "https:\/\/grain/],
    // a recovery link names PUBLIC_URL, never a Host a request chose; the URL is not echoed (a password)
    [{ SMTP_URL: 'smtp://mail.example.org' }, /^SMTP_URL needs PUBLIC_URL/],
    [
      { SMTP_URL: 'http://user:s3cret@mail.example.org' },
      /^SMTP_URL must be a URL that starts with smtp:\/\/ or [^3]*$/,
    ],
    [{ MAIL_FROM: 'nobody' }, /^MAIL_FROM must be an address/],
    [{ MAIL_FROM: 'A <a@example.org>\r\nBcc: b@example.org' }, /^MAIL_FROM must be an address/],
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
    assert.equal(c.publicUrl, null);
    assert.equal(loadConfig({ PUBLIC_URL: 'https://Grain.Example.org/' }).publicUrl, 'https://grain.example.org');
    assert.equal(c.rateLimitPerHour, 100);
    assert.equal(c.registerLimitPerHour, 10);
    assert.deepEqual(c.trustProxy, { kind: 'none' });
    assert.equal(c.redis, null);
    assert.equal(c.redisMinReplicas, 0);
    assert.equal(c.smtpUrl, null);
    assert.equal(c.accessLog, 'errors');
    assert.match(c.mailFrom, /<no-reply@localhost>$/);
    assert.ok(Object.isFrozen(c));
  });
  it('stops npm start with a message naming the variable', async () => {
    const run = spawnSync(process.execPath, await bundled('gateway'), {
      cwd: root,
      env: { ...process.env, RATE_LIMIT_PER_HOUR: 'lots' },
      encoding: 'utf8',
    });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /configuration error: RATE_LIMIT_PER_HOUR must be a whole number/);
  });

  it('reaches Redis by URL or through Sentinel, with the replicas a key waits for', () => {
    assert.deepEqual(loadConfig({ REDIS_URL: 'redis://r:6380' }).redis, { kind: 'url', url: 'redis://r:6380' });
    const c = loadConfig({
      REDIS_SENTINELS: '10.0.0.5:26379, [fd00::6]:26380',
      REDIS_SENTINEL_NAME: 'grain-keys',
      REDIS_MIN_REPLICAS: '1',
    });
    assert.deepEqual(c.redis, {
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.5', port: 26379 },
        { host: 'fd00::6', port: 26380 },
      ],
      name: 'grain-keys',
      password: null,
      sentinelPassword: null,
    });
    assert.equal(c.redisMinReplicas, 1);
  });

  it('takes an IPv6 address with or without its brackets, and host names', () => {
    assert.equal(loadConfig({ HOST: '[::1]' }).host, '::1');
    assert.equal(loadConfig({ HOST: '::1' }).host, '::1');
    assert.equal(loadConfig({ HOST: 'gateway-1.internal' }).host, 'gateway-1.internal');
  });

  // docs/contract.md, Configuration: a bad value stops start-up with a message naming the variable,
  // also one that only the network can refuse
  const refusals: [string, () => Promise<Record<string, string>>, RegExp][] = [
    ['HOST not an address', async () => ({ HOST: ':::bad' }), /^configuration error: HOST must be an address/],
    [
      'HOST not an address of this machine',
      async () => ({ HOST: '192.0.2.1' }), // TEST-NET-1 (RFC 5737): nobody's
      /^start-up refused: HOST 192\.0\.2\.1 is not an address of this machine: set HOST to one of its addresses/,
    ],
    [
      'UPSTREAM_URL that nothing answers',
      async () => ({ UPSTREAM_URL: `http://127.0.0.1:${await closedPort()}` }),
      /^start-up refused: UPSTREAM_URL http:\/\/127\.0\.0\.1:\d+: current\.json could not be fetched \(connect ECONN/,
    ],
  ];
  for (const [name, env, message] of refusals) {
    it(`stops start-up with one sentence naming the variable: ${name}`, async () => {
      const run = spawnSync(process.execPath, await bundled('gateway'), {
        cwd: root,
        env: { ...process.env, PORT: '0', STATE_DIR: tempDir('refused'), SITE_DIR: realSiteDir(), ...(await env()) },
        encoding: 'utf8',
      });
      assert.equal(run.status, 1);
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trim().split('\n').length, 1, `one line, no stack: ${run.stderr}`);
    });
  }

  it('stops start-up with a sentence when the port is taken, no stack', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const run = spawnSync(process.execPath, await bundled('gateway'), {
        cwd: root,
        env: {
          ...process.env,
          HOST: '127.0.0.1',
          PORT: String(port),
          STATE_DIR: tempDir('port-taken'),
          SITE_DIR: realSiteDir(),
        },
        encoding: 'utf8',
      });
      assert.equal(run.status, 1);
      assert.equal(run.stderr, `start-up refused: 127.0.0.1 port ${port} is in use: stop what holds it, or set PORT\n`);
    } finally {
      holder.close();
    }
  });
});
