// tier: full (the accounts CLI as operators run it)
// The operators' CLI (npm run accounts, scripts/accounts.ts) on the embedded store of a running
// gateway (docs/operations.md, Accounts CLI): it lists and shows accounts without their keys, and
// revokes one key or all, which the running gateway refuses within 2 seconds. The CLI runs as its
// own process, as an operator runs it; the gateway is asked through its app (helpers/inject.ts).
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import { tempDir } from './helpers/dataset.ts';
import { runAccounts } from './helpers/gateway.ts';
import { injectGet, injectRegister, startTestApp } from './helpers/inject.ts';

describe('npm run accounts', () => {
  it('lists accounts, shows their keys, revokes one or all; the running gateway refuses them', async () => {
    const t = await startTestApp();
    const { app } = t;
    try {
      const key = await injectRegister(app, 'ops@example.com');
      const other = await injectRegister(app, 'ops@example.com');
      assert.equal((await injectGet(app, '/api/grains', key)).status, 200);
      await t.close(); // the last use is written with the checkpoint (and at close)
      const cli = (...args: string[]) => runAccounts({ STATE_DIR: t.stateDir }, ...args);
      const list = await cli('list');
      assert.equal(list.status, 0, list.stderr);
      assert.equal(
        list.stdout,
        '1\tops@example.com\tcreated 2026-11-22T12:00:00.000Z\t2 live key(s) of 2\t1 request(s)\t' +
          'last used 2026-11-22T12:00:00.000Z\n1 account(s)\n',
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
      const g = await startTestApp({ STATE_DIR: t.stateDir });
      try {
        assert.equal((await injectGet(g.app, '/api/grains', key)).status, 401);
        assert.equal((await injectGet(g.app, '/api/grains', other)).status, 200);
        // a revocation by the CLI while it runs reaches it within its 2-second bound
        const all = await cli('revoke', 'ops@example.com', '--all');
        assert.equal(all.stdout, 'revoked 1 live key(s) of ops@example.com\n');
        const revokedAt = Date.now();
        let status = (await injectGet(g.app, '/api/grains', other)).status;
        while (status !== 401 && Date.now() - revokedAt < 2_000) {
          await new Promise((r) => setTimeout(r, 20));
          status = (await injectGet(g.app, '/api/grains', other)).status;
        }
        assert.equal(status, 401, 'refused within 2 seconds of the revocation');
        assert.equal((await cli('frobnicate')).status, 2);
        assert.equal((await cli('revoke', 'ops@example.com')).status, 2, 'revoke names a key or --all');
        const fresh = await injectRegister(g.app, 'ops@example.com');
        assert.equal((await injectGet(g.app, '/api/grains', fresh)).status, 200);
      } finally {
        await g.close();
      }
    } finally {
      await t.close();
    }
  });

  it('refuses a STATE_DIR that holds no store, creating nothing there', async () => {
    const dir = tempDir('no-store');
    const r = await runAccounts({ STATE_DIR: dir }, 'list');
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^no store at .*gateway\.sqlite: is STATE_DIR the gateway's\?/);
    assert.deepEqual(readdirSync(dir), [], 'no empty store left behind');
  });
});
