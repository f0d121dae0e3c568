// Nothing learned from timing (docs/contract.md, Getting a key back), asserted as the order and the
// amount of work, not as durations (those are the bench's: npm run bench:accounts). Asked of the
// gateway's app in process (helpers/inject.ts) on a real SQLite file whose store reports each
// operation: an address with an account and one without cause the same store operations, in the same
// order relative to the answer, the same bytes written to the file's log (the WAL) and the same mail
// bytes written; a new account and an existing one alike; an unknown and a used token alike.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { GatewayRequest } from '../gateway/app.ts';
import { DECOY_FILE, OUTBOX_DIR } from '../gateway/mail.ts';
import { DB_FILE } from '../gateway/store/sqlite/schema.ts';
import { openSqliteStore } from '../gateway/store/sqlite/sqlite-store.ts';
import { tempDir } from './helpers/dataset.ts';
import { testClock } from './helpers/gateway.ts';
import { injectJson, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';
import { eventually, outbox, tokenIn } from './helpers/mail.ts';

describe('the work an account causes', () => {
  const trace: string[] = [];
  const stateDir = tempDir('state');
  const clock = testClock();
  let t: TestApp;
  before(async () => {
    const store = openSqliteStore({
      stateDir,
      rateLimitPerHour: 1000,
      registerLimitPerHour: 1000,
      registerAttemptsPerHour: 10_000,
      clock,
      checkpointMs: 3_600_000, // no windows saved during the test: the file's log grows by requests alone
      observe: (operation) => trace.push(`store:${operation}`),
    });
    t = await startTestApp({ STATE_DIR: stateDir }, { clock, store });
  });
  after(() => t.close());

  const walBytes = () => statSync(join(stateDir, `${DB_FILE}-wal`)).size;
  const outboxBytes = () => {
    const dir = join(stateDir, OUTBOX_DIR);
    return existsSync(dir) ? readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0) : 0;
  };
  const decoyBytes = () => (existsSync(join(stateDir, DECOY_FILE)) ? statSync(join(stateDir, DECOY_FILE)).size : 0);

  /** One JSON POST through app.handle: what ran before the answer, what after, and what it wrote. */
  async function traced(url: string, body: unknown) {
    trace.length = 0;
    const wal = walBytes();
    const bytes = Buffer.from(JSON.stringify(body));
    const req: GatewayRequest = {
      method: 'POST',
      url,
      headers: { host: 'localhost', 'content-type': 'application/json' },
      remoteAddress: '127.0.0.1',
      readBody: () => Promise.resolve(bytes),
    };
    const res = await t.app.handle(req);
    trace.push(`answered ${res.status}`);
    return { trace, wal: () => walBytes() - wal };
  }

  it('a recovery: nothing before the answer, then the same store work and mail bytes for either address', async () => {
    await injectRegister(t.app, 'known@example.com');
    const known = await traced('/api/keys/recover', { email: 'known@example.com' });
    const mailed = await eventually(() => outboxBytes(), 'the mail in the outbox');
    const knownTrace = [...known.trace];
    const knownWal = known.wal();
    // an address of the same length that no account holds
    const unknown = await traced('/api/keys/recover', { email: 'nobod@example.com' });
    const rehearsed = await eventually(() => decoyBytes(), 'the rehearsed mail');
    assert.deepEqual(knownTrace, ['answered 202', 'store:recover'], 'the store is asked after the answer');
    assert.deepEqual(unknown.trace, knownTrace);
    assert.ok(knownWal > 0, 'the token was committed to the file');
    assert.equal(unknown.wal(), knownWal, 'the decoy costs the file what the token does');
    assert.equal(rehearsed, mailed, 'the rehearsed mail is as long as the real one');
    assert.equal(outboxBytes(), mailed, 'and is not in the outbox');
  });

  it('a registration: a new account costs the store what another key of an existing one does', async () => {
    const first = await traced('/api/register', { email: 'first@example.com' });
    const firstTrace = [...first.trace];
    const firstWal = first.wal();
    const again = await traced('/api/register', { email: 'first@example.com' });
    assert.deepEqual(firstTrace, ['store:register', 'answered 201'], 'durable before the answer');
    assert.deepEqual(again.trace, firstTrace);
    assert.equal(again.wal(), firstWal, 'the same pages written');
    const other = await traced('/api/register', { email: 'other@example.com' });
    assert.equal(other.wal(), firstWal);
  });

  it('a token: an unknown one and a used one are refused alike, writing nothing', async () => {
    const token = tokenIn(outbox(stateDir)[0]!)!; // the known address's, from the first test
    assert.equal((await injectJson(t.app, '/api/keys/recover/confirm', { token })).status, 201);
    const used = await traced('/api/keys/recover/confirm', { token });
    const usedTrace = [...used.trace];
    assert.equal(used.wal(), 0);
    const unknown = await traced('/api/keys/recover/confirm', { token: `ggr_${'B'.repeat(32)}` });
    assert.deepEqual(usedTrace, ['store:recover', 'answered 400']);
    assert.deepEqual(unknown.trace, usedTrace);
    assert.equal(unknown.wal(), 0);
  });
});
