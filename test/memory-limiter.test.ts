// The windows held in memory (gateway/store/memory-limiter.ts): a holder (a verified key's account)
// keeps its subject's window so a request needs no lookup, and never counts in a window the
// limiter no longer holds. Time is injected.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WINDOW_MS, type WindowHolder } from '../gateway/rate-limit.ts';
import { createMemoryLimiter } from '../gateway/store/memory-limiter.ts';

const t0 = 1_000_000;

/** The subject's saved usage: what the store would write (requests counted since the last save). */
const usage = (limiter: ReturnType<typeof createMemoryLimiter>) =>
  Object.fromEntries(limiter.unsaved().rows.map(([subject, n]) => [subject, n]));

describe('memory limiter: holders', () => {
  it('a holder gets the window at its first count and counts in it with or without the holder', () => {
    const limiter = createMemoryLimiter({ limit: 5 });
    const holder: WindowHolder = {};
    assert.equal(limiter.peek('k1', t0, holder).used, 0);
    assert.ok(!('window' in holder), 'a peek opens no window, so there is none to hold');
    assert.equal(limiter.hit('k1', t0, holder).used, 1);
    assert.ok(holder.window, 'the counted window is held');
    assert.equal(limiter.hit('k1', t0 + 1).used, 2, 'without the holder: the same window');
    assert.equal(limiter.hit('k1', t0 + 2, holder).used, 3);
    assert.equal(holder.window?.count, 3);
    assert.deepEqual(usage(limiter), { k1: 3 });
  });

  it('a refusal is the same through the holder', () => {
    const limiter = createMemoryLimiter({ limit: 2 });
    const holder: WindowHolder = {};
    limiter.hit('k1', t0, holder);
    limiter.hit('k1', t0, holder);
    const refused = limiter.hit('k1', t0 + 5, holder);
    assert.deepEqual(refused, { allowed: false, limit: 2, used: 2, resetAt: t0 + WINDOW_MS });
    assert.deepEqual(limiter.peek('k1', t0 + 5), refused);
  });

  it('after its window is swept, a holder counts in the new window the limiter holds', () => {
    const limiter = createMemoryLimiter({ limit: 5 });
    const holder: WindowHolder = {};
    limiter.hit('k1', t0, holder);
    limiter.unsaved().settle();
    const swept = holder.window;
    assert.equal(limiter.live(t0 + WINDOW_MS).size, 0, 'the ended, saved window is swept');
    assert.equal(limiter.hit('k1', t0 + WINDOW_MS + 1, holder).used, 1);
    assert.notEqual(holder.window, swept, 'the holder follows the new window');
    assert.equal(limiter.hit('k1', t0 + WINDOW_MS + 2).used, 2, 'the map and the holder agree');
    assert.deepEqual(usage(limiter), { k1: 2 });
    assert.equal(limiter.live(t0 + WINDOW_MS + 3).get('k1')?.count, 2);
  });

  it('a restored window replaces the held one', () => {
    const limiter = createMemoryLimiter({ limit: 5 });
    const holder: WindowHolder = {};
    limiter.hit('k1', t0, holder);
    limiter.restore([['k1', t0, 4]], t0 + 1);
    assert.equal(limiter.hit('k1', t0 + 2, holder).used, 5, 'counted in the restored window');
    assert.equal(limiter.hit('k1', t0 + 3, holder).allowed, false);
  });

  it('a window evicted from a bounded limiter is not counted in through its holder', () => {
    const limiter = createMemoryLimiter({ limit: 5, maxSubjects: 1 });
    const holder: WindowHolder = {};
    limiter.hit('a', t0, holder);
    limiter.hit('a', t0, holder);
    limiter.hit('b', t0); // 'a' is the oldest: evicted
    assert.equal(limiter.size, 1);
    assert.equal(limiter.hit('a', t0 + 1, holder).used, 1, 'a new window, not the evicted one');
    assert.equal(limiter.peek('b', t0 + 1).used, 0, "'b' was evicted in turn");
    assert.equal(limiter.peek('a', t0 + 1).used, 1);
  });
});

describe('memory limiter: a refund (an upstream 502 or 504, docs/contract.md, Authentication and limits)', () => {
  it('takes the request back from the window that counted it, its usage too', () => {
    const limiter = createMemoryLimiter({ limit: 2 });
    const holder: WindowHolder = {};
    limiter.hit('k1', t0, holder);
    const second = limiter.hit('k1', t0 + 1, holder);
    assert.equal(limiter.hit('k1', t0 + 2, holder).allowed, false, 'the hour is spent');
    limiter.refund('k1', second, holder);
    assert.equal(limiter.hit('k1', t0 + 3).used, 2, 'the refunded request is counted again, once');
    assert.deepEqual(usage(limiter), { k1: 2 });
  });

  it('takes nothing from a later window, nor from a subject it never counted', () => {
    const limiter = createMemoryLimiter({ limit: 5 });
    const old = limiter.hit('k1', t0);
    limiter.hit('k1', t0 + WINDOW_MS); // the next hour opens
    limiter.refund('k1', old);
    limiter.refund('k2', old);
    assert.equal(limiter.peek('k1', t0 + WINDOW_MS + 1).used, 1);
    assert.equal(limiter.peek('k2', t0 + 1).used, 0);
  });
});
