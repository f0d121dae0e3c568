// tier: full (the accounts CLI's revoke-leaked)
// npm run accounts -- revoke-leaked (docs/operations.md, Accounts CLI, "A leaked key"): the key on standard
// input, revoked in the gateway's own store, SQLite or Redis; the output names the account and the
// key id and never the key; running gateways refuse it right after (Redis: every instance at once,
// through the revocation's announcement; SQLite: within the file watch's 250 ms). The CLI runs as
// its own process, as an operator runs it; the gateways are asked through their apps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateKey } from '../gateway/keys.ts';
import { runAccountsWithInput } from './helpers/gateway.ts';
import { injectGet, injectRegister, startTestApp, type TestApp, untilStoreReady } from './helpers/inject.ts';
import { fileRedis, redisSkipReason, uniquePrefix } from './helpers/redis.ts';
import { suite } from './helpers/suite.ts';

type Run = Awaited<ReturnType<typeof runAccountsWithInput>>;

/** No key, nor a key's 38 characters after its prefix, in what the CLI wrote. */
function assertNoKey(r: Run, keys: string[]) {
  for (const k of keys) assert.ok(!`${r.stdout}${r.stderr}`.includes(k.slice(4)), 'a key in the output');
}

/** Polls until the gateway answers 401 for the key; how long it took. */
async function refusedWithin(app: TestApp['app'], key: string, ms: number): Promise<number> {
  const t0 = Date.now();
  while ((await injectGet(app, '/api/grains', key)).status !== 401) {
    if (Date.now() - t0 > ms) assert.fail(`still served ${ms} ms after the revocation`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - t0;
}

/**
 * The CLI's answers on one store: `env` names it, `apps` are the running gateways on it, and
 * `bound` is how long after the CLI returns each may still serve the key (0: at once).
 */
async function revokesOnRunningGateways(env: Record<string, string>, apps: TestApp[], bound: number) {
  const cli = (input: string, ...args: string[]) => runAccountsWithInput(env, input, 'revoke-leaked', ...args);
  const email = `leak-${Math.random().toString(36).slice(2)}@example.com`;
  const leaked = await injectRegister(apps[0]!.app, email);
  const other = await injectRegister(apps[0]!.app, email);
  for (const { app } of apps) assert.equal((await injectGet(app, '/api/grains', leaked)).status, 200); // cached

  const done = await cli(`${leaked}\n`);
  assert.equal(done.status, 0, done.stderr);
  assert.match(done.stdout, new RegExp(`^revoked key [0-9a-f]+ of ${email.replace('.', '\\.')}\\n$`));
  assert.equal(done.stderr, '');
  for (const { app } of apps) {
    if (bound === 0) assert.equal((await injectGet(app, '/api/grains', leaked)).status, 401, 'refused at once');
    else await refusedWithin(app, leaked, bound);
    assert.equal((await injectGet(app, '/api/grains', other)).status, 200, "the account's other key works on");
  }

  const again = await cli(leaked);
  assert.equal(again.status, 1);
  assert.match(
    again.stderr,
    new RegExp(`^key [0-9a-f]+ of ${email.replace('.', '\\.')} was already revoked on 20\\d\\d-`),
  );
  const unknown = await cli(generateKey());
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /^no account holds this key: it was never issued here/);
  assert.equal((await injectGet(apps[0]!.app, '/api/grains', other)).status, 200);
  assertNoKey(done, [leaked, other]);
  assertNoKey(again, [leaked]);
}

describe('npm run accounts -- revoke-leaked, on the embedded store', () => {
  it('revokes the key read from standard input; the running gateway refuses it within 250 ms', async () => {
    const t = await startTestApp();
    try {
      await revokesOnRunningGateways({ STATE_DIR: t.stateDir }, [t], 250 + 100);
    } finally {
      await t.close();
    }
  });

  it('refuses look-alikes and a key given as an argument, repeating neither', async () => {
    const t = await startTestApp();
    try {
      const key = await injectRegister(t.app, 'leak-args@example.com');
      const env = { STATE_DIR: t.stateDir };
      for (const [name, input] of [
        ['nothing', ''],
        ['the bare prefix', 'ggt_'],
        ['a key one character short', key.slice(0, -1)],
        ['a key with its checksum broken', `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`],
      ]) {
        const r = await runAccountsWithInput(env, input!, 'revoke-leaked');
        assert.equal(r.status, 1, name);
        assert.match(r.stderr, /^standard input holds no key: a key is 42 characters/, name);
        assertNoKey(r, [key]);
      }
      const asArgument = await runAccountsWithInput(env, '', 'revoke-leaked', key);
      assert.equal(asArgument.status, 2);
      assert.match(asArgument.stderr, /^revoke-leaked takes no argument: pipe the key to it on standard input/);
      assertNoKey(asArgument, [key]);
      assert.equal((await injectGet(t.app, '/api/grains', key)).status, 200, 'nothing revoked');
    } finally {
      await t.close();
    }
  });
});

const skip = await redisSkipReason();
const redisUrl = fileRedis();
suite('npm run accounts -- revoke-leaked, on Redis', skip, () => {
  it('revokes the key on every instance at once', async () => {
    const env = { REDIS_URL: await redisUrl(), REDIS_KEY_PREFIX: uniquePrefix() };
    const apps = [await startTestApp(env), await startTestApp(env)];
    try {
      for (const { app } of apps) await untilStoreReady(app);
      await revokesOnRunningGateways(env, apps, 0);
    } finally {
      for (const t of apps) await t.close();
    }
  });
});
