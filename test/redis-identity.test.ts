// What the gateway makes of Redis (docs/operations.md, Redis in production), as pure judgements:
// the server's own account of itself (gateway/store/redis/server-facts.ts) and whether its data is
// still the data the gateway wrote to (gateway/store/redis/identity.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type IdentityReading,
  type IdentityVerdict,
  judgeIdentity,
  type KnownIdentity,
  lossSentence,
  readingOf,
} from '../gateway/store/redis/identity.ts';
import { factsOf, judgeServer } from '../gateway/store/redis/server-facts.ts';

const info = (fields: Record<string, string>) =>
  `# Server\r\nredis_version:7.0.15\r\n\r\n${Object.entries(fields)
    .map(([k, v]) => `${k}:${v}`)
    .join('\r\n')}\r\n`;

describe('the server, from INFO', () => {
  const cases: [
    name: string,
    fields: Record<string, string>,
    want: [notPrimary: boolean, evicting: RegExp | null, warned: boolean],
  ][] = [
    [
      'a primary with an append-only file',
      { role: 'master', maxmemory_policy: 'noeviction', aof_enabled: '1' },
      [false, null, false],
    ],
    [
      'a primary with a replica and no file',
      { role: 'master', aof_enabled: '0', connected_slaves: '1' },
      [false, null, false],
    ],
    ['a primary with neither', { role: 'master', aof_enabled: '0', connected_slaves: '0' }, [false, null, true]],
    ['a replica', { role: 'slave', aof_enabled: '1' }, [true, null, false]],
    [
      'allkeys-lru',
      { role: 'master', maxmemory_policy: 'allkeys-lru', aof_enabled: '1' },
      [false, /maxmemory-policy allkeys-lru/, false],
    ],
    [
      'volatile-lru',
      { role: 'master', maxmemory_policy: 'volatile-lru', aof_enabled: '1' },
      [false, /volatile-lru/, false],
    ],
    ['no policy field', { role: 'master', aof_enabled: '1' }, [false, null, false]],
  ];
  for (const [name, fields, [notPrimary, evicting, warned]] of cases) {
    it(name, () => {
      const j = judgeServer(factsOf(info(fields)), '10.0.0.5:6380');
      assert.equal(j.notPrimary !== null, notPrimary, j.notPrimary ?? 'a primary');
      if (evicting) assert.match(j.evicting ?? '', evicting);
      else assert.equal(j.evicting, null);
      if (evicting) assert.match(j.evicting!, /10\.0\.0\.5:6380 .* Set maxmemory-policy to noeviction/);
      assert.equal(j.warning !== null, warned);
    });
  }
  it('names the replica and the way out', () => {
    assert.match(
      judgeServer(factsOf(info({ role: 'slave' })), 'r:6380').notPrimary!,
      /^Redis at r:6380 is a replica and refuses writes: point REDIS_URL at the primary, or let REDIS_SENTINELS find/,
    );
  });
});

describe('the data, from the marker, the counts and the last look', () => {
  const reading = (r: Partial<IdentityReading>): IdentityReading => ({
    id: 'a1',
    state: '',
    acceptedLossAt: null,
    lostAccounts: 0,
    lostKeys: 0,
    since: null,
    seq: 10,
    keySeq: 20,
    looked: null,
    ...r,
  });
  const NOW = 1_000_000_000;
  const fresh: KnownIdentity = { id: null, accounts: 0, keys: 0 };
  const running: KnownIdentity = { id: 'a1', accounts: 10, keys: 20 };
  const cases: [name: string, known: KnownIdentity, r: IdentityReading, want: Partial<IdentityVerdict>][] = [
    ['a gateway starting adopts what it finds', fresh, reading({}), { kind: 'ok', id: 'a1' }],
    ['the same store, grown', running, reading({ seq: 11, keySeq: 25 }), { kind: 'ok', id: 'a1' }],
    [
      'no marker: emptied',
      running,
      reading({ id: '', seq: 0, keySeq: 0 }),
      { kind: 'lost', cause: 'emptied', id: 'a1' },
    ],
    ['another marker: replaced', running, reading({ id: 'b2', seq: 1 }), { kind: 'lost', cause: 'replaced', id: 'a1' }],
    ['fewer keys than issued: older', running, reading({ keySeq: 19 }), { kind: 'lost', cause: 'older', keys: 20 }],
    ['fewer accounts than issued: older', running, reading({ seq: 9 }), { kind: 'lost', cause: 'older', accounts: 10 }],
    [
      'fewer keys, in a copy looked at 11 minutes ago: older (a backup)',
      running,
      reading({ keySeq: 19, looked: NOW - 11 * 60_000 }),
      { kind: 'lost', cause: 'older', keys: 20 },
    ],
    [
      'fewer keys, in a copy looked at 2 s ago: behind (a failover, mended from the journal)',
      running,
      reading({ keySeq: 19, looked: NOW - 2_000 }),
      { kind: 'behind', id: 'a1' },
    ],
    [
      'fewer accounts, in a copy looked at 9 minutes ago: behind',
      running,
      reading({ seq: 9, looked: NOW - 9 * 60_000 }),
      { kind: 'behind', id: 'a1' },
    ],
    [
      'a recent copy without the marker is still emptied',
      running,
      reading({ id: '', seq: 0, keySeq: 0, looked: NOW - 1_000 }),
      { kind: 'lost', cause: 'emptied' },
    ],
    [
      'a loss flagged by another gateway, seen by one starting',
      fresh,
      reading({ state: 'lost', lostAccounts: 12, lostKeys: 30, since: 5 }),
      { kind: 'lost', cause: 'flagged', id: 'a1', accounts: 12, keys: 30, since: 5 },
    ],
    [
      'an accepted loss is adopted',
      running,
      reading({ id: 'c3', acceptedLossAt: 7, seq: 10, keySeq: 20 }),
      { kind: 'ok', id: 'c3', acceptedLossAt: 7 },
    ],
    [
      'an accepted loss is adopted, whatever the marks of the lost data',
      { id: 'a1', accounts: 50, keys: 80 },
      reading({ id: 'c3', acceptedLossAt: 7, seq: 10, keySeq: 20 }),
      { kind: 'ok', id: 'c3', acceptedLossAt: 7 },
    ],
  ];
  for (const [name, known, r, want] of cases) {
    it(name, () => {
      const v = judgeIdentity(known, r, NOW);
      for (const [field, value] of Object.entries(want))
        assert.deepEqual(v[field as keyof IdentityVerdict], value, field);
      if (v.kind === 'lost') assert.match(lossSentence(v), /accept-loss/);
    });
  }
  it("reads the script's answer, absent fields as nothing", () => {
    assert.deepEqual(readingOf(['a1', '', '', '', '', '', '3', '4', '0']), reading({ seq: 3, keySeq: 4 }));
    assert.equal(readingOf(['a1', '', '', '', '', '', '3', '4', '0', '1234']).looked, 1234);
    assert.equal(readingOf(['', 'lost', '', '2', '5', '99', '0', '0', '0']).since, 99);
  });
});
