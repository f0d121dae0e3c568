// tier: full (gateway processes killed and restarted)
// What survives the gateway's process (docs/contract.md, Storage and scale): every key answered
// 201 outlives a kill -9, and SIGTERM saves the hourly windows so a restart hands out no fresh
// quota. The process is the subject, so each gateway here is a real one, spawned and signalled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tempDir } from './helpers/dataset.ts';
import { get, realSiteDir, register, request, spawnGateway } from './helpers/gateway.ts';

describe('durability', () => {
  it('every key answered 201 still works after kill -9 during a storm of registrations', async () => {
    const stateDir = tempDir('kill9');
    const env = { STATE_DIR: stateDir, SITE_DIR: realSiteDir(), REGISTER_LIMIT_PER_HOUR: '100000' };
    const first = await spawnGateway(env);
    const issued: string[] = [];
    let stop = false;
    let killed = false;
    let failed: unknown = null;
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
        } catch (err) {
          if (!killed) failed ??= err; // only the kill may end a client's requests
          return; // the connection died with the process
        }
      }
    });
    while (issued.length < 60 && failed === null) await new Promise((r) => setTimeout(r, 5));
    assert.equal(failed, null, 'no request failed before the kill');
    killed = true;
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
